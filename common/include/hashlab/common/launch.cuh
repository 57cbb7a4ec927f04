// Launch-shape helpers for the grid-stride kernels of every module.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace hashlab {

constexpr int kDefaultBlock = 256;

/// Blocks for a grid-stride loop over n items: enough to fill any current GPU many times over
/// (the cap keeps per-thread loop overhead low for very large n), at least one.
inline unsigned grid_for(std::size_t n, int block = kDefaultBlock, std::size_t max_blocks = 65536) {
  const std::size_t blocks = (n + block - 1) / block;
  return static_cast<unsigned>(std::clamp<std::size_t>(blocks, 1, max_blocks));
}

/// Ceiling division.
template <class T>
constexpr T div_up(T a, T b) {
  return (a + b - 1) / b;
}

}  // namespace hashlab
