// The chapter's figures as registered experiments ("hashlab run cuckoo"), and the demo: one file
// per experiment (experiments/<name>.cpp), each returning its harness::Experiment; register.cpp adds
// them in this order, which is the order of `hashlab list cuckoo` and of a run.
//
//   fig4_4          insertion and retrieval rates vs N: cuckoo 1.25N and 1.42N, sorted array
//   failed_queries  10M items, 0..100% of queries absent, 4 and 3 hash functions (section 4.5.1)
//   fig4_5          compacting table vs sorted structure, 10M keys, rising multiplicity
//   fig4_6          multivalue table vs sorted structure, 10M pairs, rising multiplicity
//   fig4_7          construction rate vs space 1.05N..5N beside the cost model of 4.5.3
//   block_size      construction rate vs threads per block (the chapter's choice: 64)
//   functions       build / retrieval / absent retrieval vs number of hash functions (2..5)
//   restart_rate    failed attempts at 32M, 1.25N, 4 functions, 7 lg N: 2000 attempts (5000 full;
//                   chapter: 0.56%)
//   min_space       smallest practical table size for 2..5 functions (chapter: ~2.1, 1.1, 1.03, 1.02 N),
//                   with 7 lg N and with a long limit (500 lg N)
//   hash_family     multiply vs XOR hash functions on random, sequential and voxel keys (4.3.1.1)
//   query_order     retrieval of the same queries in random and in sorted order: cuckoo vs sorted
//                   array (4.5.1, 4.5.4)
//   short_circuit   failed attempts with Listing 4.1's short-circuiting round robin vs the fix, with
//                   the same hash constants, from a few hundred items to 1M (4.3.1.2)
//   bandwidth_share the share of the pin bandwidth the cuckoo build and the radix sort sustain (4.5.3)
//   fig4_7_left     random updates into 512 MB: atomicExch / atomicCAS / non-atomic, 64 and 32 bit, and
//                   atomicExch with 100..3000 arithmetic instructions per update (4.5.3)
#pragma once

#include "hashlab/harness/experiment.hpp"

namespace hashlab::cuckoo::experiments {

harness::Experiment fig4_4_experiment();
harness::Experiment failed_queries_experiment();
harness::Experiment fig4_5_experiment();
harness::Experiment fig4_6_experiment();
harness::Experiment fig4_7_experiment();
harness::Experiment block_size_experiment();
harness::Experiment functions_experiment();
harness::Experiment restart_rate_experiment();
harness::Experiment min_space_experiment();
harness::Experiment hash_family_experiment();
harness::Experiment query_order_experiment();
harness::Experiment short_circuit_experiment();
harness::Experiment bandwidth_share_experiment();
harness::Experiment fig4_7_left_experiment();

/// `hashlab demo cuckoo`: Listing 4.1 traced on a small table (demo.cpp).
harness::Demo demo();

}  // namespace hashlab::cuckoo::experiments
