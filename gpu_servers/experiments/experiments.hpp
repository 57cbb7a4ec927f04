// The GPU servers' experiments (`hashlab run gpu_servers`): the Pk-Pk join across GPUs
// (pkpk_join's servers_join on servers/) scaled and taken apart, the MPC model's load bound
// measured, and the group-by across servers (groupby.hpp) against one GPU. One file per experiment; register.cpp adds them in this order.
//
// Every point draws two tables of n rows (the generator's pk-pk tables, or the load experiment's
// sequential and clustered keys), splits them evenly among the servers, and checks the servers'
// rows against the oracle of the whole tables (pkpk::oracle_join). A point that needs more GPUs
// than the host has is skipped with the reason; --servers-share-gpu yes runs it with the servers
// sharing GPUs (labelled shared_gpu in its rows).
#pragma once

#include "hashlab/harness/experiment.hpp"

namespace hashlab::gpu_servers {

harness::Experiment weak_scaling_experiment();
harness::Experiment strong_scaling_experiment();
harness::Experiment phases_experiment();
harness::Experiment load_experiment();
harness::Experiment samples_experiment();
harness::Experiment groupby_scaling_experiment();

}  // namespace hashlab::gpu_servers
