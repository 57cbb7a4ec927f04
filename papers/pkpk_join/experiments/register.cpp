// The module's one registrar: its experiments in the order of experiments.hpp, and its demo.
// One registrar for the module, not one per file: static initialisers of different files run in
// link order, which would decide the order of `hashlab list` and of a run.
#include "experiments.hpp"

namespace hashlab::pkpk::experiments {
namespace {

const harness::Registrar registrar([](harness::Registry& r) {
  r.add_module({"pkpk_join", "Dash, \"Parallel Pk-Pk Join Algorithm Using GPU Servers\""});
  r.add_experiment(profile_experiment());
  r.add_experiment(scaling_experiment());
  r.add_experiment(match_rate_experiment());
  r.add_experiment(key_domain_experiment());
  r.add_experiment(unequal_sizes_experiment());
  r.add_experiment(partitions_experiment());

  r.add_demo(demo());
});

}  // namespace
}  // namespace hashlab::pkpk::experiments
