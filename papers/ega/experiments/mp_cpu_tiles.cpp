// 4.2.5 (Algorithm 2): CPU tiles on t threads beside the GPU streams.
#include "experiments.hpp"
#include "mp_inputs.cuh"

namespace hashlab::ega::experiments {
namespace {

void run_mp_cpu_tiles(PointContext& ctx) {
  auto config = mp_config(ctx, kAblationRatio);
  config.cpu_tile_threads = static_cast<unsigned>(ctx.point().param_value);
  time_mp(ctx, mp_input(ctx, ctx.point().n), config);
}

}  // namespace

harness::Experiment mp_cpu_tiles() {
  return make_experiment(
      "ega", "mp_cpu_tiles", "4.2.5 (Algorithm 2)",
      "CPU tiles on t threads beside the GPU streams: MP-EGA, budget = data / 8, 1M groups, t = 0 (GPU tiles only) "
      ".. 8 CPU tile threads", {"mp_ega"},
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, {mp_ablation_n(o)}, "cpu_tile_threads",
                     o.full() ? std::vector<double>{0, 2, 4, 8} : std::vector<double>{0, 2, 8});
      },
      run_mp_cpu_tiles);
}

}  // namespace hashlab::ega::experiments
