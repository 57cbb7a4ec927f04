// What the MP-EGA experiments share: their input in pinned host memory with its oracle, the
// budget of a point, the timing of MP-EGA under a configuration and of the CPU baseline.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "hashlab/common/generator.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/ega/mp_ega.hpp"
#include "inputs.cuh"

namespace hashlab::ega::experiments {

struct MpInput {
  PinnedBuffer<std::uint32_t> keys, values;             // the input, in pinned host memory
  std::vector<std::uint32_t> host_keys, host_values;    // the same, for the CPU baseline
  reference::GroupByResult expected;
};

/// The input of a point: n rows of `spec` (1M uniform groups by default), generated on the device
/// and kept in pinned host memory, with the oracle's groups; built once per (n, spec).
MpInput& mp_input(PointContext& ctx, std::uint64_t n, const gen::KeySpec& spec = gen::KeySpec::uniform(kMpGroups));

/// The budget of a point: --gpu-mem-budget when given, else the data's bytes / budget_ratio.
std::size_t budget_of(const PointContext& ctx, double ratio);

// Times MP-EGA under `config` (host clock: the transfers are part of the algorithm) and verifies.
void time_mp(PointContext& ctx, MpInput& in, MpEgaConfig config);

MpEgaConfig mp_config(const PointContext& ctx, double ratio);

constexpr double kAblationRatio = 8;  // ablations: budget = data / 8 (the issue's bar)
std::uint64_t mp_ablation_n(const RunOptions& o);  // the ablations' rows

// The CPU baseline: the multi-threaded CPU group-by of common/ (one thread per core) on the input.
void time_cpu_baseline(PointContext& ctx, MpInput& in);

// MP-EGA vs the CPU over the number of groups (the tiles' pre-aggregation shrinks the
// partitions when the groups are few).
void run_mp_against_cpu(PointContext& ctx, MpInput& in);

}  // namespace hashlab::ega::experiments
