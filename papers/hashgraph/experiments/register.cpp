// The module's one registrar: its option, its experiments in the order of experiments.hpp, and
// its demo. One registrar for the module, not one per file: static initialisers of different
// files run in link order, which would decide the order of `hashlab list` and of a run.
#include <string>

#include "experiments.hpp"
#include "hashlab/hashgraph/hashgraph.hpp"
#include "inputs.cuh"

namespace hashlab::hashgraph::experiments {
namespace {

const harness::Registrar registrar([](harness::Registry& r) {
  r.add_module({"hashgraph", "Green et al., \"HashGraph: Scalable Hash Tables Using a Sparse Graph Data Structure\""});
  r.add_option({kPaper, "hashgraph-bins", "HashGraph V2's number of bins (section 3.3; Fig. 4 sweeps its own)",
                std::to_string(kDefaultBins), harness::validate_with("hashgraph-bins", bins_option)});

  r.add_experiment(fig2_experiment());
  r.add_experiment(fig3_experiment());
  r.add_experiment(fig4_experiment());
  r.add_experiment(fig5_experiment());
  r.add_experiment(fig6_experiment());
  r.add_experiment(fig7_experiment());
  r.add_experiment(fig8_experiment());
  r.add_experiment(fig9_experiment());
  r.add_experiment(largest_input_experiment());

  r.add_demo(demo());
});

}  // namespace
}  // namespace hashlab::hashgraph::experiments
