// The join across GPU servers with the tables fixed and more GPUs.
#include "experiments.hpp"
#include "hashlab/gpu_servers/inputs.hpp"

namespace hashlab::gpu_servers {

harness::Experiment strong_scaling_experiment() {
  return make_experiment(
      "gpu_servers", "strong_scaling", "the report's GPU servers (MPC model)",
      "strong scaling, tables fixed: join time and input rows/s vs GPUs (p = 1, 2, 4, 8) for two tables of n rows each (match rate 0.5), the "
      "same three joins as weak_scaling",
      servers_variants(),
      [](const RunOptions& o, const Variants& v) {
        // 2^29 rows per table at most: one server's local BSP join sorts at most 2^31 - 1 rows.
        return sweep(v, {o.pick_size(std::uint64_t{1} << 26, std::uint64_t{1} << 29)}, "gpus", {1, 2, 4, 8});
      },
      [](PointContext& ctx) { run_servers_variant(ctx, static_cast<int>(ctx.point().param_value), ctx.point().n); });
}

}  // namespace hashlab::gpu_servers
