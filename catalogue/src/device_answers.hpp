// Internal: the answers of the catalogue's GPU entries put in the catalogue's form where the GPU
// left them (device_result()): group-by passes sorted by key and put side by side, a probe's raw
// answers as count and value per query. No algorithm: the same steps result() takes on the host,
// done on the device so that a caller with device columns gets device answers without a round
// trip through host memory.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "hashlab/common/memory.hpp"
#include "hashlab/cuckoo/multivalue.hpp"
#include "hashlab/reference/join.hpp"

namespace hashlab::catalogue::detail {

/// The permutation that puts `groups` key tuples (key_columns[c][g]) in ascending lexicographic
/// order, equal tuples in group order (reference::GroupByResult::sort_by_key's order): stable
/// radix sorts from the last column to the first. std::length_error beyond 2^32 - 1 groups.
DeviceBuffer<std::uint32_t> sort_order(const std::vector<const std::uint32_t*>& key_columns, std::size_t groups,
                                       cudaStream_t stream);

/// out[i] = in[order[i]] for i < n.
template <class T>
DeviceBuffer<T> gather(const T* in, const std::uint32_t* order, std::size_t n, cudaStream_t stream);

/// A copy of n elements (device to device).
template <class T>
DeviceBuffer<T> copy_of(const T* in, std::size_t n, cudaStream_t stream);

/// out[i] = sum[i] / count[i], as the references compute a mean.
DeviceBuffer<double> divide(const std::int64_t* sum, const std::int64_t* count, std::size_t n, cudaStream_t stream);

/// Whether a[0, n) and b[0, n) differ anywhere (synchronises).
bool differ(const std::uint32_t* a, const std::uint32_t* b, std::size_t n, cudaStream_t stream);

/// The sum of n 32-bit counts, read back (synchronises).
std::uint64_t device_sum(const std::uint32_t* counts, std::size_t n, cudaStream_t stream);

/// A map's probe answers (the value, or `marker` when absent) as count 0/1 and value (0 if none).
void map_answers(const std::uint32_t* found, std::size_t m, std::uint32_t marker, std::uint32_t* count,
                 std::uint32_t* value, cudaStream_t stream);

/// A multivalue probe's KeyInfo per query as its count and the smallest of its values in
/// sorted_values[offset, offset + count). Returns the queries whose run lies past the values
/// (0 when the answers are sound; synchronises).
std::uint64_t multivalue_answers(const cuckoo::KeyInfo* info, std::size_t m, const std::uint32_t* sorted_values,
                                 std::size_t values, std::uint32_t* count, std::uint32_t* value, cudaStream_t stream);

/// Join pairs (build row, query) as each query's count and the smallest value of its build rows
/// (`values` per build row); count and value are filled for m queries.
void pair_answers(const reference::JoinPair* pairs, std::size_t n, const std::uint32_t* values, std::size_t m,
                  std::uint32_t* count, std::uint32_t* value, cudaStream_t stream);

}  // namespace hashlab::catalogue::detail
