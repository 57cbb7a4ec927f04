// Collect the flagged items by a scan: the stream compaction that EGA's phases (and many GPU
// algorithms) write as two steps, so that the flags can live in a buffer of the algorithm's
// own (EGA's blue array, yellow's indicator part) and be scanned in place:
//   1. an inclusive prefix sum of the 0/1 flags (prim::inclusive_scan, on the host side), and
//   2. a kernel in which each flagged item moves to its rank among the flagged ones,
//      first + scan[i] - 1: the first flagged item to `first`, the next after it, ...
// collect_flagged is step 2's loop. When nothing but the compaction is wanted, and the flags may
// be a byte array of their own, prim::select_flagged (CUB's DeviceSelect::Flagged) does both.
//
//   __global__ void collect_used_slots(const std::uint32_t* keys, std::size_t slots,
//                                      const std::uint32_t* scan, std::uint32_t* out) {
//     collect_flagged(slots, scan, 0, [&](std::size_t i) { return keys[i] != kEmptyKey; },
//                     [&](std::size_t i, std::size_t to) { out[to] = keys[i]; });
//   }
#pragma once

#include <cstddef>
#include <cstdint>

#include "hashlab/common/grid_stride.cuh"

namespace hashlab {

/// Step 2 of a collect by scan, grid-stride over i < n: for each item with flagged(i) (which must
/// say whether its flag was 1), calls move(i, first + inclusive_scan[i] - 1). Every thread of the
/// grid may call it; `inclusive_scan` is the inclusive prefix sum of the n flags.
template <class Flagged, class Move>
__device__ __forceinline__ void collect_flagged(std::size_t n, const std::uint32_t* inclusive_scan, std::size_t first,
                                                Flagged&& flagged, Move&& move) {
  for (const std::size_t i : grid_stride(n)) {
    if (!flagged(i)) continue;
    move(i, first + inclusive_scan[i] - 1);
  }
}

}  // namespace hashlab
