// The references' answers for the catalogue's inputs and the comparisons (checks.hpp).
#include "hashlab/catalogue/checks.hpp"

#include <stdexcept>

#include "detail.hpp"
#include "hashlab/reference/cpu_baselines.hpp"

namespace hashlab::catalogue {
namespace {

// `groupby(keys, value columns, aggs)` of each value column, the results side by side in
// output_names' order (each value column is aggregated by every aggregation).
template <class GroupBy>
reference::GroupByResult groupby_table(const GroupByInput& input, GroupBy groupby) {
  if (input.keys.empty() || input.values.empty() || input.aggregations.empty())
    throw std::invalid_argument("oracle_groupby: no key column, value column or aggregation");
  std::vector<std::vector<std::uint32_t>> keys;
  for (const auto& k : input.keys) keys.push_back(detail::host_as<std::uint32_t>(k, "the reference groups by", nullptr));
  const std::size_t n = input.aggregations.size();
  reference::GroupByResult out;
  for (const auto& v : input.values) {
    reference::GroupByResult part =
        detail::is_real(v)
            ? groupby(keys, std::vector<std::vector<double>>(n, detail::host_as<double>(v, "", nullptr)), input.aggregations)
            : groupby(keys, std::vector<std::vector<std::int64_t>>(n, detail::host_as<std::int64_t>(v, "", nullptr)),
                      input.aggregations);
    if (out.keys.empty()) out.keys = std::move(part.keys);
    for (auto& column : part.aggregates) out.aggregates.push_back(std::move(column));
  }
  return out;
}

std::vector<std::uint32_t> host_u32(const Column& column) {
  return detail::host_as<std::uint32_t>(column, "the reference takes", nullptr);
}

}  // namespace

reference::GroupByResult oracle_groupby(const GroupByInput& input, std::string* note) {
  const bool small = input.rows() <= cpu::kOracleReferenceRows;
  if (note != nullptr) *note = small ? "" : kSortedGroupByOracle;
  if (small)
    return groupby_table(input, [](const auto& keys, const auto& values, const auto& aggs) {
      return reference::groupby(keys, values, aggs);
    });
  return groupby_table(input, [](const auto& keys, const auto& values, const auto& aggs) {
    return reference::sorted_groupby(keys, values, aggs);
  });
}

std::vector<pkpk::JoinedRow> oracle_join(const JoinInput& input, std::string* note) {
  return pkpk::oracle_join(host_u32(input.r_keys), host_u32(input.r_values), host_u32(input.s_keys),
                           host_u32(input.s_values), note);
}

std::string compare_rows(const std::vector<pkpk::JoinedRow>& expected, const std::vector<pkpk::JoinedRow>& actual) {
  if (expected.size() != actual.size())
    return std::to_string(actual.size()) + " rows, the reference has " + std::to_string(expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (!(expected[i] == actual[i]))
      return "row " + std::to_string(i) + ": (" + std::to_string(actual[i].key) + ", " +
             std::to_string(actual[i].value1) + ", " + std::to_string(actual[i].value2) + "), reference (" +
             std::to_string(expected[i].key) + ", " + std::to_string(expected[i].value1) + ", " +
             std::to_string(expected[i].value2) + ")";
  return "";
}

LookupReference make_lookup_reference(const TableInput& input) {
  return make_lookup_reference(host_u32(input.keys), host_u32(input.values), host_u32(input.queries));
}

std::string compare_lookup(const LookupReference& expected, const Lookup& actual, const std::vector<std::uint32_t>& queries) {
  const auto at = [&](std::size_t j) {
    return "query " + std::to_string(j) + (j < queries.size() ? " (key " + std::to_string(queries[j]) + ")" : "");
  };
  const std::size_t m = expected.query_count.size();
  if (!actual.count.empty() && actual.count.size() != m)
    return std::to_string(actual.count.size()) + " answers for " + std::to_string(m) + " queries";
  if (!actual.value.empty() && actual.value.size() != m)
    return std::to_string(actual.value.size()) + " values for " + std::to_string(m) + " queries";
  for (std::size_t j = 0; j < actual.count.size(); ++j)
    if (actual.count[j] != expected.query_count[j])
      return at(j) + ": count " + std::to_string(actual.count[j]) + ", reference " + std::to_string(expected.query_count[j]);
  for (std::size_t j = 0; j < actual.value.size(); ++j) {
    const std::uint32_t want = expected.query_count[j] == 0 ? 0 : expected.query_value[j];
    if (actual.value[j] != want)
      return at(j) + ": value " + std::to_string(actual.value[j]) + ", reference " + std::to_string(want);
  }
  if (actual.total != expected.total_matches)
    return "the probe counted " + std::to_string(actual.total) + " matches, reference " +
           std::to_string(expected.total_matches);
  return "";
}

}  // namespace hashlab::catalogue
