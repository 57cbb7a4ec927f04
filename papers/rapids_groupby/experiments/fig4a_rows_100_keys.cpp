// Fig. 4a: time vs rows for 100 unique keys (fig4_rows.cuh).
#include "experiments.hpp"
#include "fig4_rows.cuh"

namespace hashlab::rapids::experiments {

harness::Experiment fig4a_rows_100_keys() {
  return make_experiment("rapids_groupby", "fig4a_rows_100_keys", "Fig. 4a",
                         "time vs rows, 100 unique keys, 2 key / 3 value columns", fig4_variants(), fig4_rows_plan,
                         [](PointContext& ctx) { run_fig4(ctx, 100); });
}

}  // namespace hashlab::rapids::experiments
