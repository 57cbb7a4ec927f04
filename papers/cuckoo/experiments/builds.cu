// A timed build, single build attempts checked on the device, chain statistics (builds.cuh).
#include "builds.cuh"

#include <cmath>
#include <string>

#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/launch.cuh"

namespace hashlab::cuckoo::experiments {

// Builds `table` from the pairs under time_gpu; counts the attempts of every timed build.
harness::Timing time_build(PointContext& ctx, CuckooHashTable& table, const Pairs& p, std::uint64_t n, int& builds,
                           int& attempts) {
  builds = attempts = 0;
  return ctx.time_gpu([&](cudaStream_t s) {
    table.build(p.keys.data(), p.values.data(), n, s);
    ++builds;
    attempts += table.stats().attempts;
  });
}

// ---- checks on the device, for experiments that build thousands of tables ------------------------

namespace {

// *count += the number of positions where got[i] != expected[i].
__global__ void count_mismatches(const std::uint32_t* got, const std::uint32_t* expected, std::size_t n,
                                 unsigned long long* count) {
  unsigned long long mine = 0;
  for (const std::size_t i : grid_stride(n)) mine += got[i] != expected[i] ? 1 : 0;
  if (mine > 0) atomicAdd(count, mine);
}

}  // namespace

std::size_t DeviceCheck::wrong_lookups(const CuckooHashTable& table, const std::uint32_t* keys,
                                       const std::uint32_t* values, std::size_t n, cudaStream_t stream) {
  if (n == 0) return 0;
  if (found.size() != n) found = DeviceBuffer<std::uint32_t>(n, stream);
  if (count.empty()) count = DeviceBuffer<unsigned long long>(1, stream);
  found.fill_bytes(0xff, stream);  // kNotFound: never an inserted value (values < 0xffffffff)
  count.fill_bytes(0, stream);
  table.find(keys, n, found.data(), stream);
  count_mismatches<<<grid_for(n), kDefaultBlock, 0, stream>>>(found.data(), values, n, count.data());
  HASHLAB_CHECK_LAUNCH();
  return static_cast<std::size_t>(read_device_value(count.data(), stream));
}

// One build attempt (the table's config has max_attempts = 1): true when it built; a built table
// is checked at once by a lookup of every key (wrong answers are added to `wrong`).
bool attempt_and_check(CuckooHashTable& table, const std::uint32_t* keys, const std::uint32_t* values, std::size_t n,
                       DeviceCheck& check, cudaStream_t stream, std::size_t& wrong) {
  try {
    table.build(keys, values, n, stream);
  } catch (const BuildFailure&) {
    return false;
  }
  wrong += check.wrong_lookups(table, keys, values, n, stream);
  return true;
}

// Adds a build's chain-length histogram to a pooled one.
void pool_chains(std::vector<std::uint64_t>& pooled, const std::vector<std::uint64_t>& chains) {
  if (pooled.size() < chains.size()) pooled.resize(chains.size(), 0);
  for (std::size_t l = 0; l < chains.size(); ++l) pooled[l] += chains[l];
}

// Section 4.2's chain statistics of one or more builds, as rows.
void report_chains(PointContext& ctx, const ChainSummary& c) {
  ctx.report_value("chain_median", c.median, "count");
  ctx.report_value("chain_mean", c.mean, "count");
  ctx.report_value("chain_max", c.max, "count");
}

// ---- the long eviction limit, and single attempts: restart rate and the smallest practical table --

// The long eviction limit of min_space's "_long" variants: 500 lg N. The chapter does not say
// which limit it used to find the smallest practical sizes; its code (CUDPP) derives the limit
// from the load factor, which gives ~660 lg N at 1.03N with 4 functions, while 7 lg N is the
// limit it states for 1.25N. Near the minimum size chains of a few thousand evictions occur.
constexpr std::uint32_t kLongIterationsPerLgN = 500;

std::uint32_t long_max_iterations(std::uint64_t n) {
  return default_max_iterations(n) / kIterationsPerLgN * kLongIterationsPerLgN;
}

// Runs `attempts_wanted` single build attempts (max_attempts = 1, fresh constants each) with the
// eviction limit `max_iterations` (0: 7 lg N) and reports how many failed; every successful
// attempt's table is checked by a lookup of all keys against the inserted values (DeviceCheck).
void run_attempts(PointContext& ctx, int functions, double space, int attempts_wanted, std::uint32_t max_iterations) {
  const Point& pt = ctx.point();
  auto& p = pairs(ctx, pt.n);
  CuckooConfig config = config_from(ctx.options(), functions, space);
  config.max_attempts = 1;
  config.max_iterations = max_iterations;
  CuckooHashTable table(config);
  DeviceCheck check;
  int failed = 0, checked = 0;
  std::size_t wrong = 0;
  for (int a = 0; a < attempts_wanted; ++a) {
    if (attempt_and_check(table, p.keys.data(), p.values.data(), pt.n, check, ctx.stream(), wrong)) ++checked;
    else ++failed;
  }
  ctx.report_value("attempts", attempts_wanted, "count");
  ctx.report_value("failed_attempts", failed, "count");
  ctx.report_value("failed_attempt_fraction", static_cast<double>(failed) / attempts_wanted, "fraction");
  ctx.report_value("practical", failed * 2 <= attempts_wanted ? 1 : 0, "bool");
  ctx.report_value("max_iterations", table.stats().max_iterations, "count");
  ctx.report_value("max_iterations_per_lg_n",
                   static_cast<double>(table.stats().max_iterations) / std::ceil(std::log2(static_cast<double>(pt.n))),
                   "count");
  if (checked == 0) ctx.note("no attempt succeeded; the failures were detected (no table to check)");
  ctx.verify(wrong == 0, std::to_string(wrong) + " lookups wrong over " + std::to_string(checked) + " built tables");
}

}  // namespace hashlab::cuckoo::experiments
