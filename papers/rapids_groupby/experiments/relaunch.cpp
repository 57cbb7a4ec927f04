// Section 3: a run forced to relaunch many times (tiny initial tables).
#include "experiments.hpp"
#include "inputs.cuh"

namespace hashlab::rapids::experiments {
namespace {

void run_relaunch(PointContext& ctx) {
  const Point& p = ctx.point();
  constexpr std::uint64_t kUnique = 10000;
  ReportDataset& d = dataset(ctx, p.n, kUnique, kKeyColumns, kReportOps);
  GroupByOptions opt;
  opt.sampling = Sampling::kNone;
  opt.table_size = static_cast<std::size_t>(p.param_value);
  HashGroupBy groupby;
  DeviceGroups out;
  const auto t = ctx.time_gpu([&](cudaStream_t s) { out = groupby.aggregate(d.input(), d.ops, opt, s); });
  ctx.report_time("groupby", t, static_cast<double>(p.n), "rows");
  report_stats(ctx, groupby.stats(), d.expected.groups());
  verify_against(ctx, d, out.to_reference(ctx.stream()));
}

}  // namespace

harness::Experiment relaunch() {
  return make_experiment(
      "rapids_groupby", "relaunch", "Section 3 (relaunch)", "relaunches from a small initial table: 1M rows, 10K keys from tiny initial tables, relaunch count and cost",
      {"hash_fixed_start"},
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, {o.pick_size(1000000, 1000000)}, "initial_table_size", {1, 100, 1000, 10000, 26000});
      },
      run_relaunch);
}

}  // namespace hashlab::rapids::experiments
