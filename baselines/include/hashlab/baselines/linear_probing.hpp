// A linear-probing hash table in the style of cuDF's concurrent_unordered_multimap: the
// stand-in for cuDF in HashGraph's figures and the table behind the GPU hash join. 64-bit
// slots hold key (high 32 bits) and value (low 32 bits), claimed with one atomicCAS; murmur3
// picks the first slot; duplicates are kept (multimap), so a lookup walks until an empty slot.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "hashlab/common/memory.hpp"
#include "hashlab/common/sentinels.hpp"

namespace hashlab::baseline {

class LinearProbingTable {
 public:
  /// Slots for n keys at `load_factor` (keys / slots) in (0, 1]; throws std::invalid_argument.
  static std::size_t capacity_for(std::size_t n, double load_factor);

  /// An empty table of `capacity` slots (at least 1).
  LinearProbingTable(std::size_t capacity, cudaStream_t stream);

  /// Empties every slot.
  void clear(cudaStream_t stream);

  /// Inserts n pairs (duplicates become separate entries). `values` may be nullptr: each
  /// entry's value is then its row index, counted across inserts since the last clear(). The table must have room: at most
  /// capacity() entries in total (std::invalid_argument otherwise); kEmptyKey (0xffffffff) marks
  /// empty slots and is refused (std::invalid_argument, checked on the device, reported at the
  /// next synchronisation through `check()`).
  void insert(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, cudaStream_t stream);

  /// Per query: the value of the first entry with that key, or kNotFound.
  void find(const std::uint32_t* queries, std::size_t n, std::uint32_t* values_out, cudaStream_t stream) const;

  /// Per query: how many entries have that key.
  void count(const std::uint32_t* queries, std::size_t n, std::uint32_t* counts_out, cudaStream_t stream) const;

  /// Throws std::invalid_argument if an insert since the last clear() met the sentinel key
  /// (synchronises `stream`).
  void check(cudaStream_t stream) const;

  std::size_t capacity() const { return capacity_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return slots_.bytes(); }
  const unsigned long long* slots() const { return slots_.data(); }

 private:
  std::size_t capacity_;
  std::size_t size_ = 0;
  DeviceBuffer<unsigned long long> slots_;
  DeviceBuffer<std::uint32_t> sentinel_seen_;
};

}  // namespace hashlab::baseline
