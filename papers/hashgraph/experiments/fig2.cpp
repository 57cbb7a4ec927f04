// Fig. 2: build rate vs load factor, sequence input.
#include "hashlab/common/generator.hpp"
#include "hashlab/hashgraph/hashgraph.hpp"

#include "experiments.hpp"
#include "inputs.cuh"
#include "operations.cuh"

namespace hashlab::hashgraph::experiments {
namespace {

void run_fig2(PointContext& ctx) {
  const Point& p = ctx.point();
  keep_only_size(ctx, p.n);
  const Input& in = input(ctx, gen::KeySpec::sequence(), p.n, ctx.seed());
  if (p.variant == "linear_probing")
    time_linear_probing_build(ctx, in, p.n, p.param_value);
  else
    time_hashgraph_build(ctx, in, p.n, p.param_value,
                         {p.variant == "v1" ? Version::kV1 : Version::kV2, bins_option(ctx.options())},
                         /*trace_steps=*/true);
}

}  // namespace

harness::Experiment fig2_experiment() {
  return make_experiment(
      kPaper, "fig2", "Fig. 2",
      "build rate vs load factor, sequence 0..N-1: V1, V2, linear probing (cuDF stand-in); V1's loops and V2's phases "
      "timed one by one, the build's bytes per key (table, scratch, peak)",
      {"v1", "v2", "linear_probing"},
      [](const RunOptions& o, const Variants& v) {
        bins_option(o);  // a bad --hashgraph-bins fails before anything runs
        return load_sweep(o, v);
      },
      run_fig2);
}

}  // namespace hashlab::hashgraph::experiments
