// CPU reference joins: the oracle for HashGraph's probes, the pk-pk join and the hash join.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hashlab::reference {

/// One output row of an inner equi-join: r[r_index] == s[s_index].
struct JoinPair {
  std::uint32_t r_index;
  std::uint32_t s_index;
  friend bool operator==(const JoinPair& a, const JoinPair& b) {
    return a.r_index == b.r_index && a.s_index == b.s_index;
  }
  friend bool operator<(const JoinPair& a, const JoinPair& b) {
    return a.r_index != b.r_index ? a.r_index < b.r_index : a.s_index < b.s_index;
  }
};

/// Number of (i, j) with r[i] == s[j] (keys may repeat on both sides).
std::uint64_t inner_join_count(const std::vector<std::uint32_t>& r, const std::vector<std::uint32_t>& s);

/// The same count computed another way: both columns radix-sorted on `threads` threads (0: one per
/// 64Ki keys, at most all cores), then merged. Independent of every hash join of the suite: the
/// checks' answer for large inputs.
std::uint64_t sorted_join_count(const std::vector<std::uint32_t>& r, const std::vector<std::uint32_t>& s,
                                unsigned threads = 0);

/// The checks' join count: inner_join_count up to cpu::kOracleReferenceRows keys in either column,
/// sorted_join_count above, with `note` (optional) then set to kSortedJoinCountOracle (emptied
/// otherwise).
std::uint64_t oracle_join_count(const std::vector<std::uint32_t>& r, const std::vector<std::uint32_t>& s,
                                std::string* note = nullptr);
inline constexpr const char* kSortedJoinCountOracle =
    "oracle: the sort-based multi-threaded join count (reference::sorted_join_count)";

/// Every (i, j) with r[i] == s[j], sorted by (r_index, s_index).
std::vector<JoinPair> inner_join(const std::vector<std::uint32_t>& r, const std::vector<std::uint32_t>& s);

/// One output row of a primary-key join: the key and its row in each table.
struct PkPkRow {
  std::uint32_t key;
  std::uint32_t r_index;
  std::uint32_t s_index;
  friend bool operator==(const PkPkRow& a, const PkPkRow& b) {
    return a.key == b.key && a.r_index == b.r_index && a.s_index == b.s_index;
  }
};

/// The join of two tables whose keys are unique within each table, sorted by key. Throws
/// std::invalid_argument naming a key that repeats within a table.
std::vector<PkPkRow> pkpk_join(const std::vector<std::uint32_t>& r, const std::vector<std::uint32_t>& s);

}  // namespace hashlab::reference
