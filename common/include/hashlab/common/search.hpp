// Binary search in a sorted array, for one thread (host or device): std::lower_bound and
// std::upper_bound on a pointer and a length, with the index type the caller counts in
// (std::size_t for arrays in global memory, unsigned for a few splitters in shared memory).
// For many queries at once, prim::lower_bound (primitives.hpp) runs this on the device.
#pragma once

#include "hashlab/common/cuda_check.hpp"

namespace hashlab {

/// The first position p in sorted[0, n) with !(sorted[p] < value), or n if there is none: where
/// `value` is, if it is there, or where it would go.
template <class T, class Index>
HASHLAB_HD Index lower_bound(const T* sorted, Index n, T value) {
  Index lo = 0, hi = n;
  while (lo < hi) {
    const Index mid = lo + (hi - lo) / 2;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/// The first position p in sorted[0, n) with value < sorted[p], or n: the number of items that
/// are not above `value`.
template <class T, class Index>
HASHLAB_HD Index upper_bound(const T* sorted, Index n, T value) {
  Index lo = 0, hi = n;
  while (lo < hi) {
    const Index mid = lo + (hi - lo) / 2;
    if (value < sorted[mid]) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

}  // namespace hashlab
