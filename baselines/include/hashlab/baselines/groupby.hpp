// GPU group-by baselines that several papers compare against and that are no paper's subject:
// a linear-probing hash group-by in the style of cuDF, and a sort-based group-by (CUB radix
// sort + reduce-by-key). One 32-bit key column, one 32-bit value column, one aggregation.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "hashlab/common/memory.hpp"
#include "hashlab/common/sentinels.hpp"
#include "hashlab/reference/groupby.hpp"

namespace hashlab::baseline {

using reference::Aggregation;

/// Groups on the device: keys[g] and aggregate[g] for g < groups. Sums are 64-bit; count, min
/// and max fit too; a mean is its sum and count (ask for kSum and kCount).
struct DeviceGroups {
  DeviceBuffer<std::uint32_t> keys;
  DeviceBuffer<std::uint64_t> aggregate;
  std::size_t groups = 0;

  /// Copies to the host in the references' form, sorted by key (synchronises `stream`).
  reference::GroupByResult to_reference(Aggregation op, cudaStream_t stream) const;
};

/// Copies `groups` groups of device memory (keys[g], aggregates[g]) to the host in the references'
/// form, sorted by key (synchronises `stream`; the device arrays are untouched): the one-key,
/// one-aggregate result of every GPU group-by here, put in key order on the host's cores.
reference::GroupByResult groups_to_reference(const std::uint32_t* keys, const std::uint64_t* aggregates,
                                             std::size_t groups, Aggregation op, cudaStream_t stream);

/// Aggregations the GPU baselines support (kMean is not among them: see DeviceGroups).
bool supports(Aggregation op);

/// cuDF-style hash group-by: an open-addressing table of `capacity` slots (key by atomicCAS,
/// aggregate by a 64-bit atomic), murmur3 hash, linear probing, then a compaction of the used
/// slots. The empty key kEmptyKey (0xffffffff) may not appear in the input (std::invalid_argument).
/// Throws std::invalid_argument when the groups cannot fit (the kernel detects a full table).
class HashGroupBy {
 public:
  /// A table with `capacity` slots (load factor = groups / capacity).
  HashGroupBy(std::size_t capacity, cudaStream_t stream);

  /// Aggregates n rows; the result's buffers are allocated on `stream`.
  DeviceGroups aggregate(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, Aggregation op,
                         cudaStream_t stream);

  std::size_t capacity() const { return capacity_; }
  std::size_t bytes() const { return slot_keys_.bytes() + slot_values_.bytes(); }

 private:
  std::size_t capacity_;
  DeviceBuffer<std::uint32_t> slot_keys_;
  DeviceBuffer<std::uint64_t> slot_values_;
  DeviceBuffer<std::uint32_t> status_;  // [0]: groups found, [1]: table overflowed
};

/// Sort-based group-by: sort (key, value) pairs by key with CUB's radix sort, then reduce runs
/// of equal keys. Keys and values are copied first; the inputs are untouched.
DeviceGroups sort_groupby(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, Aggregation op,
                          cudaStream_t stream);

}  // namespace hashlab::baseline
