// MP-EGA vs the multi-threaded CPU group-by over the number of groups.
#include "experiments.hpp"
#include "mp_inputs.cuh"

namespace hashlab::ega::experiments {
namespace {

void run_mp_groups(PointContext& ctx) {
  run_mp_against_cpu(ctx, mp_input(ctx, ctx.point().n, gen::KeySpec::uniform(static_cast<std::uint64_t>(ctx.point().param_value))));
}

}  // namespace

harness::Experiment mp_groups() {
  return make_experiment(
      "ega", "mp_groups", "Abstract (MP-EGA over the number of groups)",
      "MP-EGA vs the CPU group-by by groups: MP-EGA (budget = data / 8, or --gpu-mem-budget) vs the multi-threaded "
      "CPU group-by, uniform keys, sum",
      {"mp_ega", "cpu"},
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, {mp_ablation_n(o)}, "groups",
                     o.full() ? std::vector<double>{1000, 100000, 1000000, 10000000, 100000000}
                              : std::vector<double>{1000, 100000, 1000000});
      },
      run_mp_groups);
}

}  // namespace hashlab::ega::experiments
