// Fig. 2: 100K rows, 2 key columns, 10 unique keys, ops {sum, sum, min}, CPU results printed
// beside GPU results, as the report printed them.
#include <algorithm>
#include <iostream>

#include "experiments.hpp"
#include "inputs.cuh"

namespace hashlab::rapids::experiments {
namespace {

void print_groups(const char* title, const reference::GroupByResult& r, std::size_t limit) {
  std::cout << title << "\n";
  for (std::size_t g = 0; g < std::min(r.groups(), limit); ++g) {
    std::cout << "{";
    for (std::size_t c = 0; c < r.keys.size(); ++c) std::cout << (c ? ":" : "") << r.keys[c][g];
    std::cout << "}:{";
    for (std::size_t v = 0; v < r.aggregates.size(); ++v) {
      const auto& a = r.aggregates[v];
      std::cout << (v ? ":" : "");
      if (a.is_exact()) std::cout << a.exact[g];
      else std::cout << a.real[g];
    }
    std::cout << "}\n";
  }
}

void run_fig2(PointContext& ctx) {
  const Point& p = ctx.point();
  constexpr std::uint64_t kUnique = 10;  // section 4
  ReportDataset& d = dataset(ctx, p.n, kUnique, kKeyColumns, kReportOps);
  reference::GroupByResult cpu;
  const auto cpu_time = ctx.time_host([&] { cpu = d.cpu_groupby(); });
  HashGroupBy groupby;
  DeviceGroups out;
  GroupByOptions opt;
  opt.seed = ctx.seed();
  const auto gpu_time = ctx.time_gpu([&](cudaStream_t s) { out = groupby.aggregate(d.input(), d.ops, opt, s); });
  // The GPU's groups in table order, as the report prints them (unsorted).
  const reference::GroupByResult gpu = out.to_reference(ctx.stream(), /*sorted=*/false);
  std::cout << "Operations:rsum rsum rmin\nnumGroups: " << cpu.groups() << "\n";
  print_groups("Printing Results...", cpu, 20);
  std::cout << "End Printing Results\n";
  print_groups("Printing GPU Results...", gpu, 20);
  std::cout << "End GPU Printing Results\n";
  const std::string diff = reference::compare(cpu, gpu);
  std::cout << "CPU time: " << cpu_time.median_ms / 1e3 << " s\nGPU time: " << gpu_time.median_ms / 1e3 << " s\n"
            << (diff.empty() ? "PASSED - CPU data == GPU data" : "FAILED - " + diff) << "\n";
  ctx.report_time("cpu_groupby", cpu_time, static_cast<double>(p.n), "rows");
  ctx.report_time("gpu_groupby", gpu_time, static_cast<double>(p.n), "rows");
  ctx.report_value("groups", static_cast<double>(gpu.groups()), "groups");
  report_stats(ctx, groupby.stats(), d.expected.groups());
  ctx.verify(diff.empty(), diff);
  verify_against(ctx, d, gpu);
  // The report's "GPU time" includes the copies (section 4's run of main_hash.cu).
  time_with_copies(ctx, d, [&](const GroupByInput<std::int32_t>& in, cudaStream_t s) {
    return groupby.aggregate(in, d.ops, opt, s);
  });
}

}  // namespace

harness::Experiment fig2_verification() {
  return make_experiment(
      "rapids_groupby", "fig2_verification", "Fig. 2",
      "verification run: 100K rows, 2 key columns, 10 unique keys, ops {sum, sum, min}, CPU beside GPU",
      {"hash_gpu_sampling"}, [](const RunOptions& o, const Variants& v) { return sweep(v, o.pick_sizes({100000}, {100000})); },
      run_fig2);
}

}  // namespace hashlab::rapids::experiments
