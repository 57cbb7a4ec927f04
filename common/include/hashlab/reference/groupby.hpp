// CPU reference group-by: the oracle every GPU group-by result is verified against.
// Written for clarity; see cpu_baselines.hpp for the multi-threaded CPU baseline.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hashlab::reference {

/// The reductions of the group-by papers (RAPIDS report section 2; EGA: sum and count).
enum class Aggregation { kSum, kMin, kMax, kCount, kMean };

const char* to_string(Aggregation op);
/// Parses "sum", "min", "max", "count", "mean"; throws std::invalid_argument naming the choices.
Aggregation parse_aggregation(const std::string& name);

/// One aggregate per group. Integer inputs give exact results in `exact` (sum in 64 bits, min,
/// max, count); floating inputs and every mean give `real`. Exactly one of the two is filled.
struct AggregateColumn {
  Aggregation op = Aggregation::kSum;
  std::vector<std::int64_t> exact;
  std::vector<double> real;
  bool is_exact() const { return !exact.empty() || real.empty(); }
};

/// Groups and their aggregates: keys[c][g] is key column c of group g.
struct GroupByResult {
  std::vector<std::vector<std::uint32_t>> keys;
  std::vector<AggregateColumn> aggregates;
  std::size_t groups() const { return keys.empty() ? 0 : keys.front().size(); }
  /// Adds the groups of `other`, a result of the same key columns and aggregations (std::invalid_argument
  /// otherwise), after these: the parts of a group-by that split its keys (across servers) made one.
  void append(const GroupByResult& other);
  /// Puts the groups in ascending order of their key tuples (the canonical order for compare);
  /// groups with equal tuples keep their order. Multi-threaded for one key column.
  void sort_by_key();
  /// Whether the groups are in that order already (a malformed result, whose key columns differ
  /// in length, is not).
  bool sorted_by_key() const;
};

/// Group-by over column-major key columns (all of one length) and value columns (of the same
/// length), one aggregation per value column. V: int32_t, uint32_t, int64_t, float, double.
/// Throws std::invalid_argument on mismatched lengths or counts. The result is sorted by key.
template <class V>
GroupByResult groupby(const std::vector<std::vector<std::uint32_t>>& key_columns,
                      const std::vector<std::vector<V>>& value_columns,
                      const std::vector<Aggregation>& ops);

/// The common case: one key column, one value column, one aggregation.
template <class V>
GroupByResult groupby(const std::vector<std::uint32_t>& keys, const std::vector<V>& values, Aggregation op);

/// The same group-by of one key column, computed another way on `threads` threads (0: one per
/// 64Ki rows, at most all cores): a stable parallel radix sort of (key, row), then each thread folds
/// the groups of its part of the sorted rows in input order with the same accumulators. Equal to
/// groupby() bit for bit, and independent of every hash-based group-by of the suite (the GPU ones
/// and the multi-threaded CPU baseline): the checks' answer for large inputs.
template <class V>
GroupByResult sorted_groupby(const std::vector<std::uint32_t>& keys, const std::vector<V>& values, Aggregation op,
                             unsigned threads = 0);

/// The same for several key columns and one aggregation per value column (groupby()'s general
/// form, with its errors): the rows radix-sorted by the key tuple, one column at a time from the
/// last. Equal to groupby() bit for bit.
template <class V>
GroupByResult sorted_groupby(const std::vector<std::vector<std::uint32_t>>& key_columns,
                             const std::vector<std::vector<V>>& value_columns, const std::vector<Aggregation>& ops,
                             unsigned threads = 0);

/// Compares two results group by group (a side out of key order is sorted first, on a copy).
/// Returns "" when they agree (real aggregates within relative tolerance `rel_tol`), else the first
/// difference.
std::string compare(const GroupByResult& expected, const GroupByResult& actual, double rel_tol = 1e-9);

}  // namespace hashlab::reference
