// Sweep: the fraction of S's rows whose key is in R (the report fixes random keys, ~1%).
#include "experiments.hpp"
#include "inputs.cuh"
#include "run_variant.cuh"

namespace hashlab::pkpk::experiments {

harness::Experiment match_rate_experiment() {
  return make_experiment(
      "pkpk_join", "match_rate", "a sweep of ours (the report's random keys match ~1%)",
      "join time vs match rate: the fraction of S's rows whose key is in R", gpu_variants(),
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, {o.pick_size(10000000, 50000000)}, "match_rate", {0.0, 0.01, 0.25, 0.5, 0.75, 1.0});
      },
      [](PointContext& ctx) {
        const std::uint64_t n = ctx.point().n;
        run_variant(ctx, {n, n, domain_for(n, n), ctx.point().param_value});
      });
}

}  // namespace hashlab::pkpk::experiments
