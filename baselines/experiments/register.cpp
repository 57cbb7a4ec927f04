// The one registration of the baselines' experiments, in the order `hashlab list` shows and a run
// follows (one Registrar: static initialisers of several files run in link order).
#include "experiments.hpp"

namespace hashlab::baseline::experiments {
namespace {

const harness::Registrar registrar([](harness::Registry& r) {
  r.add_module({"baselines", "Shared baselines (the yardsticks of docs/design.md)"});
  r.add_experiment(groupby());
  r.add_experiment(tables());
  r.add_experiment(join());
  r.add_experiment(cpu_groupby());
});

}  // namespace
}  // namespace hashlab::baseline::experiments
