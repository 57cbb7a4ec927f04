// A sorted array queried by binary search: the comparator of the cuckoo chapter (section 4.1,
// Fig. 4.4). Built with CUB's radix sort of (key, value) pairs.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "hashlab/common/memory.hpp"
#include "hashlab/common/sentinels.hpp"

namespace hashlab::baseline {

class SortedArray {
 public:
  /// Copies and sorts n pairs by key (for equal keys, find returns one of their values).
  void build(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, cudaStream_t stream);

  /// Per query: the value stored with the key, or kNotFound (binary search).
  void find(const std::uint32_t* queries, std::size_t n, std::uint32_t* values_out, cudaStream_t stream) const;

  std::size_t size() const { return keys_.size(); }
  std::size_t bytes() const { return keys_.bytes() + values_.bytes(); }
  const std::uint32_t* keys() const { return keys_.data(); }
  const std::uint32_t* values() const { return values_.data(); }

 private:
  DeviceBuffer<std::uint32_t> keys_;
  DeviceBuffer<std::uint32_t> values_;
};

}  // namespace hashlab::baseline
