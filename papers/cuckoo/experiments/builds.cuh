// Helpers of the experiments that build many tables: a timed build, single build attempts
// checked on the device, and the chain statistics of section 4.2.
#pragma once

#include <cstdint>
#include <vector>

#include "inputs.cuh"

namespace hashlab::cuckoo::experiments {

/// Builds `table` from the pairs under time_gpu; counts the attempts of every timed build.
harness::Timing time_build(PointContext& ctx, CuckooHashTable& table, const Pairs& p, std::uint64_t n, int& builds,
                           int& attempts);

// A lookup of every inserted key, compared on the device with the values inserted with the keys
// (for unique keys the reference answer to key i is value i: the input itself, compared in full).
// About 2 ms for a 32M-pair table instead of ~30 ms through the host, which matters where an
// experiment checks every one of thousands of tables (restart_rate, min_space, hash_family,
// short_circuit).
struct DeviceCheck {
  DeviceBuffer<std::uint32_t> found;
  DeviceBuffer<unsigned long long> count;

  std::size_t wrong_lookups(const CuckooHashTable& table, const std::uint32_t* keys, const std::uint32_t* values,
                            std::size_t n, cudaStream_t stream);
};

/// One build attempt (max_attempts = 1), checked when it built; false when it failed.
bool attempt_and_check(CuckooHashTable& table, const std::uint32_t* keys, const std::uint32_t* values, std::size_t n,
                       DeviceCheck& check, cudaStream_t stream, std::size_t& wrong);
/// Adds a build's chain-length histogram to a pooled one.
void pool_chains(std::vector<std::uint64_t>& pooled, const std::vector<std::uint64_t>& chains);
/// Section 4.2's chain statistics of one or more builds, as rows.
void report_chains(PointContext& ctx, const ChainSummary& c);

/// min_space's long eviction limit, 500 lg N (fig4_7 tries it too).
std::uint32_t long_max_iterations(std::uint64_t n);
/// `attempts_wanted` single build attempts, the failed ones reported, every built table checked.
void run_attempts(PointContext& ctx, int functions, double space, int attempts_wanted, std::uint32_t max_iterations);

}  // namespace hashlab::cuckoo::experiments
