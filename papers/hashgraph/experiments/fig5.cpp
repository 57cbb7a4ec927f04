// Fig. 5: V2 vs input size.
#include "hashlab/hashgraph/hashgraph.hpp"

#include "experiments.hpp"
#include "inputs.cuh"
#include "operations.cuh"

namespace hashlab::hashgraph::experiments {
namespace {

void run_fig5(PointContext& ctx) {
  const Point& p = ctx.point();
  keep_only_size_and_appearances(ctx, p);
  const Input& in = input(ctx, appearances(p.n, p.param_value), p.n, ctx.seed());
  time_hashgraph_build(ctx, in, p.n, kHashGraphLoad, {Version::kV2, bins_option(ctx.options())});
}

}  // namespace

harness::Experiment fig5_experiment() {
  return make_experiment(
      kPaper, "fig5", "Fig. 5", "V2 build rate vs average appearances for several input sizes", {"v2"},
      [](const RunOptions& o, const Variants& v) {
        return sweep(v,
                     o.pick_sizes({1u << 21, 1u << 23, 1u << 25, 1u << 27},
                                  {1u << 21, 1u << 23, 1u << 25, 1u << 27, 1u << 29}),
                     "multiplicity", multiplicities(o));
      },
      run_fig5);
}

}  // namespace hashlab::hashgraph::experiments
