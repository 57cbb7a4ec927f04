// Fig. 4: V2 vs bin count.
#include <cstdint>
#include <string>
#include <vector>

#include "hashlab/hashgraph/hashgraph.hpp"

#include "experiments.hpp"
#include "inputs.cuh"
#include "operations.cuh"

namespace hashlab::hashgraph::experiments {
namespace {

const std::vector<std::uint32_t> kBins = {1u << 10, 1u << 11, 1u << 12, 1u << 13, 1u << 14, 1u << 15,
                                          1u << 16, 1u << 17, 1u << 18, 1u << 20};
// The quick sweep keeps both neighbours of the paper's best counts (16K, 32K): 8K and 64K.
const std::vector<std::uint32_t> kQuickBins = {1u << 10, 1u << 12, 1u << 13, 1u << 14,
                                               1u << 15, 1u << 16, 1u << 17, 1u << 20};

std::string bins_variant(std::uint32_t bins) { return "bins_" + std::to_string(bins); }

void run_fig4(PointContext& ctx) {
  const Point& p = ctx.point();
  keep_only_size_and_appearances(ctx, p);
  const auto bins = static_cast<std::uint32_t>(std::stoul(p.variant.substr(5)));
  const Input& in = input(ctx, appearances(p.n, p.param_value), p.n, ctx.seed());
  time_hashgraph_build(ctx, in, p.n, kHashGraphLoad, {Version::kV2, bins});
}

}  // namespace

harness::Experiment fig4_experiment() {
  return make_experiment(
      kPaper, "fig4", "Fig. 4", "V2 build rate vs average appearances by bin count: one line per bin count, inputs 2M, 8M, 32M", {},
      [](const RunOptions& o) {
        std::vector<std::string> variants;
        for (auto b : o.full() ? kBins : kQuickBins) variants.push_back(bins_variant(b));
        return sweep(variants, o.pick_sizes({1u << 21, 1u << 23, 1u << 25}, {1u << 21, 1u << 23, 1u << 25}), "multiplicity",
                     o.full() ? kMultiplicities : std::vector<double>{1, 4, 32});
      },
      run_fig4);
}

}  // namespace hashlab::hashgraph::experiments
