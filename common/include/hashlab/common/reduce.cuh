// Warp and block sums (CUB's WarpReduce and BlockReduce), and the pattern most kernels use them
// for: each thread counts something in a register, and the warp (or block) adds its total to a
// global counter with one atomic instead of one per thread.
//
//   unsigned long long matches = 0;
//   for (const std::size_t i : grid_stride(n)) matches += ...;
//   atomic_add_warp_sum(total, matches);          // every lane of every warp must get here
#pragma once

#include <cub/block/block_reduce.cuh>
#include <cub/warp/warp_reduce.cuh>

namespace hashlab {

/// The sum of `value` over the 32 lanes of the calling warp, valid in lane 0. Every lane of the
/// warp must call it.
template <class T>
__device__ __forceinline__ T warp_sum(T value) {
  using WarpReduce = cub::WarpReduce<T>;
  // A whole warp (a power of two lanes) reduces by shuffles, and CUB's storage for that case
  // holds nothing (cub::NullType): a local one serves, no shared memory is used.
  typename WarpReduce::TempStorage storage;
  return WarpReduce(storage).Sum(value);
}

/// The sum of `value` over the calling block, valid in thread 0. kBlockThreads must be the
/// block's size; every thread of the block must call it. Consecutive calls with the same T and
/// size share their shared memory: __syncthreads() between them.
template <int kBlockThreads, class T>
__device__ __forceinline__ T block_sum(T value) {
  using BlockReduce = cub::BlockReduce<T, kBlockThreads>;
  __shared__ typename BlockReduce::TempStorage storage;
  return BlockReduce(storage).Sum(value);
}

/// *total += the warp's sum of `value`, one atomic by lane 0 (none when the sum is 0). Every
/// lane of the warp must call it.
__device__ __forceinline__ void atomic_add_warp_sum(unsigned long long* total, unsigned long long value) {
  const unsigned long long sum = warp_sum(value);
  if (threadIdx.x % 32 == 0 && sum != 0) atomicAdd(total, sum);
}

/// *total += the block's sum of `value`, one atomic by thread 0 (none when the sum is 0).
/// kBlockThreads must be the block's size; every thread of the block must call it.
template <int kBlockThreads>
__device__ __forceinline__ void atomic_add_block_sum(unsigned long long* total, unsigned long long value) {
  const unsigned long long sum = block_sum<kBlockThreads>(value);
  if (threadIdx.x == 0 && sum != 0) atomicAdd(total, sum);
}

}  // namespace hashlab
