// The shared baselines as registered experiments (module "baselines"): the yardsticks of
// docs/design.md measured through the same harness as every paper, one file each, and a CPU-only
// experiment so that a machine without a GPU still runs something end to end. register.cpp adds
// them in the order below.
#pragma once

#include <cstdint>

#include "hashlab/harness/experiment.hpp"

namespace hashlab::baseline::experiments {

using harness::Point;
using harness::PointContext;
using harness::RunOptions;
using harness::Variants;

constexpr std::uint64_t kGroups = 10000;  // docs/design.md's group-by yardstick: 100M rows, 10K groups

harness::Experiment groupby();      // GPU hash group-by vs sort group-by
harness::Experiment tables();       // linear probing vs sorted array, build and find
harness::Experiment join();         // GPU hash join count vs the multi-threaded CPU join
harness::Experiment cpu_groupby();  // multi-threaded CPU group-by vs the reference (no GPU needed)

}  // namespace hashlab::baseline::experiments
