// 4.2.3: MP-EGA with and without Algorithm 1's greedy merge of small partitions.
#include "experiments.hpp"
#include "mp_inputs.cuh"

namespace hashlab::ega::experiments {
namespace {

void run_mp_merge(PointContext& ctx) {
  auto config = mp_config(ctx, kAblationRatio);
  config.merge_small_partitions = ctx.point().variant == "merge_on";
  time_mp(ctx, mp_input(ctx, ctx.point().n), config);
}

}  // namespace

harness::Experiment mp_merge() {
  return make_experiment(
      "ega", "mp_merge", "4.2.3 (Algorithm 1)",
      "greedy merge of small partitions on and off: MP-EGA, budget = data / 8, 1M groups, with and without "
      "Algorithm 1", {"merge_on", "merge_off"},
      [](const RunOptions& o, const Variants& v) { return sweep(v, {mp_ablation_n(o)}); },
      run_mp_merge);
}

}  // namespace hashlab::ega::experiments
