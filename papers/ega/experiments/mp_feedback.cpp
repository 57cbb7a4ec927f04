// 4.2.2: oversize partitions by the feedback load vs on the CPU.
#include "experiments.hpp"
#include "mp_inputs.cuh"

namespace hashlab::ega::experiments {
namespace {

// Few partitions (16), so that they exceed a stream's buffers: the feedback load keeps them on
// the GPU (their groups fit), the fallback aggregates them on the CPU (one thread per stream
// worker, std::unordered_map); `cpu` is the multi-threaded CPU baseline on the whole input.
void run_mp_feedback(PointContext& ctx) {
  auto& in = mp_input(ctx, ctx.point().n);
  if (ctx.point().variant == "cpu") return time_cpu_baseline(ctx, in);
  auto config = mp_config(ctx, kAblationRatio);
  config.fixed_partitions = 16;
  config.oversize = ctx.point().variant == "feedback_load" ? OversizeMode::kFeedbackLoad : OversizeMode::kCpu;
  time_mp(ctx, in, config);
}

}  // namespace

harness::Experiment mp_feedback() {
  return make_experiment(
      "ega", "mp_feedback", "4.2.2 (feedback load)",
      "oversize partitions by feedback load vs on the CPU: MP-EGA, budget = data / 8, 1M groups, 16 fixed "
      "partitions (each larger than a stream's buffers), by feedback load or on the CPU; and the multi-threaded CPU "
      "baseline on the whole input",
      {"feedback_load", "cpu_fallback", "cpu"},
      [](const RunOptions& o, const Variants& v) { return sweep(v, {mp_ablation_n(o)}); },
      run_mp_feedback);
}

}  // namespace hashlab::ega::experiments
