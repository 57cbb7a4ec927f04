// The shared single-column comparators (multi-threaded CPU, CUB sort) beside the report's variants.
#include "experiments.hpp"
#include "hashlab/baselines/groupby.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/reference/cpu_baselines.hpp"
#include "inputs.cuh"

namespace hashlab::rapids::experiments {
namespace {

void run_comparators(PointContext& ctx) {
  const Point& p = ctx.point();
  constexpr std::uint64_t kUnique = 10000;
  ReportDataset& d = dataset(ctx, p.n, kUnique, 1, {Aggregation::kSum});
  const double rows = static_cast<double>(p.n);
  if (p.variant == "cpu_parallel") {
    reference::GroupByResult got;
    const auto& keys = d.key_columns_host[0];
    const auto& values = d.value_columns_host[0];
    const auto t = ctx.time_host([&] { got = cpu::parallel_groupby(keys, values, Aggregation::kSum); });
    ctx.report_time("groupby", t, rows, "rows");
    verify_against(ctx, d, got);
  } else if (p.variant == "sort_cub") {
    // common/'s baseline takes uint32 values; [0, 99999] converts exactly.
    DeviceBuffer<std::uint32_t> values(p.n, ctx.stream());
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(values.data(), d.values.data(), values.bytes(), cudaMemcpyDeviceToDevice,
                                       ctx.stream()));
    baseline::DeviceGroups out;
    const auto t = ctx.time_gpu(
        [&](cudaStream_t s) { out = baseline::sort_groupby(d.keys.data(), values.data(), p.n, Aggregation::kSum, s); });
    ctx.report_time("groupby", t, rows, "rows");
    verify_against(ctx, d, out.to_reference(Aggregation::kSum, ctx.stream()));
  } else {
    run_variant(ctx, d, p.variant, kUnique, /*with_copies=*/false);
  }
}

}  // namespace

harness::Experiment comparators_1col() {
  return make_experiment(
      "rapids_groupby", "comparators_1col", "comparators",
      "the shared CPU and GPU baselines: 1 key / 1 value column (sum), 10K keys",
      {"hash_gpu_sampling", "sort_thrust", "sort_cub", "cpu_stl", "cpu_parallel"},
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, o.pick_sizes({1000000, 10000000}, {1000000, 10000000, 100000000}));
      },
      run_comparators);
}

}  // namespace hashlab::rapids::experiments
