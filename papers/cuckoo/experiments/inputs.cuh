// What several of the chapter's experiments share: the module's options, the inputs (unique
// random pairs, keys of rising multiplicity), each built once per run of an experiment with its
// CPU reference answer, and the check of a lookup against that answer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hashlab/common/memory.hpp"
#include "hashlab/cuckoo/cost_model.hpp"
#include "hashlab/cuckoo/cuckoo_table.hpp"
#include "hashlab/cuckoo/multivalue.hpp"
#include "hashlab/harness/experiment.hpp"
#include "hashlab/harness/probe.hpp"

namespace hashlab::cuckoo::experiments {

using harness::make_experiment;
using harness::Point;
using harness::PointContext;
using harness::RunOptions;
using harness::sweep;
using harness::Variants;

constexpr std::uint64_t k16K = 1u << 14, k1M = 1u << 20, k32M = 1u << 25;
constexpr std::uint64_t k10M = 10000000;

// ---- options ------------------------------------------------------------------------------------

/// --cuckoo-max-attempts and --cuckoo-hash; throw std::invalid_argument naming the option.
int max_attempts_option(const RunOptions& o);
HashKind hash_option(const RunOptions& o);
/// The multiplicities of Figs. 4.5 and 4.6 (repeats of each key).
std::vector<double> multiplicities(const RunOptions& o);
/// A table's configuration from the options: `functions` hash functions, `space` x N slots.
CuckooConfig config_from(const RunOptions& o, int functions, double space);
/// This GPU's measured limits, which the runner found once for the run (the experiment says
/// needs_limits: device.json in --out, else the probe).
const harness::DeviceLimits& device_limits(PointContext& ctx);
/// Section 4.5.3's cost model with this GPU's measured access times.
CostModel model_of(PointContext& ctx);

// ---- inputs: n unique random keys with values, and n keys absent from them ---------------------

struct Pairs {
  DeviceBuffer<std::uint32_t> keys, values, absent;
  std::vector<std::uint32_t> host_values;
  PinnedBuffer<std::uint32_t> readback;  // lookup results come back here (allocated on first use)
};

/// n unique random keys with their values (and n keys absent from them), cached per n.
Pairs& pairs(PointContext& ctx, std::uint64_t n, bool with_absent = false);
/// How many of `found` differ from `expected`, read back through `readback`.
std::size_t count_wrong(PointContext& ctx, const DeviceBuffer<std::uint32_t>& found,
                        const std::vector<std::uint32_t>& expected, PinnedBuffer<std::uint32_t>& readback);
std::size_t count_wrong_lookups(PointContext& ctx, const DeviceBuffer<std::uint32_t>& found, Pairs& p);
/// Verifies a lookup of every inserted key against the values inserted with them.
void verify_all_found(PointContext& ctx, const DeviceBuffer<std::uint32_t>& found, Pairs& p);

// ---- Figs. 4.5 and 4.6: compacting and multivalue tables vs sorted structures --------------------------

struct MultiInput {
  DeviceBuffer<std::uint32_t> keys, values;
  std::vector<std::uint32_t> host_keys;
  std::uint64_t distinct = 0;
  // The CPU reference for the multivalue structures: the pairs stably sorted by key (what
  // Algorithm 1's radix sort gives: each key's values contiguous, in input order).
  std::vector<std::uint32_t> sorted_values;
  std::vector<KeyInfo> expected;  // per input row: its key's (offset, count) in sorted_values
};

/// The point's keys of multiplicity param_value (and, `with_reference`, their CPU reference).
MultiInput& multi_input(PointContext& ctx, bool with_reference);

}  // namespace hashlab::cuckoo::experiments
