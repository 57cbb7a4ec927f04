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

// Above kFullCheckRows groups a full comparison sorts every group on the host three times per
// point (tens of seconds at 10^8): such points are verified on a documented sample instead, from
// the raw device result: the group count, the sum of all aggregates, and 2^16 groups of the
// oracle (evenly spaced in its key order) found exactly once in the GPU's output with their
// aggregate.
constexpr std::size_t kFullCheckRows = 10000000;
constexpr std::size_t kSampledGroups = 1u << 16;

void verify_sampled(PointContext& ctx, const reference::GroupByResult& expected, const std::uint32_t* d_keys,
                    const std::uint64_t* d_aggregates, std::size_t count);

// Runs one variant on buffers of length L = n (the paper's memory: three buffers the input's size).
void run_sp_variant(PointContext& ctx, SpInput& in);

/// The SP-EGA experiments' variants.
inline Variants sp_variants() { return {"sp_ega", "lphga", "sort"}; }

/// The variants on uniform keys with param_value groups (sp_groups, sp_bar).
void run_sp_groups(PointContext& ctx);

// SP-EGA's n: 5M rows quick (the verification sorts every group on the host), 100M full (the
// abstract's claims are about 100M-row inputs on one GPU).
std::uint64_t sp_n(const RunOptions& o);

}  // namespace hashlab::ega::experiments
