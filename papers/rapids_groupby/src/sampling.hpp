// The draw shared by the GPU triple sampler and its host twin: distinct rows from random words.
#pragma once

#include <cstdint>

#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/hash.hpp"

namespace hashlab::rapids::detail {

/// Two distinct rows of [0, rows) from two random words (rows >= 2).
HASHLAB_HD void distinct_pair(std::uint32_t w0, std::uint32_t w1, std::uint32_t rows, std::uint32_t& a,
                              std::uint32_t& b) {
  a = hash::reduce_range(w0, rows);
  b = hash::reduce_range(w1, rows - 1);
  if (b >= a) ++b;
}

/// Three distinct rows of [0, rows) from three random words (rows >= 3).
HASHLAB_HD void distinct_triple(std::uint32_t w0, std::uint32_t w1, std::uint32_t w2, std::uint32_t rows,
                                std::uint32_t& a, std::uint32_t& b, std::uint32_t& c) {
  distinct_pair(w0, w1, rows, a, b);
  const std::uint32_t lo = a < b ? a : b;
  const std::uint32_t hi = a < b ? b : a;
  c = hash::reduce_range(w2, rows - 2);
  if (c >= lo) ++c;
  if (c >= hi) ++c;
}

}  // namespace hashlab::rapids::detail
