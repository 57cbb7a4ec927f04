// Where a thread is in its grid, and the grid-stride loop every kernel of the suite walks its
// items with (as cuCollections and WarpCore have them):
//
//   __global__ void scale(float* x, std::size_t n, float a) {
//     for (const std::size_t i : grid_stride(n)) x[i] *= a;   // i = this thread, then + threads
//   }
//   scale<<<grid_for(n), kDefaultBlock, 0, stream>>>(x, n, a);  // launch.cuh: any grid covers n
//
// Indices are 64-bit (std::size_t), so n may exceed 2^32: the product blockIdx.x * blockDim.x is
// taken in 64 bits before it can wrap. The loop is what one would write by hand,
//   for (std::size_t i = global_thread_index(); i < n; i += grid_threads()),
// and compiles to the same code.
#pragma once

#include <cstddef>

namespace hashlab {

/// The mask of all 32 lanes of a warp, for the *_sync warp intrinsics.
constexpr unsigned kFullWarpMask = 0xffffffffu;

/// This thread's index in the grid (one-dimensional grids and blocks), in 64 bits.
__device__ __forceinline__ std::size_t global_thread_index() {
  return blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
}

/// The number of threads in the grid: the step of a grid-stride loop.
__device__ __forceinline__ std::size_t grid_threads() { return std::size_t{gridDim.x} * blockDim.x; }

/// The indices global_thread_index(), + grid_threads(), ... below n, for a range-based for loop.
class GridStrideRange {
 public:
  class Iterator {
   public:
    __device__ __forceinline__ Iterator(std::size_t i, std::size_t step) : i_(i), step_(step) {}
    __device__ __forceinline__ std::size_t operator*() const { return i_; }
    __device__ __forceinline__ Iterator& operator++() {
      i_ += step_;
      return *this;
    }
    // "Not yet past the end": the last step may jump beyond n, so this is i < n, not i != n.
    __device__ __forceinline__ bool operator!=(const Iterator& end) const { return i_ < end.i_; }

   private:
    std::size_t i_;
    std::size_t step_;
  };

  __device__ __forceinline__ explicit GridStrideRange(std::size_t n) : n_(n) {}
  __device__ __forceinline__ Iterator begin() const { return Iterator(global_thread_index(), grid_threads()); }
  __device__ __forceinline__ Iterator end() const { return Iterator(n_, 0); }

 private:
  std::size_t n_;
};

/// for (const std::size_t i : grid_stride(n)): each i in [0, n) once, across the whole grid.
__device__ __forceinline__ GridStrideRange grid_stride(std::size_t n) { return GridStrideRange(n); }

/// A grid-stride loop in which every thread runs the same number of rounds, ceil(n /
/// grid_threads()), so that warp-wide votes (__ballot_sync, __match_any_sync) in the body see
/// all 32 lanes each round. The index may therefore reach past n: the body tests i < n itself,
/// and a lane past the end sits the round out after the vote.
///
///   for (const std::size_t i : grid_stride_rounds(n)) {
///     const unsigned active = __ballot_sync(kFullWarpMask, i < n);
///     if (i >= n) continue;
///     ...
///   }
class GridStrideRounds {
 public:
  class Iterator {
   public:
    __device__ __forceinline__ Iterator(std::size_t round, std::size_t step, std::size_t thread)
        : round_(round), step_(step), thread_(thread) {}
    __device__ __forceinline__ std::size_t operator*() const { return round_ * step_ + thread_; }
    __device__ __forceinline__ Iterator& operator++() {
      ++round_;
      return *this;
    }
    __device__ __forceinline__ bool operator!=(const Iterator& end) const { return round_ < end.round_; }

   private:
    std::size_t round_;
    std::size_t step_;
    std::size_t thread_;
  };

  __device__ __forceinline__ explicit GridStrideRounds(std::size_t n) : n_(n) {}
  __device__ __forceinline__ Iterator begin() const { return Iterator(0, grid_threads(), global_thread_index()); }
  __device__ __forceinline__ Iterator end() const {
    const std::size_t step = grid_threads();
    return Iterator((n_ + step - 1) / step, step, 0);
  }

 private:
  std::size_t n_;
};

/// for (const std::size_t i : grid_stride_rounds(n)): as grid_stride(n), but the same number of
/// rounds on every thread (i may be >= n; see GridStrideRounds).
__device__ __forceinline__ GridStrideRounds grid_stride_rounds(std::size_t n) { return GridStrideRounds(n); }

}  // namespace hashlab
