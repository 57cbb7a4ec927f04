// One variant on one point's pair of tables: timed, verified against the oracle, and for the
// GPU joins their peak device memory, per-kernel times and (BSP) bucket skew (run_variant.cu).
#pragma once

#include "hashlab/common/generator.hpp"
#include "hashlab/pkpk_join/pkpk_join.hpp"
#include "inputs.cuh"

namespace hashlab::pkpk::experiments {

/// One variant on one pair of tables: time, verify, and for BSP the bucket skew.
void run_variant(PointContext& ctx, const gen::PkPkSpec& spec, const BspOptions& bsp_options = {},
                 bool profile = false);

}  // namespace hashlab::pkpk::experiments
