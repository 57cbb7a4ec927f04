// The report's title taken at its word: the join across GPU servers, rows per GPU fixed.
#include "experiments.hpp"
#include "hashlab/gpu_servers/inputs.hpp"

namespace hashlab::gpu_servers {

harness::Experiment weak_scaling_experiment() {
  return make_experiment(
      "gpu_servers", "weak_scaling", "the report's GPU servers (MPC model)",
      "weak scaling, rows per GPU fixed: join time and input rows/s per GPU vs GPUs (p = 1, 2, 4, 8) with n rows per table on every GPU (match rate "
      "0.5): the report's join across servers (sampled splitters, local BSP), the same with a local sort join, the "
      "field's hash-partitioned join; the fullest server's load; points needing more GPUs than the host has are "
      "skipped (--servers-share-gpu yes shares them: not a scaling measurement)",
      servers_variants(),
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, {o.pick_size(std::uint64_t{1} << 24, std::uint64_t{1} << 28)}, "gpus", {1, 2, 4, 8});
      },
      [](PointContext& ctx) {
        const int p = static_cast<int>(ctx.point().param_value);
        run_servers_variant(ctx, p, ctx.point().n * static_cast<std::uint64_t>(p));
      });
}

}  // namespace hashlab::gpu_servers
