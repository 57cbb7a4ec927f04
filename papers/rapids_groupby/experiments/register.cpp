// The one registration of the rapids_groupby experiments and demo, in the order `hashlab list`
// shows and a run follows (one Registrar: static initialisers of several files run in link order).
#include "experiments.hpp"

namespace hashlab::rapids::experiments {
namespace {

const harness::Registrar registrar([](harness::Registry& r) {
  r.add_module({"rapids_groupby", "Chen, Cui, Kiran, Patterson, \"Rapids Group-by GPU Hash Based Implementation\""});
  r.add_experiment(fig2_verification());
  r.add_experiment(fig3_table_size());
  r.add_experiment(fig4a_rows_100_keys());
  r.add_experiment(fig4b_rows_10k_keys());
  r.add_experiment(fig5_breakdown());
  r.add_experiment(prediction());
  r.add_experiment(relaunch_rate());
  r.add_experiment(sampler_spread());
  r.add_experiment(hashcode_cost());
  r.add_experiment(relaunch());
  r.add_experiment(comparators_1col());
  r.add_demo(demo());
});

}  // namespace
}  // namespace hashlab::rapids::experiments
