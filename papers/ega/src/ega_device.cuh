// Helpers shared by SP-EGA, LPHGA and MP-EGA (private to the module): their kernels' device
// functions, the runs' host checks and the counted run.
#pragma once

#include <cstddef>
#include <cstdint>

#include "hashlab/common/collect.cuh"
#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/hash.hpp"
#include "hashlab/common/reduce.cuh"
#include "hashlab/ega/sp_ega.hpp"
#include "aggregate.hpp"

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

/// Folds one pair's aggregate into a slot's, with an atomic (combine_plain without one: aggregate.hpp).
__device__ __forceinline__ void combine(std::uint64_t* slot, Aggregation op, std::uint64_t value) {
  auto* s = reinterpret_cast<unsigned long long*>(slot);
  const auto v = static_cast<unsigned long long>(value);
  switch (op) {
    case Aggregation::kMin: atomicMin(s, v); break;
    case Aggregation::kMax: atomicMax(s, v); break;
    default: atomicAdd(s, v); break;  // kSum, kCount
  }
}

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

/// The pair loop of the hashing kernels (SP-EGA phases 1 and 4, LPHGA): grid-stride over the
/// pairs [0, count) of (keys, values) in whole-warp rounds, so that the warp-level combine sees
/// every lane. Each lane holding a pair loads it, combines it with its warp's equal keys
/// (warp_combine) and calls `visit(i, key, value, active, peers)`: `value` the combined
/// aggregate, `active` the lanes holding a pair this round, `peers` those with `key` (the
/// lowest is the leader). Lanes past `count` sit the round out after the ballot. Every thread
/// of the grid must call this with the same `count` (the ballot takes the full warp).
template <class Visit>
__device__ __forceinline__ void for_each_combined_pair(const std::uint32_t* keys, const std::uint64_t* values,
                                                       std::size_t count, Aggregation op, Visit&& visit) {
  for (const std::size_t i : grid_stride_rounds(count)) {
    const unsigned active = __ballot_sync(kFullWarpMask, i < count);
    if (i >= count) continue;
    const std::uint32_t key = keys[i];
    std::uint64_t value = values[i];
    const unsigned peers = warp_combine(active, key, value, op);
    visit(i, key, value, active, peers);
  }
}

/// The position of `key` in [0, range): murmur3 (ending in its fmix32 finaliser) with `seed`,
/// mapped to the range by multiply-shift instead of a modulo.
__device__ __forceinline__ std::size_t position_of(std::uint32_t key, std::uint32_t seed, std::size_t range) {
  return hash::reduce_range(hash::murmur3_32(key, seed), static_cast<std::uint32_t>(range));
}

/// Words of the work counters a counted run fills (SpEga::run_counted, Lphga::run_counted).
enum Work : int {
  kTableAccesses = 0,  // lookups of a table slot (a warp's leader per key)
  kProbeSteps = 1,     // slots inspected beyond a lookup's first
  kAtomics = 2,        // atomicCAS attempts and aggregate atomics on the tables
  kWorkWords = 3,
};

/// One thread's work counts (only counted runs keep them; the timed kernels are instantiated
/// with kCount = false and carry none of this).
struct WorkTally {
  unsigned long long accesses = 0;
  unsigned long long probe_steps = 0;
  unsigned long long atomics = 0;

  /// Adds the warp's counts to the run's counters (one atomic per counter and warp). Every lane
  /// of the warp must call it.
  __device__ void flush(unsigned long long* work) const {
    atomic_add_warp_sum(work + kTableAccesses, accesses);
    atomic_add_warp_sum(work + kProbeSteps, probe_steps);
    atomic_add_warp_sum(work + kAtomics, atomics);
  }
};

/// Linear-probe hash aggregation of one pair (SP-EGA phase 4, LPHGA): claim an empty slot or find
/// the key's, set the indicator of a newly claimed slot to 1, combine. False when no slot is left.
/// With kCount, `tally` counts the lookup, its probe steps and its atomics.
template <bool kCount>
__device__ __forceinline__ bool probe_aggregate(std::uint32_t* table_keys, std::uint64_t* table_values,
                                                std::uint32_t* indicator, std::size_t slots, std::uint32_t key,
                                                std::uint64_t value, Aggregation op, std::uint32_t seed,
                                                WorkTally& tally) {
  std::size_t slot = position_of(key, seed, slots);
  if (kCount) ++tally.accesses;
  for (std::size_t step = 0; step < slots; ++step) {
    if (kCount && step > 0) ++tally.probe_steps;
    std::uint32_t current = table_keys[slot];
    if (current == kEmptyKey) {
      if (kCount) ++tally.atomics;
      current = atomicCAS(table_keys + slot, kEmptyKey, key);
      if (current == kEmptyKey) {  // scenario (1): the slot was empty, it is ours now
        indicator[slot] = 1;
        if (kCount) ++tally.atomics;
        combine(table_values + slot, op, value);
        return true;
      }
    }
    if (current == key) {  // scenario (2): the key's own slot
      if (kCount) ++tally.atomics;
      combine(table_values + slot, op, value);
      return true;
    }
    slot = slot + 1 == slots ? 0 : slot + 1;  // scenario (3): probe on
  }
  return false;
}

/// The collect of SP-EGA phases 2 and 5 and of LPHGA, after the in-place inclusive scan of a
/// table's indicator (`scan`): the group in each used slot i of [0, slots) goes to
/// first + scan[i] - 1 of (out_keys, out_values), so that the groups lie side by side from `first`.
__device__ __forceinline__ void collect_groups(const std::uint32_t* keys, const std::uint64_t* values, std::size_t slots,
                                               const std::uint32_t* scan, std::size_t first, std::uint32_t* out_keys,
                                               std::uint64_t* out_values) {
  collect_flagged(
      slots, scan, first, [&](std::size_t i) { return keys[i] != kEmptyKey; },
      [&](std::size_t i, std::size_t to) {
        out_keys[to] = keys[i];
        out_values[to] = values[i];
      });
}

/// The counters of a counted run, read back (synchronises `stream`).
WorkCounts read_work(const DeviceBuffer<unsigned long long>& work, cudaStream_t stream);

/// A counted run (SpEga::run_counted, Lphga::run_counted): the counters in `work` (allocated by
/// the first call) zeroed, `run(counters)` (the run with its counting kernels), the counters read
/// back into `counts`. Returns run's groups; synchronises `stream`.
template <class Run>
Groups counted_run(DeviceBuffer<unsigned long long>& work, cudaStream_t stream, WorkCounts& counts, Run&& run) {
  if (work.empty()) work = DeviceBuffer<unsigned long long>(kWorkWords, stream);
  work.fill_bytes(0, stream);
  const Groups groups = run(work.data());
  counts = read_work(work, stream);
  return groups;
}

/// Throws std::invalid_argument, naming `who`, when buffers of `length` items are too long for
/// the 32-bit indicator scans (length >= 2^32 - 1).
void check_length(std::size_t length, const char* who);

/// Throws std::invalid_argument, naming `who`, when `op` is not one pass (require_supported) or
/// n pairs do not fit buffers of `length`.
void check_run(std::size_t n, Aggregation op, std::size_t length, const char* who);

/// keys[i] = kEmptyKey, values[i] = identity, indicator[i] = 0 for i < n (indicator may be
/// null). Asynchronous on `stream`.
void clear_table(std::uint32_t* keys, std::uint64_t* values, std::uint32_t* indicator, std::size_t n,
                 std::uint64_t identity, cudaStream_t stream);

}  // namespace hashlab::ega::detail
