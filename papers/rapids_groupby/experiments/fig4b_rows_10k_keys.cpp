// Fig. 4b: time vs rows for 10K unique keys (fig4_rows.cuh).
#include "experiments.hpp"
#include "fig4_rows.cuh"

namespace hashlab::rapids::experiments {

harness::Experiment fig4b_rows_10k_keys() {
  return make_experiment("rapids_groupby", "fig4b_rows_10k_keys", "Fig. 4b",
                         "time vs rows, 10K unique keys, 2 key / 3 value columns", fig4_variants(), fig4_rows_plan,
                         [](PointContext& ctx) { run_fig4(ctx, 10000); });
}

}  // namespace hashlab::rapids::experiments
