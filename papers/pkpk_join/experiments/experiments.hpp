// The report's measurements as registered experiments (`hashlab run pkpk_join`), the scaling
// its future work asks for, the sweeps the report leaves open, and `hashlab demo pkpk_join`: one
// file per experiment (experiments/<name>.cpp), each returning its harness::Experiment; register.cpp
// adds them in this order, which is the order of `hashlab list pkpk_join` and of a run.
//
// Every point draws its two tables with the shared generator (gen::PkPkSpec) on the device,
// copies them to the host and verifies each variant's rows against the CPU join of the same
// tables (every point; see `input_for` in inputs.cpp for the oracle at the largest sizes).
#pragma once

#include "hashlab/harness/experiment.hpp"

namespace hashlab::pkpk::experiments {

harness::Experiment profile_experiment();
harness::Experiment scaling_experiment();
harness::Experiment match_rate_experiment();
harness::Experiment key_domain_experiment();
harness::Experiment unequal_sizes_experiment();
harness::Experiment partitions_experiment();

/// `hashlab demo pkpk_join`: two tables of eight keys through the report's nine steps (demo.cu).
harness::Demo demo();

}  // namespace hashlab::pkpk::experiments
