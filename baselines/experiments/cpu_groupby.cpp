// baselines/cpu_groupby: the CPU group-by, 10K groups, sum: the multi-threaded radix-partitioned
// group-by vs the single-threaded reference. Needs no GPU, so that a machine without one still
// runs an experiment end to end.
#include <string>

#include "experiments.hpp"
#include "hashlab/common/generator.hpp"
#include "hashlab/reference/cpu_baselines.hpp"
#include "hashlab/reference/groupby.hpp"

namespace hashlab::baseline::experiments {
namespace {
using reference::Aggregation;

void run_cpu_groupby(PointContext& ctx) {
  const Point& p = ctx.point();
  const auto keys = gen::generate_keys_host(gen::KeySpec::uniform(kGroups), ctx.seed(), p.n);
  const auto values = gen::generate_values_host<std::uint32_t>(ctx.seed(), 0, 1000000, p.n);
  reference::GroupByResult got;
  const auto t = p.variant == "parallel"
                     ? ctx.time_host([&] { got = cpu::parallel_groupby(keys, values, Aggregation::kSum); })
                     : ctx.time_host([&] { got = reference::groupby(keys, values, Aggregation::kSum); });
  ctx.report_time("groupby", t, static_cast<double>(p.n), "rows");
  const std::string diff = reference::compare(reference::groupby(keys, values, Aggregation::kSum), got);
  ctx.verify(diff.empty(), diff);
}

}  // namespace

harness::Experiment cpu_groupby() {
  harness::Experiment e = harness::make_experiment(
      "baselines", "cpu_groupby", "CPU baseline",
      "CPU group-by, 10K groups, sum: multi-threaded radix-partitioned vs the single-threaded reference",
      {"parallel", "reference"},
      [](const RunOptions& o, const Variants& v) { return harness::sweep(v, o.pick_sizes({100000, 1000000}, {1000000, 10000000})); },
      run_cpu_groupby);
  e.needs_gpu = false;
  return e;
}

}  // namespace hashlab::baseline::experiments
