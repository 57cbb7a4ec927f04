// Fig. 4.4: build and retrieval rates vs N, cuckoo (1.25N, 1.42N) vs the sorted array.
#include "hashlab/baselines/sorted_array.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/cuckoo/cost_model.hpp"
#include "hashlab/cuckoo/cuckoo_table.hpp"

#include "experiments.hpp"
#include "inputs.cuh"
#include "builds.cuh"

namespace hashlab::cuckoo::experiments {
namespace {

void run_fig4_4(PointContext& ctx) {
  const Point& pt = ctx.point();
  auto& p = pairs(ctx, pt.n);
  DeviceBuffer<std::uint32_t> found(pt.n, ctx.stream());
  found.fill_bytes(0, ctx.stream());
  if (pt.variant == "sorted_array") {
    baseline::SortedArray array;
    const auto build = ctx.time_gpu([&](cudaStream_t s) { array.build(p.keys.data(), p.values.data(), pt.n, s); });
    const auto find = ctx.time_gpu([&](cudaStream_t s) { array.find(p.keys.data(), pt.n, found.data(), s); });
    ctx.report_time("build", build, static_cast<double>(pt.n), "pairs");
    ctx.report_time("retrieve", find, static_cast<double>(pt.n), "queries");
    ctx.report_value("bytes_per_pair", static_cast<double>(array.bytes()) / static_cast<double>(pt.n), "B");
  } else {
    const double space = pt.variant == "cuckoo_1.42N" ? 1.42 : 1.25;
    CuckooHashTable table(config_from(ctx.options(), 4, space));
    int builds = 0, attempts = 0;
    const auto build = time_build(ctx, table, p, pt.n, builds, attempts);
    const auto find = ctx.time_gpu([&](cudaStream_t s) { table.find(p.keys.data(), pt.n, found.data(), s); });
    ctx.report_time("build", build, static_cast<double>(pt.n), "pairs");
    ctx.report_time("retrieve", find, static_cast<double>(pt.n), "queries");
    ctx.report_value("restarts_per_build", static_cast<double>(attempts - builds) / builds, "count");
    ctx.report_value("bytes_per_pair", static_cast<double>(table.bytes()) / static_cast<double>(pt.n), "B");
    const CostModel model = model_of(ctx);
    ctx.report_value("model_build_time", model.construction_ms(static_cast<double>(pt.n), table.table_size()), "ms");
  }
  verify_all_found(ctx, found, p);
}

}  // namespace

harness::Experiment fig4_4_experiment() {
  harness::Experiment e = make_experiment(
      "cuckoo", "fig4_4", "Fig. 4.4", "build and retrieval rates vs N: cuckoo (4 functions) at 1.25N and 1.42N vs sorted array",
      {"cuckoo_1.25N", "cuckoo_1.42N", "sorted_array"},
      [](const RunOptions& o, const Variants& v) {
        std::vector<std::uint64_t> full;
        for (std::uint64_t n = k16K; n <= (std::uint64_t{1} << 27); n *= 2) full.push_back(n);
        return sweep(v, o.pick_sizes({k16K, 1u << 17, k1M, 1u << 22, 1u << 24, k32M, 1u << 26, 1u << 27}, full));
      },
      run_fig4_4);
  e.needs_limits = true;  // the cost model's (or the copy's) rates: the runner finds them once
  return e;
}

}  // namespace hashlab::cuckoo::experiments
