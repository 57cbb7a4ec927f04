// Fig. 7: probe rate vs average appearances.
#include "hashlab/hashgraph/probe.hpp"

#include "experiments.hpp"
#include "inputs.cuh"
#include "operations.cuh"

namespace hashlab::hashgraph::experiments {
namespace {

void run_fig7(PointContext& ctx) {
  const Point& p = ctx.point();
  const JoinInputs in = join_inputs(ctx, p);
  if (is_linear_probing(p.variant))
    time_linear_probing_probe(ctx, in.r, in.s, p.n, linear_probing_load(p.variant), in.expected);
  else
    time_hashgraph_probe(ctx, in.r, in.s, p.n, kHashGraphLoad,
                         p.variant == "probe_new" ? ProbeMethod::kNew : ProbeMethod::kStandard, in.expected,
                         bins_option(ctx.options()));
}

}  // namespace

harness::Experiment fig7_experiment() {
  return make_experiment(
      kPaper, "fig7", "Fig. 7", "probe rate vs average appearances (both inputs): probe-standard, probe-new, linear probing 0.5, 0.8",
      {"probe_standard", "probe_new", "linear_probing_0.5", "linear_probing_0.8"},
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, {o.pick_size(kPaperN, kPaperN)}, "multiplicity",
                     o.full() ? kMultiplicities : kQuickProbeMultiplicities);
      },
      run_fig7);
}

}  // namespace hashlab::hashgraph::experiments
