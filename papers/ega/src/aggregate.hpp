// The aggregates SP-EGA, LPHGA and MP-EGA compute (sum, count, min, max) as plain functions, for
// the GPU's kernels and the CPU's share of MP-EGA alike (private to the module).
#pragma once

#include <cstdint>

#include "hashlab/common/cuda_check.hpp"
#include "hashlab/ega/sp_ega.hpp"

namespace hashlab::ega::detail {

/// The identity of a combine: what an empty slot's aggregate starts from.
HASHLAB_HD std::uint64_t identity_of(Aggregation op) {
  return op == Aggregation::kMin ? ~std::uint64_t{0} : std::uint64_t{0};
}

/// The combine of two aggregates, without atomics. A count is a sum of the pairs' counts (each
/// input pair starts at 1), so partial results combine as they are.
HASHLAB_HD std::uint64_t combine_plain(Aggregation op, std::uint64_t a, std::uint64_t b) {
  switch (op) {
    case Aggregation::kMin: return a < b ? a : b;
    case Aggregation::kMax: return a > b ? a : b;
    default: return a + b;  // kSum, kCount
  }
}

}  // namespace hashlab::ega::detail
