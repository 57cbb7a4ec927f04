// 4.2.1: MP-EGA with Theorem 1's partition count vs fixed counts.
#include "experiments.hpp"
#include "mp_inputs.cuh"

namespace hashlab::ega::experiments {
namespace {

// Theorem 1's P from n = the row count (MP-EGA's default: an upper bound of the groups), from n =
// the true group count (the theorem's n), or a fixed P.
void run_mp_partitions(PointContext& ctx) {
  auto config = mp_config(ctx, kAblationRatio);
  if (ctx.point().variant == "fixed") config.fixed_partitions = static_cast<std::size_t>(ctx.point().param_value);
  if (ctx.point().variant == "theorem1_true_groups") config.groups_estimate = kMpGroups;
  time_mp(ctx, mp_input(ctx, ctx.point().n), config);
}

}  // namespace

harness::Experiment mp_partitions() {
  return make_experiment(
      "ega", "mp_partitions", "4.2.1 (Theorem 1)",
      "partition count from Theorem 1 vs fixed counts: MP-EGA, budget = data / 8, 1M groups; Theorem 1's P (n = "
      "the rows, MP-EGA's default; n = the true 1M groups) vs fixed P", {"theorem1", "theorem1_true_groups", "fixed"},
      [](const RunOptions& o) {
        auto points = sweep({"fixed"}, {mp_ablation_n(o)}, "partitions",
                            o.full() ? std::vector<double>{8, 64, 512, 4096} : std::vector<double>{8, 512, 4096});
        points.insert(points.begin(), Point{"theorem1_true_groups", mp_ablation_n(o), "partitions", 0});
        points.insert(points.begin(), Point{"theorem1", mp_ablation_n(o), "partitions", 0});
        return points;
      },
      run_mp_partitions);
}

}  // namespace hashlab::ega::experiments
