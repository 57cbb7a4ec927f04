// Figs. 3-4: the times of MP-EGA's phases (partition generating, CPU merge, processing after the
// merge) at budgets of data / 2 and data / 8.
#include "experiments.hpp"
#include "mp_inputs.cuh"

namespace hashlab::ega::experiments {
namespace {

void run_mp_breakdown(PointContext& ctx) { time_mp(ctx, mp_input(ctx, ctx.point().n), mp_config(ctx, ctx.point().param_value)); }

}  // namespace

harness::Experiment mp_breakdown() {
  return make_experiment(
      "ega", "mp_breakdown", "Figs. 3-4 (MP-EGA's two phases)",
      "time of partition generating, CPU merge, processing after the merge: MP-EGA's phases at budgets of data / 2 "
      "and data / 8, 1M groups", {"mp_ega"},
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, {o.pick_size(50000000, 500000000)}, "budget_ratio", {2, 8});
      },
      run_mp_breakdown);
}

}  // namespace hashlab::ega::experiments
