// The CPU reference of the tables' lookups in array form (see tables.hpp), and the table names.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "hashlab/common/radix_sort.hpp"
#include "hashlab/compare/tables.hpp"
#include "hashlab/reference/lookup.hpp"

namespace hashlab::compare {

namespace {

struct NamedKind {
  TableKind kind;
  const char* name;
};
constexpr NamedKind kNames[] = {{TableKind::kCuckoo, "cuckoo"},
                                {TableKind::kHashGraphV1, "hashgraph_v1"},
                                {TableKind::kHashGraphV2, "hashgraph_v2"},
                                {TableKind::kLinearProbing, "linear_probing"},
                                {TableKind::kSortedArray, "sorted_array"}};

std::uint64_t pack(std::uint32_t high, std::uint32_t low) { return (std::uint64_t{high} << 32) | low; }
std::uint32_t high_of(std::uint64_t w) { return static_cast<std::uint32_t>(w >> 32); }
std::uint32_t low_of(std::uint64_t w) { return static_cast<std::uint32_t>(w & 0xffffffffu); }

}  // namespace

const char* to_string(TableKind kind) {
  for (const auto& k : kNames)
    if (k.kind == kind) return k.name;
  return "unknown";
}

TableKind parse_table_kind(const std::string& name) {
  std::string choices;
  for (const auto& k : kNames) {
    if (name == k.name) return k.kind;
    choices += choices.empty() ? k.name : std::string(", ") + k.name;
  }
  throw std::invalid_argument("unknown table '" + name + "' (choices: " + choices + ")");
}

const std::vector<TableKind>& all_table_kinds() {
  static const std::vector<TableKind> kinds = {TableKind::kCuckoo, TableKind::kHashGraphV1, TableKind::kHashGraphV2,
                                               TableKind::kLinearProbing, TableKind::kSortedArray};
  return kinds;
}

bool runs_at_load(TableKind kind, double load_factor) {
  if (!(load_factor > 0)) return false;
  switch (kind) {
    case TableKind::kCuckoo: return load_factor <= kCuckooMaxLoad;
    case TableKind::kLinearProbing: return load_factor <= kLinearProbingMaxLoad;
    case TableKind::kSortedArray: return load_factor == kSortedArrayLoad;
    default: return true;  // HashGraph: any number of keys per vertex
  }
}

LookupReference make_lookup_reference(const std::vector<std::uint32_t>& keys, const std::vector<std::uint32_t>& values,
                                      const std::vector<std::uint32_t>& queries) {
  if (keys.size() != values.size())
    throw std::invalid_argument("make_lookup_reference: " + std::to_string(keys.size()) + " keys but " +
                                std::to_string(values.size()) + " values");
  if (queries.size() > 0xffffffffull) throw std::invalid_argument("make_lookup_reference: more than 2^32 queries");
  // The pairs in (key, value) order and the queries in (key, row) order, by stable radix sorts on
  // all cores: the pairs by value, then by key; the queries, whose rows ascend already, by key.
  std::vector<std::uint64_t> pairs(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) pairs[i] = pack(keys[i], values[i]);
  std::vector<std::uint64_t> order(queries.size());
  for (std::size_t j = 0; j < queries.size(); ++j) order[j] = pack(queries[j], static_cast<std::uint32_t>(j));
  cpu::radix_sort(pairs, [](std::uint64_t p) { return low_of(p); });
  cpu::radix_sort(pairs, [](std::uint64_t p) { return high_of(p); });
  cpu::radix_sort(order, [](std::uint64_t q) { return high_of(q); });

  LookupReference ref;
  ref.sorted_values.resize(pairs.size());
  ref.key_begin.push_back(0);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    ref.sorted_values[i] = low_of(pairs[i]);
    if (i == 0 || high_of(pairs[i]) != high_of(pairs[i - 1])) {
      if (i > 0) ref.key_begin.push_back(i);
      ref.unique_keys.push_back(high_of(pairs[i]));
    }
  }
  if (!pairs.empty()) ref.key_begin.push_back(pairs.size());
  ref.keys_unique = ref.unique_keys.size() == keys.size();

  // Merge the sorted queries with the unique keys.
  ref.query_count.assign(queries.size(), 0);
  ref.query_value.assign(queries.size(), reference::kNotFound);
  std::size_t u = 0;
  for (const std::uint64_t q : order) {
    const std::uint32_t key = high_of(q);
    const std::uint32_t row = low_of(q);
    while (u < ref.unique_keys.size() && ref.unique_keys[u] < key) ++u;
    if (u < ref.unique_keys.size() && ref.unique_keys[u] == key) {
      const auto count = ref.key_begin[u + 1] - ref.key_begin[u];
      ref.query_count[row] = static_cast<std::uint32_t>(count);
      ref.query_value[row] = ref.sorted_values[ref.key_begin[u]];
      ref.total_matches += count;
    }
  }
  return ref;
}

}  // namespace hashlab::compare
