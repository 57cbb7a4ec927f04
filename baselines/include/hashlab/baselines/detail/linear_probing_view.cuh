// Device-side view of a LinearProbingTable: the probing loop shared by its kernels and by the
// hash join's, so the table layout lives in one place.
#pragma once

#include <cstddef>
#include <cstdint>

#include "hashlab/common/hash.hpp"
#include "hashlab/common/sentinels.hpp"

namespace hashlab::baseline::detail {

__host__ __device__ __forceinline__ constexpr unsigned long long make_entry(std::uint32_t key, std::uint32_t value) {
  return (static_cast<unsigned long long>(key) << 32) | value;
}

constexpr unsigned long long kEmptySlot = make_entry(kEmptyKey, kNotFound);
__host__ __device__ __forceinline__ std::uint32_t entry_key(unsigned long long e) {
  return static_cast<std::uint32_t>(e >> 32);
}
__host__ __device__ __forceinline__ std::uint32_t entry_value(unsigned long long e) {
  return static_cast<std::uint32_t>(e);
}

struct LinearProbingView {
  unsigned long long* slots;
  std::size_t capacity;

  __device__ __forceinline__ std::size_t first_slot(std::uint32_t key) const {
    return hash::murmur3_32(key) % capacity;
  }
  __device__ __forceinline__ std::size_t next_slot(std::size_t slot) const {
    return slot + 1 == capacity ? 0 : slot + 1;
  }

  /// Claims an empty slot for (key, value): read first, CAS only slots that look empty. The
  /// caller guarantees a free slot exists (entries <= capacity).
  __device__ void insert(std::uint32_t key, std::uint32_t value) const {
    const unsigned long long entry = make_entry(key, value);
    for (std::size_t slot = first_slot(key);; slot = next_slot(slot)) {
      if (slots[slot] != kEmptySlot) continue;
      if (atomicCAS(slots + slot, kEmptySlot, entry) == kEmptySlot) return;
    }
  }

  /// Calls on_match(value) for every entry with `key`, walking from its first slot to the next
  /// empty slot (at most `capacity` slots, for a full table).
  template <class OnMatch>
  __device__ void for_each_match(std::uint32_t key, OnMatch&& on_match) const {
    std::size_t slot = first_slot(key);
    for (std::size_t step = 0; step < capacity; ++step, slot = next_slot(slot)) {
      const unsigned long long e = slots[slot];
      if (e == kEmptySlot) return;
      if (entry_key(e) == key) on_match(entry_value(e));
    }
  }

  /// The value of the first entry with `key`, or kNotFound.
  __device__ std::uint32_t find_first(std::uint32_t key) const {
    std::size_t slot = first_slot(key);
    for (std::size_t step = 0; step < capacity; ++step, slot = next_slot(slot)) {
      const unsigned long long e = slots[slot];
      if (e == kEmptySlot) break;
      if (entry_key(e) == key) return entry_value(e);
    }
    return kNotFound;
  }
};

}  // namespace hashlab::baseline::detail
