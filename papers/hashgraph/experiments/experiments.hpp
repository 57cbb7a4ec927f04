// HashGraph's figures as registered experiments (section 5), and `hashlab demo hashgraph`: one
// file per experiment (experiments/<name>.cpp), each returning its harness::Experiment; register.cpp
// adds them in this order, which is the order of `hashlab list hashgraph` and of a run.
//
// Inputs follow the paper: the sequence 0..N-1 for the framework comparisons (Fig. 2, 6, 8), and
// for "average appearances" m the keys drawn uniformly from [0, N/m) (Fig. 3, 4, 5, 7, 9: "given
// an input with 32M keys and an average of four appearances, the keys are generated from numbers
// in the range of [0, 8M)"). The comparators: the linear-probing table of common/ (the cuDF
// stand-in) and the multi-threaded CPU hash join of common/ (the MC-Hash stand-in).
//
// Verification, every point: a build is checked entry by entry against its input on the host
// (check_against_input, the multimap key -> rows in array form); a linear-probing build by finding
// every key; a probe or join count against reference::inner_join_count on the same inputs. The
// largest-input point (billions of keys) is checked whole on the device against the sequence's
// known answer (check_sequence_table), not copied to the host.
#pragma once

#include "hashlab/harness/experiment.hpp"

namespace hashlab::hashgraph::experiments {

harness::Experiment fig2_experiment();
harness::Experiment fig3_experiment();
harness::Experiment fig4_experiment();
harness::Experiment fig5_experiment();
harness::Experiment fig6_experiment();
harness::Experiment fig7_experiment();
harness::Experiment fig8_experiment();
harness::Experiment fig9_experiment();
harness::Experiment largest_input_experiment();

/// `hashlab demo hashgraph`: ten keys through V1 and V2, then both probes (demo.cpp).
harness::Demo demo();

}  // namespace hashlab::hashgraph::experiments
