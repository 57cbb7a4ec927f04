// baselines/groupby: the GPU group-by baselines, 10K groups, sum: the cuDF-style hash group-by
// (a table of 2x the groups) vs CUB's radix sort + reduce-by-key.
#include <string>

#include "experiments.hpp"
#include "hashlab/baselines/groupby.hpp"
#include "hashlab/common/generator.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/reference/cpu_baselines.hpp"
#include "hashlab/reference/groupby.hpp"

namespace hashlab::baseline::experiments {
namespace {

struct GroupByInput {
  DeviceBuffer<std::uint32_t> keys, values;
  reference::GroupByResult expected;
};

void run_groupby(PointContext& ctx) {
  const Point& p = ctx.point();
  auto& in = ctx.cached<GroupByInput>("groupby:" + std::to_string(p.n), [&] {
    ctx.drop_cached("groupby:");
    GroupByInput input;
    input.keys = DeviceBuffer<std::uint32_t>(p.n, ctx.stream());
    input.values = DeviceBuffer<std::uint32_t>(p.n, ctx.stream());
    gen::generate_keys(gen::KeySpec::uniform(kGroups), ctx.seed(), input.keys.data(), p.n, ctx.stream());
    gen::generate_values<std::uint32_t>(ctx.seed(), 0, 1000000, input.values.data(), p.n, ctx.stream());
    input.expected = cpu::parallel_groupby(input.keys.to_host(ctx.stream()), input.values.to_host(ctx.stream()),
                                           Aggregation::kSum);
    return input;
  });
  DeviceGroups out;
  harness::Timing t;
  if (p.variant == "hash") {
    HashGroupBy groupby(2 * kGroups, ctx.stream());
    t = ctx.time_gpu([&](cudaStream_t s) { out = groupby.aggregate(in.keys.data(), in.values.data(), p.n, Aggregation::kSum, s); });
  } else {
    t = ctx.time_gpu([&](cudaStream_t s) { out = sort_groupby(in.keys.data(), in.values.data(), p.n, Aggregation::kSum, s); });
  }
  ctx.report_time("groupby", t, static_cast<double>(p.n), "rows");
  const std::string diff = reference::compare(in.expected, out.to_reference(Aggregation::kSum, ctx.stream()));
  ctx.verify(diff.empty(), diff);
}

}  // namespace

harness::Experiment groupby() {
  return harness::make_experiment(
      "baselines", "groupby", "docs/design.md yardstick",
      "GPU group-by baselines, 10K groups, sum: cuDF-style hash (2x slots) vs CUB sort + reduce-by-key", {"hash", "sort"},
      [](const RunOptions& o, const Variants& v) {
        return harness::sweep(v, o.pick_sizes({1000000, 10000000, 100000000}, {1000000, 10000000, 100000000, 300000000}));
      },
      run_groupby);
}

}  // namespace hashlab::baseline::experiments
