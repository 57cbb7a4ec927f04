// Section 3: the cost of hashcode()'s multiplication by 31, as a shift and a subtraction or as a
// multiplication, each with the constants (the paper's forms) or with run-time operands
// (hashcode_cost.hpp).
#include <stdexcept>
#include <string>

#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/dispatch.hpp"
#include "hashlab/common/hash.hpp"
#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/launch.cuh"
#include "hashlab/rapids_groupby/groupby.hpp"
#include "hashlab/rapids_groupby/hashcode_cost.hpp"

namespace hashlab::rapids {
namespace {

template <Times31 Form>
__device__ __forceinline__ std::uint32_t times31(std::uint32_t x, std::uint32_t shift, std::uint32_t multiplier) {
  if constexpr (Form == Times31::kShiftSubtract) return (x << shift) - x;
  else if constexpr (Form == Times31::kMultiply) return x * multiplier;
  else if constexpr (Form == Times31::kMultiplyConstant) return x * 31u;
  else return hash::times31(x);
}

// One thread per row (grid-stride): the row's keys in registers, then a serial chain of
// rounds * key_columns steps, so that the arithmetic, not the one read per key, sets the time.
template <Times31 Form>
__global__ void chained_hashcodes_kernel(const std::uint32_t* __restrict__ keys, int key_columns, std::size_t rows,
                                         int rounds, std::uint32_t shift, std::uint32_t multiplier,
                                         std::uint32_t* __restrict__ out) {
  for (const std::size_t row : grid_stride(rows)) {
    std::uint32_t own[kMaxKeyColumns];
#pragma unroll
    for (int c = 0; c < kMaxKeyColumns; ++c) own[c] = c < key_columns ? keys[c * rows + row] : 0u;
    std::uint32_t h = 0;
    for (int r = 0; r < rounds; ++r) {
#pragma unroll
      for (int c = kMaxKeyColumns - 1; c >= 0; --c)
        if (c < key_columns) h = times31<Form>(h, shift, multiplier) + own[c];
    }
    out[row] = h;
  }
}

}  // namespace

const char* to_string(Times31 form) {
  switch (form) {
    case Times31::kShiftSubtract: return "shift_subtract";
    case Times31::kMultiply: return "multiply";
    case Times31::kAsCompiled: return "as_compiled";
    case Times31::kMultiplyConstant: return "multiply_constant";
  }
  return "?";
}

void chained_hashcodes(const std::uint32_t* keys, int key_columns, std::size_t rows, int rounds, Times31 form,
                       std::uint32_t* out, cudaStream_t stream) {
  if (key_columns < 1 || key_columns > kMaxKeyColumns || rounds < 0)
    throw std::invalid_argument("rapids chained_hashcodes: " + std::to_string(key_columns) + " key columns and " +
                                std::to_string(rounds) + " rounds; need 1 to " + std::to_string(kMaxKeyColumns) +
                                " columns and rounds >= 0");
  if (rows == 0) return;
  // The shift and the multiplier are arguments so that the compiler cannot turn one form into
  // the other; their values make both compute x * 31.
  constexpr std::uint32_t kShift = 5, kMultiplier = 31;
  const unsigned grid = grid_for(rows);
  const bool known = dispatch_value<Times31::kShiftSubtract, Times31::kMultiply, Times31::kAsCompiled,
                                    Times31::kMultiplyConstant>(form, [&](auto form_c) {
    chained_hashcodes_kernel<decltype(form_c)::value>
        <<<grid, kDefaultBlock, 0, stream>>>(keys, key_columns, rows, rounds, kShift, kMultiplier, out);
  });
  if (!known)
    throw std::invalid_argument("rapids chained_hashcodes: unknown form " + std::to_string(static_cast<int>(form)));
  HASHLAB_CHECK_LAUNCH();
}

std::uint32_t chained_hashcode_host(const std::uint32_t* row_keys, int key_columns, int rounds) {
  std::uint32_t h = 0;
  for (int r = 0; r < rounds; ++r)
    for (int c = key_columns - 1; c >= 0; --c) h = h * 31u + row_keys[c];
  return h;
}

}  // namespace hashlab::rapids
