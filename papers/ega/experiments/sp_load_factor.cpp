// SP-EGA vs LPHGA vs sort-based over the load factor (groups = load factor x L, L = n): the
// abstract's 1.16-5.39x over the hash-based group-by above 0.90 and 1.30-2.48x over sort.
#include <algorithm>
#include <cmath>

#include "experiments.hpp"
#include "sp_inputs.cuh"

namespace hashlab::ega::experiments {
namespace {

void run_sp_load_factor(PointContext& ctx) {
  const auto& p = ctx.point();
  const auto groups = std::max<std::uint64_t>(1, std::llround(p.param_value * static_cast<double>(p.n)));
  run_sp_variant(ctx, sp_input(ctx, gen::KeySpec::uniform(groups)));
}

}  // namespace

harness::Experiment sp_load_factor() {
  return make_experiment(
      "ega", "sp_load_factor", "Abstract (load factor above 0.90)",
      "SP-EGA vs LPHGA vs sort-based by load factor: sum, uniform keys, groups = load factor x L, L = n", sp_variants(),
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, {sp_n(o)}, "load_factor",
                     o.full() ? std::vector<double>{0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99}
                              : std::vector<double>{0.5, 0.8, 0.9, 0.99});
      },
      run_sp_load_factor);
}

}  // namespace hashlab::ega::experiments
