// 4.2.2: the feedback load's rounds of at least alpha_min L pairs vs loading only the free slots.
#include <algorithm>
#include <cmath>

#include "experiments.hpp"
#include "mp_inputs.cuh"

namespace hashlab::ega::experiments {
namespace {

// 4.2.2's two ways to load a partition larger than a stream's buffers, where it matters: partitions
// of about 0.9 L groups, more than the alpha_max L = 0.8 L at which the feedback load calls the
// table full and fewer than L, so that loading only the free slots lets the rounds shrink to about
// 0.1 L pairs. 16 fixed partitions; the groups follow L, which follows the budget.
constexpr std::size_t kFeedbackRoundPartitions = 16;
constexpr double kGroupsPerPartitionOverL = 0.9;

void run_mp_feedback_rounds(PointContext& ctx) {
  auto config = mp_config(ctx, kAblationRatio);
  config.fixed_partitions = kFeedbackRoundPartitions;
  config.oversize = ctx.point().variant == "alpha_load" ? OversizeMode::kFeedbackLoad : OversizeMode::kFreeSpaceLoad;
  const std::size_t rows = MpEga::tile_rows_for(config.gpu_memory_budget, config.streams);
  const auto groups = std::max<std::uint64_t>(
      1, std::llround(kGroupsPerPartitionOverL * static_cast<double>(kFeedbackRoundPartitions * rows)));
  ctx.report_value("groups", static_cast<double>(groups), "count");
  time_mp(ctx, mp_input(ctx, ctx.point().n, gen::KeySpec::uniform(groups)), config);
}

}  // namespace

harness::Experiment mp_feedback_rounds() {
  return make_experiment(
      "ega", "mp_feedback_rounds",
      "4.2.2 (alpha_min / alpha_max)",
      "rounds of at least alpha_min L pairs vs loading only the free slots: MP-EGA, budget = data / 8, 16 fixed "
      "partitions of about 0.9 L groups each; the feedback load (alpha_min = 0.2, alpha_max = 0.8) vs the "
      "free-space load (each round as many pairs as the table has free slots)",
      {"alpha_load", "free_space_load"},
      [](const RunOptions& o, const Variants& v) { return sweep(v, {mp_ablation_n(o)}); },
      run_mp_feedback_rounds);
}

}  // namespace hashlab::ega::experiments
