// The CPU references (common/include/hashlab/reference/*.hpp) and the multi-threaded CPU
// algorithms (reference/cpu_baselines.hpp) in Python: the oracles the suite checks every GPU
// answer against, callable on NumPy data (a device column is copied to the host first).
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <tuple>
#include <utility>

#include "columns.hpp"
#include "hashlab/reference/cpu_baselines.hpp"
#include "hashlab/reference/groupby.hpp"
#include "hashlab/reference/join.hpp"
#include "hashlab/reference/lookup.hpp"

namespace hashlab::python {
namespace {

using reference::Aggregation;

/// A group-by's answer for Python: the key columns, then one aggregate per (value column,
/// aggregation) in that order, each an exact int64 or a float64 array.
using GroupByArrays = std::pair<std::vector<nb::object>, std::vector<nb::object>>;

GroupByArrays to_arrays(reference::GroupByResult&& result) {
  GroupByArrays out;
  for (auto& k : result.keys) out.first.push_back(numpy_array(std::move(k)));
  for (auto& a : result.aggregates)
    out.second.push_back(a.is_exact() ? numpy_array(std::move(a.exact)) : numpy_array(std::move(a.real)));
  return out;
}

std::vector<Aggregation> parse_aggregations(const std::vector<std::string>& names) {
  std::vector<Aggregation> ops;
  for (const auto& n : names) ops.push_back(reference::parse_aggregation(n));
  return ops;
}

struct GroupByInput {
  std::vector<std::vector<std::uint32_t>> keys;
  std::vector<Values> values;
  std::vector<Aggregation> ops;
};

/// The columns read and checked as `hashlab groupby` reads its files.
GroupByInput read_groupby(const std::vector<Column>& keys, const std::vector<Column>& values,
                          const std::vector<std::string>& aggs) {
  GroupByInput in;
  in.ops = parse_aggregations(aggs);
  for (const auto& v : values) in.values.push_back(value_vector(v));
  check_groupby_input(keys, values, in.values, in.ops.size());
  for (const auto& k : keys) in.keys.push_back(key_vector(k));
  return in;
}

/// groupby(keys, [column] * aggs, aggs) of each value column, the results side by side in the
/// input's column order (as the commands' reference does).
template <class GroupBy>
reference::GroupByResult groupby_table(const GroupByInput& in, GroupBy groupby) {
  reference::GroupByResult out;
  for (const auto& v : in.values) {
    reference::GroupByResult part =
        v.real ? groupby(in.keys, std::vector<std::vector<double>>(in.ops.size(), v.reals), in.ops)
               : groupby(in.keys, std::vector<std::vector<std::int64_t>>(in.ops.size(), v.ints), in.ops);
    if (out.keys.empty()) out.keys = std::move(part.keys);
    for (auto& column : part.aggregates) out.aggregates.push_back(std::move(column));
  }
  return out;
}

GroupByArrays reference_groupby(const std::vector<Column>& keys, const std::vector<Column>& values,
                                const std::vector<std::string>& aggs, bool sorted, unsigned threads) {
  const GroupByInput in = read_groupby(keys, values, aggs);
  reference::GroupByResult result;
  {
    nb::gil_scoped_release release;
    result = sorted ? groupby_table(in, [&](const auto& k, const auto& v, const auto& ops) {
                        return reference::sorted_groupby(k, v, ops, threads);
                      })
                    : groupby_table(in, [](const auto& k, const auto& v, const auto& ops) {
                        return reference::groupby(k, v, ops);
                      });
  }
  return to_arrays(std::move(result));
}

/// The multi-threaded CPU group-by: one key column, one pass per (value column, aggregation).
GroupByArrays cpu_groupby(const Column& keys, const std::vector<Column>& values, const std::vector<std::string>& aggs,
                          unsigned threads) {
  const GroupByInput in = read_groupby({keys}, values, aggs);
  reference::GroupByResult out;
  {
    nb::gil_scoped_release release;
    for (const auto& v : in.values)
      for (Aggregation op : in.ops) {
        reference::GroupByResult part = v.real ? cpu::parallel_groupby(in.keys.front(), v.reals, op, threads)
                                               : cpu::parallel_groupby(in.keys.front(), v.ints, op, threads);
        if (out.keys.empty()) out.keys = std::move(part.keys);
        out.aggregates.push_back(std::move(part.aggregates.front()));
      }
  }
  return to_arrays(std::move(out));
}

std::pair<nb::object, nb::object> pairs_to_arrays(const std::vector<reference::JoinPair>& pairs) {
  std::vector<std::uint32_t> r(pairs.size()), s(pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    r[i] = pairs[i].r_index;
    s[i] = pairs[i].s_index;
  }
  return {numpy_array(std::move(r)), numpy_array(std::move(s))};
}

/// Runs fn(r_keys, s_keys) without the GIL on the two key columns read as the commands read keys.
template <class Fn>
auto on_keys(const Column& r, const Column& s, Fn&& fn) {
  const auto rk = key_vector(r);
  const auto sk = key_vector(s);
  nb::gil_scoped_release release;
  return fn(rk, sk);
}

}  // namespace

void bind_reference(nb::module_& m) {
  m.def("reference_groupby", &reference_groupby, nb::arg("keys"), nb::arg("values"), nb::arg("aggs"),
        nb::arg("sorted") = false, nb::arg("threads") = 0,
        "The reference group-by (sorted=True: the sort-based one on `threads` threads). Returns (key arrays, "
        "aggregate arrays), one aggregate per (value column, aggregation), groups in ascending key order.");
  m.def("cpu_groupby", &cpu_groupby, nb::arg("keys"), nb::arg("values"), nb::arg("aggs"), nb::arg("threads") = 0);
  m.def("cpu_estimate_groups", [](const Column& keys) {
    const auto k = key_vector(keys);
    nb::gil_scoped_release release;
    return cpu::estimate_groups(k.data(), k.size());
  });
  m.def("cpu_default_threads", &cpu::default_threads);
  m.attr("ORACLE_REFERENCE_ROWS") = cpu::kOracleReferenceRows;

  m.def("reference_join_count", [](const Column& r, const Column& s, bool sorted, unsigned threads) {
    return on_keys(r, s, [&](const auto& a, const auto& b) {
      return sorted ? reference::sorted_join_count(a, b, threads) : reference::inner_join_count(a, b);
    });
  }, nb::arg("r"), nb::arg("s"), nb::arg("sorted") = false, nb::arg("threads") = 0);
  m.def("cpu_join_count", [](const Column& r, const Column& s, unsigned threads) {
    return on_keys(r, s, [&](const auto& a, const auto& b) { return cpu::parallel_join_count(a, b, threads); });
  }, nb::arg("r"), nb::arg("s"), nb::arg("threads") = 0);
  m.def("reference_inner_join", [](const Column& r, const Column& s) {
    return pairs_to_arrays(on_keys(r, s, [](const auto& a, const auto& b) { return reference::inner_join(a, b); }));
  }, nb::arg("r"), nb::arg("s"));
  m.def("cpu_join", [](const Column& r, const Column& s, unsigned threads) {
    return pairs_to_arrays(on_keys(r, s, [&](const auto& a, const auto& b) { return cpu::parallel_join(a, b, threads); }));
  }, nb::arg("r"), nb::arg("s"), nb::arg("threads") = 0);
  m.def("reference_pkpk_join", [](const Column& r, const Column& s) {
    const auto rows = on_keys(r, s, [](const auto& a, const auto& b) { return reference::pkpk_join(a, b); });
    std::vector<std::uint32_t> key(rows.size()), ri(rows.size()), si(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      key[i] = rows[i].key;
      ri[i] = rows[i].r_index;
      si[i] = rows[i].s_index;
    }
    return std::make_tuple(numpy_array(std::move(key)), numpy_array(std::move(ri)), numpy_array(std::move(si)));
  }, nb::arg("r"), nb::arg("s"));

  m.attr("NOT_FOUND") = reference::kNotFound;
  m.def("reference_map_lookup", [](const Column& keys, const Column& values, const Column& queries) {
    require_rows({keys, values});
    const auto k = key_vector(keys), v = key_vector(values), q = key_vector(queries);
    std::vector<std::uint32_t> found;
    {
      nb::gil_scoped_release release;
      found = reference::map_lookup(k, v, q);
    }
    return numpy_array(std::move(found));
  }, nb::arg("keys"), nb::arg("values"), nb::arg("queries"));
  m.def("reference_distinct_keys", [](const Column& keys) {
    return numpy_array(reference::distinct_keys(key_vector(keys)));
  }, nb::arg("keys"));
  m.def("reference_set_contains", [](const Column& keys, const Column& queries) {
    return numpy_array(reference::set_contains(key_vector(keys), key_vector(queries)));
  }, nb::arg("keys"), nb::arg("queries"));
  m.def("reference_sort_keys", [](const Column& keys) { return numpy_array(reference::sort_keys(key_vector(keys))); },
        nb::arg("keys"));
  m.def("reference_sort_pairs", [](const Column& keys, const Column& values) {
    require_rows({keys, values});
    const auto pairs = reference::sort_pairs(key_vector(keys), key_vector(values));
    std::vector<std::uint32_t> k(pairs.size()), v(pairs.size());
    for (std::size_t i = 0; i < pairs.size(); ++i) std::tie(k[i], v[i]) = pairs[i];
    return std::make_pair(numpy_array(std::move(k)), numpy_array(std::move(v)));
  }, nb::arg("keys"), nb::arg("values"));
  m.def("reference_multimap", [](const Column& keys, const Column& values, const Column& queries) {
    require_rows({keys, values});
    const reference::Multimap map(key_vector(keys), key_vector(values));
    const auto q = key_vector(queries);
    std::vector<std::uint32_t> counts(q.size()), offsets(q.size() + 1, 0), found;
    for (std::size_t i = 0; i < q.size(); ++i) {
      const auto v = map.values(q[i]);
      counts[i] = static_cast<std::uint32_t>(v.size());
      found.insert(found.end(), v.begin(), v.end());
      offsets[i + 1] = static_cast<std::uint32_t>(found.size());
    }
    return std::make_tuple(numpy_array(std::move(counts)), numpy_array(std::move(offsets)), numpy_array(std::move(found)));
  }, nb::arg("keys"), nb::arg("values"), nb::arg("queries"),
  "Per query: how many values its key has, and the values (ascending) as found[offsets[i]:offsets[i+1]].");
}

}  // namespace hashlab::python
