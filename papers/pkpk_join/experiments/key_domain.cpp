// Sweep: the key domain, from dense to 2^32 - 1 (the report's key mod 10^8).
#include <algorithm>
#include <cstdint>

#include "hashlab/common/generator.hpp"

#include "experiments.hpp"
#include "inputs.cuh"
#include "run_variant.cuh"

namespace hashlab::pkpk::experiments {

harness::Experiment key_domain_experiment() {
  return make_experiment(
      "pkpk_join", "key_domain", "a sweep of ours (the report's keys lie below 10^8)",
      "join time vs the key domain: from dense (just enough keys) to 2^32 - 1; Crystal's join, whose table takes "
      "one slot per key of R's range, up to its premise's 2^31 - 1 slots",
      key_domain_variants(),
      [](const RunOptions& o, const Variants& v) {
        const std::uint64_t n = o.pick_size(10000000, 50000000);
        // The densest domain holds exactly the keys the tables need (|R| + |S| / 2).
        return sweep(v, {n}, "key_domain",
                     {static_cast<double>(n + n / 2), 4.0 * n, 1e8, 1073741824.0, static_cast<double>(gen::kMaxKeyDomain)});
      },
      [](PointContext& ctx) {
        const std::uint64_t n = ctx.point().n;
        const auto dom = static_cast<std::uint64_t>(ctx.point().param_value);
        run_variant(ctx, {n, n, std::max<std::uint64_t>(dom, n + n / 2), kSweepMatchRate});
      });
}

}  // namespace hashlab::pkpk::experiments
