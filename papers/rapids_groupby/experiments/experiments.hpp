// The RAPIDS group-by report's figures as registered experiments, one file each
// (experiments/<name>.cpp), and its demo (demo.cpp); register.cpp adds them in the order below.
//
//   fig2_verification     Fig. 2: 100K rows, 2 key columns, 10 unique keys, ops {sum, sum, min},
//                         CPU results printed beside GPU results
//   fig3_table_size       Fig. 3a/3b: 1M rows, table 1x .. 4x the unique keys and the predicted
//                         2.6x, beside CPU and sort-based; probe steps (collisions) per size
//   fig4a_rows_100_keys   Fig. 4a/4b: time vs rows for 100 and 10K unique keys: CPU, sort-based,
//   fig4b_rows_10k_keys   hash with CPU sampling, hash with GPU sampling
//   fig5_breakdown        Fig. 5: 100M rows (both profiles), 10K keys: H2D copy, prediction,
//                         fillTable, extraction, D2H copy; the whole group-by beside sort-based
//   prediction            section 3: 20 runs at 1M rows for 10 .. 10K keys, predicted vs true
//                         cardinality, relaunches
//   relaunch_rate         section 3's "no relaunch in 20 runs" at the report's 1% sample and at
//                         our floors: 1000 runs at 10K keys (100 at 10 .. 1K), relaunch counts
//   sampler_spread        section 3's "triples spread less than pairs": 200 estimates each from
//                         the same number of pairs and triples (and of row reads), 1M rows
//   relaunch              section 3: a run forced to relaunch many times (tiny initial tables)
//   hashcode_cost         section 3's x * 31 as (x << 5) - x against a multiplication
//   comparators_1col      the shared single-column comparators (multi-threaded CPU, CUB sort)
//
// inputs.cuh holds what several of them share: the datasets, their CPU reference answers, the
// timing with the copies, and the comparison of the report's variants.
#pragma once

#include "hashlab/harness/experiment.hpp"

namespace hashlab::rapids::experiments {

harness::Experiment fig2_verification();
harness::Experiment fig3_table_size();
harness::Experiment fig4a_rows_100_keys();
harness::Experiment fig4b_rows_10k_keys();
harness::Experiment fig5_breakdown();
harness::Experiment prediction();
harness::Experiment relaunch_rate();
harness::Experiment sampler_spread();
harness::Experiment hashcode_cost();
harness::Experiment relaunch();
harness::Experiment comparators_1col();
harness::Demo demo();

}  // namespace hashlab::rapids::experiments
