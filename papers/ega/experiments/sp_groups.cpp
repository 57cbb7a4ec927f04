// SP-EGA vs LPHGA vs sort-based over the number of groups, L = n (run_sp_groups in sp_inputs.cpp).
#include "experiments.hpp"
#include "sp_inputs.cuh"

namespace hashlab::ega::experiments {

harness::Experiment sp_groups() {
  return make_experiment(
      "ega", "sp_groups", "Abstract (SP-EGA over sort-based)",
      "SP-EGA vs LPHGA vs sort-based by groups: sum, uniform keys, L = n, groups from tens to millions", sp_variants(),
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, {sp_n(o)}, "groups",
                     o.full() ? std::vector<double>{10, 1000, 100000, 1000000, 10000000, 50000000}
                              : std::vector<double>{10, 1000, 100000, 1000000});
      },
      run_sp_groups);
}

}  // namespace hashlab::ega::experiments
