// What the SP-EGA experiments share: their input on the device with its oracle, the verification
// of the largest inputs on a sample, and the run of one variant (SP-EGA, LPHGA, sort) on L = n.
#pragma once

#include <cstddef>
#include <cstdint>

#include "hashlab/common/generator.hpp"
#include "hashlab/common/memory.hpp"
#include "inputs.cuh"

namespace hashlab::ega::experiments {

struct SpInput {
  DeviceBuffer<std::uint32_t> keys, values;
  reference::GroupByResult expected;
};

/// The input of a point: n keys of `spec` and their values on the device, with the oracle's
/// groups; built once per (n, spec) and shared by the variants.
SpInput& sp_input(PointContext& ctx, const gen::KeySpec& spec);

// Runs one variant on buffers of length L = n (the paper's memory: three buffers the input's size).
void run_sp_variant(PointContext& ctx, SpInput& in);

/// The SP-EGA experiments' variants: sp_ega, lphga, sort.
Variants sp_variants();

/// The variants on uniform keys with param_value groups (sp_groups, sp_bar).
void run_sp_groups(PointContext& ctx);

// SP-EGA's n: 5M rows quick (the verification sorts every group on the host), 100M full (the
// abstract's claims are about 100M-row inputs on one GPU).
std::uint64_t sp_n(const RunOptions& o);

}  // namespace hashlab::ega::experiments
