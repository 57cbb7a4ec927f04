// Device helpers shared by SP-EGA, LPHGA and MP-EGA's kernels (private to the module).
#pragma once

#include <cstddef>
#include <cstdint>

#include "hashlab/common/hash.hpp"
#include "hashlab/ega/sp_ega.hpp"

namespace hashlab::ega::detail {

/// Words of the small status array each run reads back.
enum Status : int {
  kSentinelSeen = 0,     // the input held kEmptyKey
  kOverflow = 1,         // a linear-probing table had no free slot (cannot happen when n <= L)
  kPartialGroups = 2,    // SP-EGA phase 2: groups of the partial hash table (g1)
  kUnhashedPairs = 3,    // SP-EGA phase 3: pairs left by phase 1 (u)
  kProbeGroups = 4,      // SP-EGA phase 5 / LPHGA: groups of the linear-probing table (g2)
  kStatusWords = 5,
};

/// The identity of a combine: what an empty slot's aggregate starts from.
__host__ __device__ inline std::uint64_t identity_of(Aggregation op) {
  return op == Aggregation::kMin ? ~std::uint64_t{0} : std::uint64_t{0};
}

/// Folds one pair's aggregate into a slot's. A count is a sum of the pairs' counts (each input
/// pair starts at 1), so partial results combine as they are.
__device__ __forceinline__ void combine(std::uint64_t* slot, Aggregation op, std::uint64_t value) {
  auto* s = reinterpret_cast<unsigned long long*>(slot);
  const auto v = static_cast<unsigned long long>(value);
  switch (op) {
    case Aggregation::kMin: atomicMin(s, v); break;
    case Aggregation::kMax: atomicMax(s, v); break;
    default: atomicAdd(s, v); break;  // kSum, kCount
  }
}

/// The combine of two aggregates, without atomics.
__host__ __device__ inline std::uint64_t combine_plain(Aggregation op, std::uint64_t a, std::uint64_t b) {
  switch (op) {
    case Aggregation::kMin: return a < b ? a : b;
    case Aggregation::kMax: return a > b ? a : b;
    default: return a + b;  // kSum, kCount
  }
}

constexpr unsigned kFullMask = 0xffffffffu;

/// Warp-level combine before the atomics (a choice of ours, see the README): the `active` lanes
/// holding the same key find each other (__match_any_sync); when any key occurs twice in the
/// warp, every lane's `value` becomes its peer group's combined aggregate. Returns the peer mask;
/// its lowest lane is the group's leader, the one lane that touches the table. Every lane of
/// `active` must call this (the shuffles are warp-synchronous).
__device__ __forceinline__ unsigned warp_combine(unsigned active, std::uint32_t key, std::uint64_t& value,
                                                 Aggregation op) {
  const unsigned peers = __match_any_sync(active, key);
  if (__any_sync(active, __popc(peers) > 1)) {
    const int lane = static_cast<int>(threadIdx.x % 32);
    std::uint64_t total = value;
    for (int src = 0; src < 32; ++src) {
      const std::uint64_t other = __shfl_sync(active, value, src);
      if (src != lane && ((peers >> src) & 1u)) total = combine_plain(op, total, other);
    }
    value = total;
  }
  return peers;
}

__device__ __forceinline__ bool is_leader(unsigned peers) {
  return static_cast<int>(threadIdx.x % 32) == __ffs(static_cast<int>(peers)) - 1;
}

/// The position of `key` in [0, range): murmur3 (ending in its fmix32 finaliser) with `seed`,
/// mapped to the range by multiply-shift instead of a modulo.
__device__ __forceinline__ std::size_t position_of(std::uint32_t key, std::uint32_t seed, std::size_t range) {
  return hash::reduce_range(hash::murmur3_32(key, seed), static_cast<std::uint32_t>(range));
}

/// Linear-probe hash aggregation of one pair (SP-EGA phase 4, LPHGA): claim an empty slot or find
/// the key's, set the indicator of a newly claimed slot to 1, combine. False when no slot is left.
__device__ __forceinline__ bool probe_aggregate(std::uint32_t* table_keys, std::uint64_t* table_values,
                                                std::uint32_t* indicator, std::size_t slots, std::uint32_t key,
                                                std::uint64_t value, Aggregation op, std::uint32_t seed) {
  std::size_t slot = position_of(key, seed, slots);
  for (std::size_t step = 0; step < slots; ++step) {
    std::uint32_t current = table_keys[slot];
    if (current == kEmptyKey) {
      current = atomicCAS(table_keys + slot, kEmptyKey, key);
      if (current == kEmptyKey) {  // scenario (1): the slot was empty, it is ours now
        indicator[slot] = 1;
        combine(table_values + slot, op, value);
        return true;
      }
    }
    if (current == key) {  // scenario (2): the key's own slot
      combine(table_values + slot, op, value);
      return true;
    }
    slot = slot + 1 == slots ? 0 : slot + 1;  // scenario (3): probe on
  }
  return false;
}

/// keys[i] = kEmptyKey, values[i] = identity, indicator[i] = 0 for i < n (indicator may be
/// null). Asynchronous on `stream`.
void clear_table(std::uint32_t* keys, std::uint64_t* values, std::uint32_t* indicator, std::size_t n,
                 std::uint64_t identity, cudaStream_t stream);

}  // namespace hashlab::ega::detail
