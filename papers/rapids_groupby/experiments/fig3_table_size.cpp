// Fig. 3a/3b: 1M rows, table 1x .. 4x the unique keys and the predicted 2.6x, beside CPU and
// sort-based; probe steps (collisions) per size.
#include <algorithm>

#include "experiments.hpp"
#include "inputs.cuh"

namespace hashlab::rapids::experiments {
namespace {

void run_fig3(PointContext& ctx) {
  const Point& p = ctx.point();
  const auto unique = static_cast<std::uint64_t>(p.param_value);
  ReportDataset& d = dataset(ctx, p.n, unique, kKeyColumns, kReportOps);
  run_variant(ctx, d, p.variant, static_cast<double>(std::min<std::uint64_t>(unique, p.n)), /*with_copies=*/true);
}

}  // namespace

harness::Experiment fig3_table_size() {
  return make_experiment(
      "rapids_groupby", "fig3_table_size", "Fig. 3a/3b",
      "time and collisions vs table size: 1M rows, table 1x..4x the unique keys vs predicted, beside CPU and "
      "sort-based; probe steps per size",
      {"cpu_stl", "sort_thrust", "hash_1x", "hash_1.3x", "hash_2x", "hash_2.6x", "hash_4x", "hash_gpu_sampling"},
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, {o.pick_size(1000000, 1000000)}, "unique_keys", std::vector<double>{100, 1000, 10000, 100000});
      },
      run_fig3);
}

}  // namespace hashlab::rapids::experiments
