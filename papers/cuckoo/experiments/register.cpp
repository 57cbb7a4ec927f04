// The module's one registrar: its options, its experiments in the order of experiments.hpp, and
// its demo. One registrar for the module, not one per file: static initialisers of different
// files run in link order, which would decide the order of `hashlab list` and of a run.
#include <string>

#include "experiments.hpp"
#include "inputs.cuh"

namespace hashlab::cuckoo::experiments {
namespace {

const harness::Registrar registrar([](harness::Registry& r) {
  r.add_module({"cuckoo", "Alcantara et al., \"Building an Efficient Hash Table on the GPU\""});
  // The CLI checks both options (validate_with) before any experiment is planned.
  r.add_option({"cuckoo", "cuckoo-hash", "cuckoo hash functions: multiply (the chapter's, 32-bit), xor, multiply_exact",
                "multiply", harness::validate_with("cuckoo-hash", hash_option)});
  r.add_option({"cuckoo", "cuckoo-max-attempts", "cuckoo build attempts before giving up", std::to_string(kDefaultMaxAttempts),
                harness::validate_with("cuckoo-max-attempts", max_attempts_option)});

  r.add_experiment(fig4_4_experiment());
  r.add_experiment(failed_queries_experiment());
  r.add_experiment(fig4_5_experiment());
  r.add_experiment(fig4_6_experiment());
  r.add_experiment(fig4_7_experiment());
  r.add_experiment(block_size_experiment());
  r.add_experiment(functions_experiment());
  r.add_experiment(restart_rate_experiment());
  r.add_experiment(min_space_experiment());
  r.add_experiment(hash_family_experiment());
  r.add_experiment(query_order_experiment());
  r.add_experiment(short_circuit_experiment());
  r.add_experiment(bandwidth_share_experiment());
  r.add_experiment(fig4_7_left_experiment());

  r.add_demo(demo());
});

}  // namespace
}  // namespace hashlab::cuckoo::experiments
