// Fig. 8: build and probe vs hash range (2N .. N/4).
#include "hashlab/common/generator.hpp"
#include "hashlab/hashgraph/hashgraph.hpp"
#include "hashlab/hashgraph/probe.hpp"

#include "experiments.hpp"
#include "inputs.cuh"
#include "operations.cuh"

namespace hashlab::hashgraph::experiments {
namespace {

void run_fig8(PointContext& ctx) {
  const Point& p = ctx.point();
  keep_only_size(ctx, p.n);
  const Input& keys = input(ctx, gen::KeySpec::sequence(), p.n, ctx.seed());
  ctx.report_value("hash_range", static_cast<double>(hash_range_for(p.n, p.param_value)), "vertices");
  const std::uint32_t bins = bins_option(ctx.options());
  if (p.variant == "build_v2") {
    time_hashgraph_build(ctx, keys, p.n, p.param_value, {Version::kV2, bins});
    return;
  }
  const std::uint64_t expected = expected_join_count(ctx, keys, keys);
  time_hashgraph_probe(ctx, keys, keys, p.n, p.param_value,
                       p.variant == "probe_new" ? ProbeMethod::kNew : ProbeMethod::kStandard, expected, bins);
}

}  // namespace

harness::Experiment fig8_experiment() {
  return make_experiment(
      kPaper, "fig8", "Fig. 8", "V2 build and probe rate vs hash range (load factor 0.5: range 2N .. 4: range N/4)",
      {"build_v2", "probe_standard", "probe_new"},
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, {o.pick_size(kPaperN, kPaperN)}, "load_factor",
                     o.full() ? kLoads : std::vector<double>{0.5, 1.0, 2.0, 4.0});
      },
      run_fig8);
}

}  // namespace hashlab::hashgraph::experiments
