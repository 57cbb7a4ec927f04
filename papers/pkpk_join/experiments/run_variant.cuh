// One variant on one point's pair of tables: timed, verified against the oracle, and for the
// GPU joins their peak device memory, per-kernel times and (BSP) bucket skew (run_variant.cu).
#pragma once

#include "hashlab/common/generator.hpp"
#include "hashlab/pkpk_join/pkpk_join.hpp"
#include "inputs.cuh"

namespace hashlab::pkpk::experiments {

/// The tables of variant "crystal_dense": Crystal's own data at n rows per table (dense keys, every
/// row of S matching), in place of the point's.
gen::PkPkSpec crystal_dense_spec(std::uint64_t n);

/// One variant on one pair of tables: time, verify, and for BSP the bucket skew.
void run_variant(PointContext& ctx, const gen::PkPkSpec& spec, const BspOptions& bsp_options = {},
                 bool profile = false);

}  // namespace hashlab::pkpk::experiments
