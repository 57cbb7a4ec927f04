// 4.2.4: MP-EGA over the number of streams s.
#include "experiments.hpp"
#include "mp_inputs.cuh"

namespace hashlab::ega::experiments {
namespace {

void run_mp_streams(PointContext& ctx) {
  auto config = mp_config(ctx, kAblationRatio);
  config.streams = static_cast<int>(ctx.point().param_value);
  time_mp(ctx, mp_input(ctx, ctx.point().n), config);
}

}  // namespace

harness::Experiment mp_streams() {
  return make_experiment(
      "ega", "mp_streams", "4.2.4 (multi-stream copy hiding)",
      "MP-EGA vs the number of streams s: budget = data / 8, 1M groups, s = 1..8 streams", {"mp_ega"},
      [](const RunOptions& o, const Variants& v) { return sweep(v, {mp_ablation_n(o)}, "streams", {1, 2, 4, 8}); },
      run_mp_streams);
}

}  // namespace hashlab::ega::experiments
