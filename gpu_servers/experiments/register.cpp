// The module's one registrar: its experiments in the order of experiments.hpp, and its options.
#include "experiments.hpp"
#include "hashlab/gpu_servers/inputs.hpp"

namespace hashlab::gpu_servers {
namespace {

const harness::Registrar registrar([](harness::Registry& r) {
  r.add_module({"gpu_servers", "GPU servers: the Pk-Pk join across GPUs and the MPC model's load bound"});
  r.add_experiment(weak_scaling_experiment());
  r.add_experiment(strong_scaling_experiment());
  r.add_experiment(phases_experiment());
  r.add_experiment(load_experiment());
  r.add_experiment(samples_experiment());
  r.add_experiment(groupby_scaling_experiment());
  r.add_option(servers_backend_option());
  r.add_option(servers_share_gpu_option());
});

}  // namespace
}  // namespace hashlab::gpu_servers
