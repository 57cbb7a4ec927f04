// Multi-threaded CPU baselines that the papers compare against (RAPIDS's and EGA's CPU
// group-by, HashGraph's MC-Hash join stand-in, the pk-pk join's CPU join). Radix-partitioned
// hash algorithms on std::thread: partition by hash, then one private hash table per
// partition, so threads never share a table (a group-by whose sampled keys show few groups skips
// the partitioning: each thread aggregates its rows into a private table, and the tables merge).
// Results match the references exactly.
#pragma once

#include <cstdint>
#include <vector>

#include "hashlab/common/threads.hpp"
#include "hashlab/reference/groupby.hpp"
#include "hashlab/reference/join.hpp"

namespace hashlab::cpu {

/// Above this many input rows the experiments' checks take their answer from a multi-threaded
/// computation, and each such point's note says which: the sort-based reference::sorted_groupby and
/// reference::sorted_join_count (independent of every hash-based algorithm), or for pk-pk joins the
/// CPU join of papers/pkpk_join (tested equal to the reference; its own points are then checked
/// against the reference). The single-threaded references took seconds of every large point's
/// wall time. One threshold for every module.
constexpr std::uint64_t kOracleReferenceRows = std::uint64_t{1} << 20;

/// Group-by of one key column and one value column with one aggregation, on `threads` threads
/// (0: default_threads()). V: int32_t, uint32_t, int64_t, float, double. Sorted by key.
template <class V>
reference::GroupByResult parallel_groupby(const std::vector<std::uint32_t>& keys,
                                          const std::vector<V>& values, reference::Aggregation op,
                                          unsigned threads = 0);

/// The number of distinct keys among keys[0, n), estimated from a sample of 65536 rows spread over
/// the input (exact up to that many rows): what parallel_groupby chooses its strategy by.
std::size_t estimate_groups(const std::uint32_t* keys, std::size_t n);

/// Inner join count of r and s (keys may repeat), build on r and probe with s.
std::uint64_t parallel_join_count(const std::vector<std::uint32_t>& r, const std::vector<std::uint32_t>& s,
                                  unsigned threads = 0);

/// Every (i, j) with r[i] == s[j], sorted by (r_index, s_index).
std::vector<reference::JoinPair> parallel_join(const std::vector<std::uint32_t>& r,
                                               const std::vector<std::uint32_t>& s, unsigned threads = 0);

}  // namespace hashlab::cpu
