// MP-EGA vs the multi-threaded CPU group-by on Zipf keys.
#include "experiments.hpp"
#include "mp_inputs.cuh"

namespace hashlab::ega::experiments {
namespace {

// Skew: Zipf keys over 1M candidates; a hot key's rows are pre-aggregated in every GPU tile.
void run_mp_zipf(PointContext& ctx) {
  run_mp_against_cpu(ctx, mp_input(ctx, ctx.point().n, gen::KeySpec::zipf(kMpGroups, ctx.point().param_value)));
}

}  // namespace

harness::Experiment mp_zipf() {
  return make_experiment(
      "ega", "mp_zipf", "Abstract (MP-EGA, skewed keys)",
      "MP-EGA vs the CPU group-by on Zipf keys: MP-EGA (budget = data / 8, or --gpu-mem-budget) vs the "
      "multi-threaded CPU group-by, Zipf keys over 1M candidates",
      {"mp_ega", "cpu"},
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, {mp_ablation_n(o)}, "zipf_exponent",
                     o.full() ? std::vector<double>{0.5, 1.0, 1.5} : std::vector<double>{1.0, 1.5});
      },
      run_mp_zipf);
}

}  // namespace hashlab::ega::experiments
