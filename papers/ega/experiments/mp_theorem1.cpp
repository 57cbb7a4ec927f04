// 4.2.1 (Theorem 1): how often a partition gets k or more groups, with n = the true groups.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "experiments.hpp"
#include "hashlab/ega/partition_plan.hpp"
#include "mp_inputs.cuh"

namespace hashlab::ega::experiments {
namespace {

// Theorem 1 (4.2.1) with the theorem's n, the true number of groups of the MP-EGA experiments,
// and their k (alpha_max L at budget data / 8 on the ablations' rows): in how many of `trials`
// throws of the n groups into Theorem 1's P partitions (MP-EGA's partition hash, one seed per
// trial) does a partition get k or more? The theorem says at most a fraction p. p = 1e-5 (MP-EGA
// runs with 1e-6): 4 / p trials decide a rate of 0 against it (docs/verdicts.md, rule 3).
void run_mp_theorem1(PointContext& ctx) {
  const Point& p = ctx.point();
  const std::uint64_t groups = p.n;
  const double failure_probability = p.param_value;
  const MpEgaConfig defaults;
  const std::size_t budget =
      static_cast<std::size_t>(static_cast<double>(mp_ablation_n(ctx.options())) * 8 / kAblationRatio);
  const std::size_t rows = MpEga::tile_rows_for(budget, defaults.streams);
  const auto k = std::max<std::uint64_t>(2, static_cast<std::uint64_t>(defaults.alpha_max * static_cast<double>(rows)));
  const std::uint64_t partitions = theorem1_partitions(groups, k, failure_probability);
  if (partitions > kMaxSimulatedPartitions)  // at an n far from the experiment's own (--n)
    throw harness::SkipPoint("Theorem 1 gives " + std::to_string(partitions) + " partitions at this n; the simulation's " +
                             "per-thread counters hold " + std::to_string(kMaxSimulatedPartitions));
  const auto trials = static_cast<std::uint32_t>(std::llround(4 / failure_probability));
  const auto largest = theorem1_largest_bins(groups, static_cast<std::uint32_t>(partitions), trials, 0, ctx.stream());
  std::uint64_t overflows = 0;
  std::uint32_t most = 0;
  bool plausible = largest.size() == trials;
  const std::uint64_t at_least = (groups + partitions - 1) / partitions;  // pigeonhole
  for (const std::uint32_t l : largest) {
    overflows += l >= k;
    most = std::max(most, l);
    plausible = plausible && l >= at_least && l <= groups;
  }
  ctx.report_value("trials", trials, "count");
  ctx.report_value("overflow_trials", static_cast<double>(overflows), "count");
  ctx.report_value("partitions", static_cast<double>(partitions), "count");
  ctx.report_value("k", static_cast<double>(k), "groups");
  ctx.report_value("mean_partition", static_cast<double>(groups) / static_cast<double>(partitions), "groups");
  ctx.report_value("largest_partition", most, "groups");
  ctx.report_value("largest_over_k", static_cast<double>(most) / static_cast<double>(k), "fraction");
  // The check: every trial's largest bin within [n / P, n]; 8 trials recomputed on the host.
  std::ostringstream problem;
  if (!plausible) problem << "a trial's largest partition lies outside [" << at_least << ", " << groups << "]";
  for (std::uint32_t t = 0; t < 8 && t < trials && problem.tellp() == 0; ++t) {
    const std::uint32_t host = theorem1_largest_bin_on_host(groups, static_cast<std::uint32_t>(partitions), t);
    if (host != largest[t]) problem << "trial " << t << ": the GPU's largest partition " << largest[t] << ", the host's " << host;
  }
  ctx.verify_sampled(problem.tellp() == 0,
                     "every trial's largest partition within [n / P, n]; 8 trials recomputed on the host",
                     problem.str());
}

}  // namespace

harness::Experiment mp_theorem1() {
  return make_experiment(
      "ega", "mp_theorem1", "4.2.1 (Theorem 1)",
      "how often a partition gets k or more groups, with n = the true groups: n = 1M groups (the MP-EGA "
      "experiments'), k = alpha_max L (budget data / 8, the ablations' rows), P from "
      "Theorem 1 at p = 1e-5; 4 / p throws of the groups into P partitions by MP-EGA's partition hash (a seed per "
      "throw) on the GPU",
      {"balls_into_bins"},
      [](const RunOptions&, const Variants& v) { return sweep(v, {kMpGroups}, "failure_probability", {1e-5}); },
      run_mp_theorem1);
}

}  // namespace hashlab::ega::experiments
