// Section 4.3.1.1's smallest practical table for 2..5 hash functions.
#include <string>
#include <utility>
#include <vector>

#include "experiments.hpp"
#include "inputs.cuh"
#include "builds.cuh"

namespace hashlab::cuckoo::experiments {
namespace {

// Variants "k2" .. "k5" (7 lg N) and "k2_long" .. "k5_long" (500 lg N).
void run_min_space(PointContext& ctx) {
  const std::string& variant = ctx.point().variant;
  const int functions = variant[1] - '0';
  const bool long_limit = variant.size() > 2;
  run_attempts(ctx, functions, ctx.point().param_value, ctx.options().full() ? 100 : 40,
               long_limit ? long_max_iterations(ctx.point().n) : 0);
}

}  // namespace

harness::Experiment min_space_experiment() {
  return make_experiment(
      "cuckoo", "min_space", "Section 4.3.1.1 (smallest practical table)",
      "failed attempts vs table size: the failed-attempt fraction for 2..5 functions, each over its own range around "
      "the chapter's ~2.1N, 1.1N, 1.03N, 1.02N, with 7 lg N (kK) and 500 lg N (kK_long); practical = at most half "
      "the attempts fail",
      {"k2", "k3", "k4", "k5", "k2_long", "k3_long", "k4_long", "k5_long"},
      [](const RunOptions& o) {
        const std::uint64_t n = o.pick_size(k1M, 1u << 22);
        // Each count of functions gets its own range: from below the chapter's smallest practical
        // size (and the theoretical threshold: 2N, 1.089N, 1.024N, 1.008N) up to a size that
        // 7 lg N builds (1.25N, the chapter's default, for 3..5 functions).
        const std::vector<std::pair<int, std::vector<double>>> grid = {
            {2, {2.0, 2.05, 2.1, 2.2, 2.3, 2.5}},
            {3, {1.08, 1.1, 1.12, 1.15, 1.2, 1.25}},
            {4, {1.02, 1.03, 1.05, 1.1, 1.15, 1.2, 1.25}},
            {5, {1.01, 1.02, 1.03, 1.05, 1.1, 1.15, 1.25}}};
        std::vector<Point> points;
        for (const char* suffix : {"", "_long"})
          for (const auto& [k, factors] : grid)
            for (double f : factors) points.push_back({"k" + std::to_string(k) + suffix, n, "space_factor", f});
        return points;
      },
      run_min_space);
}

}  // namespace hashlab::cuckoo::experiments
