// Future Work 3: the joins from 1M x 1M to 100M+ x 100M+ rows per table.
#include <vector>

#include "experiments.hpp"
#include "inputs.cuh"
#include "run_variant.cuh"

namespace hashlab::pkpk::experiments {

harness::Experiment scaling_experiment() {
  return make_experiment(
      "pkpk_join", "scaling", "Future Work 3 (large datasets, 1M x 1M to 100M+ x 100M+)",
      "join time and rate vs rows per table: match rate 0.5; BSP (and atomic scatter) vs full sort (and bare "
      "keys + hmaps) vs hash join vs Crystal's join vs CPU; time per kernel and peak device memory of the GPU "
      "joins and the pinned host-to-device copy of both tables at every size",
      all_variants(),
      [](const RunOptions& o, const Variants& v) {
        // Beyond 100M as memory allows: 200M x 200M needs ~17 GB of the GPU (quick), 500M x 500M
        // ~44 GB (full; 1G x 1G would not fit 80 GB).
        const auto sizes = o.pick_sizes({1000000, 10000000, 100000000, 200000000},
                                        {1000000, 3000000, 10000000, 30000000, 100000000, 200000000, 500000000});
        const std::uint64_t cpu_max = o.full() ? kCpuMaxRowsFull : kCpuMaxRowsQuick;
        std::vector<Point> points;
        for (auto n : sizes)
          for (const auto& variant : v)
            if (variant != "cpu" || n <= cpu_max) points.push_back({variant, n, "", 0});
        return points;
      },
      [](PointContext& ctx) {
        const std::uint64_t n = ctx.point().n;
        // Profiled too: where the time goes at 100M+ (the report profiles 1M only).
        run_variant(ctx, {n, n, domain_for(n, n), kSweepMatchRate}, {}, /*profile=*/true);
      });
}

}  // namespace hashlab::pkpk::experiments
