// Fig. 3: build rate vs average appearances.
#include "hashlab/common/generator.hpp"
#include "hashlab/hashgraph/hashgraph.hpp"

#include "experiments.hpp"
#include "inputs.cuh"
#include "operations.cuh"

namespace hashlab::hashgraph::experiments {
namespace {

void run_fig3(PointContext& ctx) {
  const Point& p = ctx.point();
  keep_only_size_and_appearances(ctx, p);
  const Input& in = input(ctx, appearances(p.n, p.param_value), p.n, ctx.seed());
  if (is_linear_probing(p.variant))
    time_linear_probing_build(ctx, in, p.n, linear_probing_load(p.variant));
  else
    time_hashgraph_build(ctx, in, p.n, kHashGraphLoad,
                         {p.variant == "v1" ? Version::kV1 : Version::kV2, bins_option(ctx.options())});
}

}  // namespace

harness::Experiment fig3_experiment() {
  return make_experiment(
      kPaper, "fig3", "Fig. 3", "build rate vs average appearances per key: V1, V2 (load 1), linear probing at loads 0.5, 0.8",
      {"v1", "v2", "linear_probing_0.5", "linear_probing_0.8"},
      [](const RunOptions& o, const Variants& v) {
        // The full sweep in both profiles: the paper's claims are at 2, 8 and 32 appearances ("1 .. 32+").
        return sweep(v, {o.pick_size(kPaperN, kPaperN)}, "multiplicity", kMultiplicities);
      },
      run_fig3);
}

}  // namespace hashlab::hashgraph::experiments
