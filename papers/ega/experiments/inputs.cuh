// What the SP-EGA and MP-EGA experiments share: the aggregation, the CPU oracle of their inputs
// and the full verification against it.
#pragma once

#include <cstdint>
#include <vector>

#include "hashlab/ega/sp_ega.hpp"
#include "hashlab/harness/experiment.hpp"
#include "hashlab/reference/groupby.hpp"

namespace hashlab::ega::experiments {

using harness::Point;
using harness::PointContext;
using harness::RunOptions;
using harness::make_experiment;
using harness::sweep;
using harness::Variants;

constexpr Aggregation kOp = Aggregation::kSum;             // the paper's aggregation in the claims
constexpr std::uint64_t kMpGroups = 1000000;               // MP-EGA experiments: 1M groups, uniform
constexpr const char* kBudgetOption = "gpu-mem-budget";
constexpr std::uint64_t kBarRows = 100000000;  // issue 6's bars are on 100M rows

// The oracle: the single-threaded reference, or above cpu::kOracleReferenceRows rows the same
// answer computed by sorting on all cores (reference::sorted_groupby).
reference::GroupByResult oracle(const std::vector<std::uint32_t>& keys, const std::vector<std::uint32_t>& values);
/// Says in the point's note which oracle an input of `rows` rows has (a cached input's points each).
void note_oracle(PointContext& ctx, std::size_t rows);

void verify_groups(PointContext& ctx, const reference::GroupByResult& expected, const reference::GroupByResult& got);


}  // namespace hashlab::ega::experiments
