// Sweep: unequal table sizes at a fixed |R| + |S| (the report joins equal sizes).
#include <cstdint>

#include "experiments.hpp"
#include "inputs.cuh"
#include "run_variant.cuh"

namespace hashlab::pkpk::experiments {

harness::Experiment unequal_sizes_experiment() {
  return make_experiment(
      "pkpk_join", "unequal_sizes", "a sweep of ours (the report joins equal sizes)",
      "join time vs |S| / |R|: at a fixed |R| + |S| = 2n; half of R's keys find a partner", gpu_variants(),
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, {o.pick_size(10000000, 50000000)}, "size_ratio", {1, 3, 9, 99});
      },
      [](PointContext& ctx) {
        const std::uint64_t total = 2 * ctx.point().n;
        const auto ratio = static_cast<std::uint64_t>(ctx.point().param_value);
        const std::uint64_t r_rows = total / (1 + ratio), s_rows = total - r_rows;
        const double rate = 0.5 * static_cast<double>(r_rows) / static_cast<double>(s_rows);
        run_variant(ctx, {r_rows, s_rows, domain_for(r_rows, s_rows), rate});
      });
}

}  // namespace hashlab::pkpk::experiments
