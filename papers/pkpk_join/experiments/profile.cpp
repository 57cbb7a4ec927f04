// The report's NVPROF statistics table (1M x 1M, key mod 10^8) and the Crystal statistics, per kernel.
#include "experiments.hpp"
#include "inputs.cuh"
#include "run_variant.cuh"

namespace hashlab::pkpk::experiments {

harness::Experiment profile_experiment() {
  return make_experiment(
      "pkpk_join", "profile", "the report's nvprof and Crystal tables (1M x 1M, key mod 10^8)",
      "time per kernel and peak device memory: at the report's size, the BSP join (segmented prefix sum, and atomic "
      "scatter), the sort join (rows carried, and the report's bare keys + hmap1/hmap2), the hash join and "
      "Crystal's join (on the report's data, and on its own driver's dense keys); the pinned host-to-device copy of "
      "both tables; the CPU join",
      profile_variants(), [](const RunOptions& o, const Variants& v) { return sweep(v, {o.pick_size(kReportRows, kReportRows)}); },
      [](PointContext& ctx) {
        const std::uint64_t n = ctx.point().n;
        run_variant(ctx, {n, n, domain_for(n, n), kReportMatchRate}, {}, true);
      });
}

}  // namespace hashlab::pkpk::experiments
