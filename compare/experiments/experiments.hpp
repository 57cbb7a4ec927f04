// The cross-paper comparisons (compare/): the questions no single paper asks, answered on
// identical inputs from the shared generator, every algorithm run through the catalogue (every
// entry that fits the operation), every point verified against the CPU references. One file per
// experiment; register.cpp adds them, and the module's options, in the order below.
//
//   tables   build and lookup rate vs load factor and vs multiplicity, bytes per key: every table
//            entry (cuckoo 1.25 N and its multivalue table, HashGraph V1 / V2 with probe-standard's
//            count as the lookup, linear probing, the sorted array). The load sweep is HashGraph's
//            Fig. 2 with the cuckoo table as the cuDPP stand-in.
//   groupby  every group-by entry, one value column, sum, over the number of groups (10 .. every
//            key distinct) and over Zipf skew.
//   joins    every join entry on Pk-Pk tables, over the table size and the match rate.
//   tpch     every group-by and join on TPC-H's lineitem and orders (tpch.cpp).
//
// Each input (and its CPU reference) is built once and shared by the variants of its points
// (ctx.cached); a new input drops the previous one.
#pragma once

#include <string>
#include <vector>

#include "hashlab/catalogue/column.hpp"
#include "hashlab/harness/experiment.hpp"

namespace hashlab::compare::experiments {

constexpr const char* kPaper = "compare";

harness::Experiment tables();
harness::Experiment groupby();
harness::Experiment joins();
harness::Experiment tpch();
/// The module's options: the tables' keys, TPC-H's folder and scale factor.
harness::ModuleOption tables_keys_option();
std::vector<harness::ModuleOption> tpch_options();

/// Reports a catalogue run's statistics as rows (their units the entry's), but the names in
/// `except` (the experiment reports those itself), and its warnings as notes.
void report_statistics(harness::PointContext& ctx, const catalogue::Statistics& statistics,
                       const std::vector<std::string>& warnings, const std::vector<std::string>& except);

}  // namespace hashlab::compare::experiments
