// Sweep: p, the number of buckets of the BSP join, and the bucket skew.
#include <cstdint>

#include "hashlab/pkpk_join/pkpk_join.hpp"

#include "experiments.hpp"
#include "inputs.cuh"
#include "run_variant.cuh"

namespace hashlab::pkpk::experiments {

harness::Experiment partitions_experiment() {
  return make_experiment(
      "pkpk_join", "partitions", "a sweep of ours (p - 1 splitters, log2(p) samples per block)",
      "BSP join time and bucket skew vs p: the skew is the largest bucket over the mean", {"bsp"},
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, {o.pick_size(10000000, 50000000)}, "partitions", {16, 64, 256, 1024, 4096, 8192});
      },
      [](PointContext& ctx) {
        const std::uint64_t n = ctx.point().n;
        BspOptions options;
        options.partitions = static_cast<std::uint32_t>(ctx.point().param_value);
        run_variant(ctx, {n, n, domain_for(n, n), kSweepMatchRate}, options);
      });
}

}  // namespace hashlab::pkpk::experiments
