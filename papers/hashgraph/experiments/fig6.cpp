// Fig. 6: probe rate vs load factor.
#include "hashlab/common/generator.hpp"
#include "hashlab/hashgraph/probe.hpp"

#include "experiments.hpp"
#include "inputs.cuh"
#include "operations.cuh"

namespace hashlab::hashgraph::experiments {
namespace {

void run_fig6(PointContext& ctx) {
  const Point& p = ctx.point();
  keep_only_size(ctx, p.n);
  const Input& keys = input(ctx, gen::KeySpec::sequence(), p.n, ctx.seed());  // table and queries alike
  const std::uint64_t expected = expected_join_count(ctx, keys, keys);
  if (p.variant == "linear_probing")
    time_linear_probing_probe(ctx, keys, keys, p.n, p.param_value, expected);
  else
    time_hashgraph_probe(ctx, keys, keys, p.n, p.param_value,
                         p.variant == "probe_new" ? ProbeMethod::kNew : ProbeMethod::kStandard, expected,
                         bins_option(ctx.options()));
}

}  // namespace

harness::Experiment fig6_experiment() {
  return make_experiment(
      kPaper, "fig6", "Fig. 6", "probe rate vs load factor, sequence probed with itself: probe-standard, probe-new, linear probing",
      {"probe_standard", "probe_new", "linear_probing"},
      load_sweep, run_fig6);
}

}  // namespace hashlab::hashgraph::experiments
