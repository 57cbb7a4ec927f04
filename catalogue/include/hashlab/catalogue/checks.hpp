// The CPU references' answers for the catalogue's inputs, and the comparisons every user of the
// catalogue checks with (the experiments, the own-data commands' --verify, the tests).
//
// Above cpu::kOracleReferenceRows (2^20) rows the single-threaded references take minutes; there
// the same answers come from sorting on all cores (reference::sorted_groupby,
// pkpk::sort_merge_join), independent of every hash-based algorithm, and `note` says so.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "hashlab/catalogue/groupby.hpp"
#include "hashlab/catalogue/join.hpp"
#include "hashlab/catalogue/table.hpp"
#include "hashlab/pkpk_join/pkpk_join.hpp"
#include "hashlab/reference/groupby.hpp"

namespace hashlab::catalogue {

/// The group-by's answer in output_names' column order: the reference group-by up to 2^20 rows,
/// above it reference::sorted_groupby on all cores, with `note` (optional) then set to
/// kSortedGroupByOracle (emptied otherwise). Throws std::invalid_argument for an input no
/// group-by takes (no columns, unequal lengths).
reference::GroupByResult oracle_groupby(const GroupByInput& input, std::string* note = nullptr);
inline constexpr const char* kSortedGroupByOracle =
    "oracle: the sort-based multi-threaded group-by (reference::sorted_groupby, equal to the reference)";

/// The join's rows sorted by key: pkpk::oracle_join (the reference up to 2^20 rows a table, the
/// sort-merge join on all cores above, `note` saying so).
std::vector<pkpk::JoinedRow> oracle_join(const JoinInput& input, std::string* note = nullptr);
/// "" when equal (both sorted by key), else the first difference.
std::string compare_rows(const std::vector<pkpk::JoinedRow>& expected, const std::vector<pkpk::JoinedRow>& actual);

/// The CPU reference of a lookup, in array form: the multimap key -> values of the build input
/// (sorted), and per query what a probe must answer. Built with two sorts and a merge, no hash map.
struct LookupReference {
  std::vector<std::uint32_t> unique_keys;    // ascending
  std::vector<std::uint64_t> key_begin;      // values of unique_keys[u]: sorted_values[key_begin[u], key_begin[u+1])
  std::vector<std::uint32_t> sorted_values;  // by (key, value)
  std::vector<std::uint32_t> query_count;    // per query: entries with its key (0: absent)
  std::vector<std::uint32_t> query_value;    // per query: its key's smallest value, reference::kNotFound if absent
  std::uint64_t total_matches = 0;           // sum of query_count (a join count)
  bool keys_unique = true;                   // every key of the build input appears once
  std::vector<std::uint32_t> keys;           // the build keys in input order (the tables' own checks)
};

/// The reference of (keys, values) probed with `queries`. Throws std::invalid_argument when keys
/// and values differ in length.
LookupReference make_lookup_reference(std::vector<std::uint32_t> keys, const std::vector<std::uint32_t>& values,
                                      const std::vector<std::uint32_t>& queries);
/// The same from a table input's columns (downloaded when they are on the device only).
LookupReference make_lookup_reference(const TableInput& input);

/// The values `reference` holds for unique key number u (ascending), as [first, last).
inline std::pair<const std::uint32_t*, const std::uint32_t*> values_of(const LookupReference& reference, std::size_t u) {
  const std::uint32_t* base = reference.sorted_values.data();
  return {base + reference.key_begin[u], base + reference.key_begin[u + 1]};
}

/// "" when `actual` gives what `expected` (the reference's answers) gives, for what `actual`
/// computed (its counts, values, total); else the first query that differs.
std::string compare_lookup(const LookupReference& expected, const Lookup& actual, const std::vector<std::uint32_t>& queries);

}  // namespace hashlab::catalogue
