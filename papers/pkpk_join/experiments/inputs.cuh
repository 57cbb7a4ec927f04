// What the report's measurements and sweeps share: the pair of tables of a point, drawn once
// per run of an experiment with the CPU join of them (the oracle), and the variant lists.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hashlab/common/generator.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/harness/experiment.hpp"
#include "hashlab/pkpk_join/pkpk_join.hpp"

namespace hashlab::pkpk::experiments {

using harness::make_experiment;
using harness::Point;
using harness::PointContext;
using harness::RunOptions;
using harness::sweep;
using harness::Variants;
using Keys = std::vector<std::uint32_t>;

constexpr std::uint64_t kReportRows = 1000000;        // report: data set sizes 10^6 and 10^6
constexpr std::uint64_t kReportKeyDomain = 100000000;  // report: key mod value 10^8
// Two independent tables of 10^6 random keys mod 10^8 share about 10^6 / 10^8 = 1% of keys.
constexpr double kReportMatchRate = 0.01;
constexpr double kSweepMatchRate = 0.5;  // the sweeps' default: half of S finds a partner
// The CPU join is timed up to this many rows per table (it takes seconds beyond).
constexpr std::uint64_t kCpuMaxRowsQuick = 10000000;
constexpr std::uint64_t kCpuMaxRowsFull = 100000000;

/// Sorts joined rows by key (unique in a pk-pk join): an LSD radix sort.
void sort_by_key(std::vector<JoinedRow>& rows);
/// The smallest key domain >= the report's 10^8 that holds the keys `spec` needs, with room.
std::uint64_t domain_for(std::uint64_t r_rows, std::uint64_t s_rows);

// ---- inputs, shared by the variants of one point ---------------------------------------------

struct Input {
  gen::PkPkSpec spec;
  DeviceBuffer<std::uint32_t> r_keys, s_keys, r_values, s_values;
  Keys host_r_keys, host_s_keys, host_r_values, host_s_values;
  std::vector<JoinedRow> expected;  // sorted by key
  std::string oracle;

  TableView r() const { return {r_keys.data(), r_values.data(), spec.r_rows}; }
  TableView s() const { return {s_keys.data(), s_values.data(), spec.s_rows}; }
};

/// The tables of `spec` on the device and the host, and the oracle's rows, cached per spec.
Input& input_for(PointContext& ctx, const gen::PkPkSpec& spec);
/// Checks `got` (sorted by key unless `sort_first`) against the oracle.
void verify_rows(PointContext& ctx, const Input& in, std::vector<JoinedRow> got, bool sort_first);

/// The GPU joins every sweep compares: {"bsp", "sort_join", "hash_join"}.
const Variants& gpu_variants();
/// Every variant of the profile and scaling experiments (inputs.cpp says why each is there).
const Variants& all_variants();
/// The profile's: all_variants() and crystal_dense (Crystal's join on its own driver's data).
const Variants& profile_variants();
/// The key domain sweep's: gpu_variants() and crystal.
const Variants& key_domain_variants();

}  // namespace hashlab::pkpk::experiments
