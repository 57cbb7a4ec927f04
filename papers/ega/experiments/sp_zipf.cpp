// SP-EGA vs LPHGA vs sort-based on Zipf keys over n/4 candidates, L = n.
#include <algorithm>

#include "experiments.hpp"
#include "sp_inputs.cuh"

namespace hashlab::ega::experiments {
namespace {

gen::KeySpec zipf_spec(std::uint64_t n, double exponent) {
  return gen::KeySpec::zipf(std::min<std::uint64_t>(std::max<std::uint64_t>(n / 4, 1), gen::kMaxZipfKeys), exponent);
}

void run_sp_zipf(PointContext& ctx) {
  const auto& p = ctx.point();
  run_sp_variant(ctx, sp_input(ctx, zipf_spec(p.n, p.param_value)));
}

}  // namespace

harness::Experiment sp_zipf() {
  return make_experiment(
      "ega", "sp_zipf", "Motivation (skew)",
      "SP-EGA vs LPHGA vs sort-based on Zipf keys: sum, Zipf keys over n/4 candidates, L = n", sp_variants(),
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, {sp_n(o)}, "zipf_exponent",
                     o.full() ? std::vector<double>{0.0, 0.5, 0.8, 1.0, 1.2, 1.5} : std::vector<double>{0.5, 1.0, 1.5});
      },
      run_sp_zipf);
}

}  // namespace hashlab::ega::experiments
