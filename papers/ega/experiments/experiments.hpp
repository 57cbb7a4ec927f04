// EGA's evaluation as registered experiments, one file each (experiments/<name>.cpp), and the demo
// (demo.cpp); register.cpp adds them, and the module's --gpu-mem-budget option, in the order below.
//
// The text we have gives the evaluation's claims, not its figures (ega_experiments.md), so each
// experiment sweeps the axis a claim is about: SP-EGA vs LPHGA vs the sort-based group-by over
// the load factor, the number of groups and Zipf skew, with a per-phase breakdown; MP-EGA vs the
// multi-threaded CPU group-by over data size at budgets of 1/2 .. 1/8 of the data, and its
// ablations (partition count, merge, streams, feedback load, CPU tiles) with a breakdown.
//
// inputs.cuh, sp_inputs.cuh and mp_inputs.cuh hold what several of them share: the inputs with
// their CPU reference answers, the verification, the SP-EGA variants and the timing of MP-EGA.
#pragma once

#include "hashlab/harness/experiment.hpp"

namespace hashlab::ega::experiments {

harness::Experiment sp_load_factor();
harness::Experiment sp_groups();
harness::Experiment sp_zipf();
harness::Experiment sp_breakdown();
harness::Experiment sp_bar();
harness::Experiment mp_vs_cpu();
harness::Experiment mp_groups();
harness::Experiment mp_zipf();
harness::Experiment mp_streams();
harness::Experiment mp_partitions();
harness::Experiment mp_merge();
harness::Experiment mp_merge_copy();
harness::Experiment mp_feedback();
harness::Experiment mp_feedback_rounds();
harness::Experiment mp_theorem1();
harness::Experiment mp_cpu_tiles();
harness::Experiment mp_breakdown();
harness::Demo demo();

}  // namespace hashlab::ega::experiments
