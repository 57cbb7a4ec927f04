// SP-EGA (EGA section 4.1): five phases on the red, yellow and blue arrays, one kernel (or CUB
// scan) each. The comments name the subsection each kernel implements.
#include "hashlab/ega/sp_ega.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "hashlab/baselines/groupby.hpp"
#include "hashlab/common/dispatch.hpp"
#include "hashlab/common/launch.cuh"
#include "hashlab/common/primitives.hpp"
#include "ega_device.cuh"

namespace hashlab::ega {
namespace detail {

__global__ void clear_table_kernel(std::uint32_t* keys, std::uint64_t* values, std::uint32_t* indicator,
                                   std::size_t n, std::uint64_t identity) {
  for (const std::size_t i : grid_stride(n)) {
    keys[i] = kEmptyKey;
    values[i] = identity;
    if (indicator != nullptr) indicator[i] = 0;
  }
}

void clear_table(std::uint32_t* keys, std::uint64_t* values, std::uint32_t* indicator, std::size_t n,
                 std::uint64_t identity, cudaStream_t stream) {
  if (n == 0) return;
  clear_table_kernel<<<grid_for(n), kDefaultBlock, 0, stream>>>(keys, values, indicator, n, identity);
  HASHLAB_CHECK_LAUNCH();
}

}  // namespace detail

namespace {

using detail::Status;

__global__ void load_red_kernel(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n,
                                Aggregation op, std::uint32_t* red_keys, std::uint64_t* red_values) {
  for (const std::size_t i : grid_stride(n)) {
    red_keys[i] = keys[i];
    red_values[i] = op == Aggregation::kCount ? 1u : values[i];
  }
}

// 4.1.1 Phase 1: no-probe hash into the partial hash table (yellow part 1). A pair whose
// position lies outside part 1 (scenario 1) or whose slot holds another key (scenario 2) is
// left for later: blue[i] = 1. A pair that claims an empty slot (scenario 3), or finds its own
// key there, is aggregated into the slot: blue[i] = 0. The slot's claimant sets the table
// indicator (yellow part 2) to 1. With kCount, `work` counts the lookups and atomics (no probes:
// phase 1 never probes).
template <bool kCount>
__global__ void phase1_no_probe_insert(const std::uint32_t* red_keys, const std::uint64_t* red_values, std::size_t n,
                                       Aggregation op, std::uint32_t* yellow_keys, std::uint64_t* yellow_values,
                                       std::size_t length, std::size_t part1, std::uint32_t* blue,
                                       std::uint32_t* status, unsigned long long* work) {
  std::uint32_t* table_indicator = yellow_keys + part1;
  detail::WorkTally tally;
  detail::for_each_combined_pair(
      red_keys, red_values, n, op,
      [&](std::size_t i, std::uint32_t key, std::uint64_t value, unsigned active, unsigned peers) {
        std::uint32_t unhashed = 1;
        if (detail::is_leader(peers)) {
          if (key == kEmptyKey) {  // rejected: the run throws; the pair goes nowhere
            status[Status::kSentinelSeen] = 1;
            unhashed = 0;
          } else {
            const std::size_t pos = detail::position_of(key, kPhase1Seed, length);
            if (pos < part1) {
              if (kCount) ++tally.accesses;
              std::uint32_t current = yellow_keys[pos];
              if (current == kEmptyKey) {
                if (kCount) ++tally.atomics;
                current = atomicCAS(yellow_keys + pos, kEmptyKey, key);
                if (current == kEmptyKey) table_indicator[pos] = 1;
              }
              if (current == kEmptyKey || current == key) {
                if (kCount) ++tally.atomics;
                detail::combine(yellow_values + pos, op, value);
                unhashed = 0;
              }
            }
          }
        }
        // The leader's outcome holds for its peers (same key, same slot).
        blue[i] = __shfl_sync(active, unhashed, __ffs(static_cast<int>(peers)) - 1);
      });
  if (kCount) tally.flush(work);
}

// 4.1.2 Phase 2: collect the partial hash table's pairs into yellow part 3. After the in-place
// (inclusive) scan of the indicator, slot i's pair goes to L - g1 + scan[i] - 1: phase 2's groups
// end flush with yellow's end, g1 = scan[L1 - 1] of them.
__global__ void phase2_collect_partial_table(std::uint32_t* yellow_keys, std::uint64_t* yellow_values,
                                             std::size_t length, std::size_t part1, std::uint32_t* status) {
  const std::uint32_t* scan = yellow_keys + part1;
  const std::size_t groups = scan[part1 - 1];
  if (global_thread_index() == 0) status[Status::kPartialGroups] = static_cast<std::uint32_t>(groups);
  detail::collect_groups(yellow_keys, yellow_values, part1, scan, length - groups, yellow_keys, yellow_values);
}

// 4.1.3 Phase 3: collect the unhashed pairs of red into the left of yellow. After the in-place
// (inclusive) scan of blue, pair i was unhashed iff scan[i] - scan[i - 1] == 1 (blue[i] was 1);
// it goes to scan[i] - 1.
__global__ void phase3_collect_unhashed(const std::uint32_t* red_keys, const std::uint64_t* red_values,
                                        std::size_t n, const std::uint32_t* blue_scan, std::uint32_t* yellow_keys,
                                        std::uint64_t* yellow_values, std::uint32_t* status) {
  if (global_thread_index() == 0) status[Status::kUnhashedPairs] = blue_scan[n - 1];
  collect_flagged(
      n, blue_scan, 0, [&](std::size_t i) { return blue_scan[i] != (i == 0 ? 0 : blue_scan[i - 1]); },
      [&](std::size_t i, std::size_t to) {
        yellow_keys[to] = red_keys[i];
        yellow_values[to] = red_values[i];
      });
}

// 4.1.4 Phase 4: linear-probe hash aggregation of the u unhashed pairs (yellow[0, u)) into red,
// now the hash table (L slots), with blue as its indicator. With kCount, `work` counts the
// lookups, probe steps and atomics.
template <bool kCount>
__global__ void phase4_linear_probe_aggregate(const std::uint32_t* yellow_keys, const std::uint64_t* yellow_values,
                                              std::size_t n, Aggregation op, std::uint32_t* red_keys,
                                              std::uint64_t* red_values, std::uint32_t* blue, std::size_t length,
                                              std::uint32_t* status, unsigned long long* work) {
  detail::WorkTally tally;
  const std::size_t unhashed = status[Status::kUnhashedPairs];
  detail::for_each_combined_pair(
      yellow_keys, yellow_values, unhashed < n ? unhashed : n, op,
      [&](std::size_t, std::uint32_t key, std::uint64_t value, unsigned, unsigned peers) {
        if (detail::is_leader(peers) &&
            !detail::probe_aggregate<kCount>(red_keys, red_values, blue, length, key, value, op, kPhase4Seed, tally))
          status[Status::kOverflow] = 1;
      });
  if (kCount) tally.flush(work);
}

// 4.1.5 Phase 5: after the in-place (inclusive) scan of blue, collect red's groups next to phase
// 2's: slot i goes to L - g1 - g2 + scan[i] - 1, so that all groups are yellow[L - g1 - g2, L).
__global__ void phase5_collect_probe_table(const std::uint32_t* red_keys, const std::uint64_t* red_values,
                                           const std::uint32_t* blue_scan, std::size_t length,
                                           std::uint32_t* yellow_keys, std::uint64_t* yellow_values,
                                           std::uint32_t* status) {
  const std::size_t probe_groups = blue_scan[length - 1];
  const std::size_t base = length - status[Status::kPartialGroups] - probe_groups;
  if (global_thread_index() == 0) status[Status::kProbeGroups] = static_cast<std::uint32_t>(probe_groups);
  detail::collect_groups(red_keys, red_values, length, blue_scan, base, yellow_keys, yellow_values);
}

}  // namespace

namespace detail {

WorkCounts read_work(const DeviceBuffer<unsigned long long>& work, cudaStream_t stream) {
  const auto words = work.to_host(stream);  // synchronises the stream
  WorkCounts counts;
  counts.table_accesses = words[kTableAccesses];
  counts.probe_steps = words[kProbeSteps];
  counts.atomics = words[kAtomics];
  return counts;
}

void check_length(std::size_t length, const char* who) {
  if (length >= kEmptyKey)
    throw std::invalid_argument(std::string(who) + ": buffers of " + std::to_string(length) +
                                " items; the 32-bit indicator scans allow at most 2^32 - 2");
}

void check_run(std::size_t n, Aggregation op, std::size_t length, const char* who) {
  require_supported(op);
  if (n > length)
    throw std::invalid_argument(std::string(who) + ": " + std::to_string(n) +
                                " pairs do not fit buffers of length L = " + std::to_string(length));
}

}  // namespace detail

bool supports(Aggregation op) { return op != Aggregation::kMean; }

void require_supported(Aggregation op) {
  if (!supports(op))
    throw std::invalid_argument(std::string("EGA computes sum, count, min and max; '") + reference::to_string(op) +
                                "' is not one pass (a mean is a sum and a count: run both)");
}

ThreeBuffers::ThreeBuffers(std::size_t length, cudaStream_t stream)
    : red_keys(length, stream),
      red_values(length, stream),
      yellow_keys(length, stream),
      yellow_values(length, stream),
      blue(length, stream) {}

YellowParts YellowParts::for_length(std::size_t length) {
  YellowParts parts;
  parts.part1 = length / 3;
  parts.part2_begin = parts.part1;
  parts.part3_begin = 2 * parts.part1;
  return parts;
}

void load_red(ThreeBuffers& buffers, const std::uint32_t* keys, const std::uint32_t* values, std::size_t n,
              Aggregation op, cudaStream_t stream) {
  require_supported(op);
  if (n > buffers.length())
    throw std::invalid_argument("EGA: " + std::to_string(n) + " input pairs do not fit buffers of length L = " +
                                std::to_string(buffers.length()));
  if (n == 0) return;
  load_red_kernel<<<grid_for(n), kDefaultBlock, 0, stream>>>(keys, values, n, op, buffers.red_keys.data(),
                                                             buffers.red_values.data());
  HASHLAB_CHECK_LAUNCH();
}

reference::GroupByResult Groups::to_reference(Aggregation op, cudaStream_t stream) const {
  return baseline::groups_to_reference(keys, aggregates, count, op, stream);
}

std::size_t length_for(std::size_t groups, double load_factor) {
  if (!(load_factor > 0.0 && load_factor < 1.0))
    throw std::invalid_argument("EGA: load factor " + std::to_string(load_factor) +
                                " is outside (0, 1) (load factor = groups / L)");
  return static_cast<std::size_t>(std::ceil(static_cast<double>(groups) / load_factor));
}

ThreeBufferGroupBy::ThreeBufferGroupBy(std::size_t length, cudaStream_t stream, const char* name)
    : name_(name), status_(detail::kStatusWords, stream) {
  detail::check_length(length, name);
  buffers_ = ThreeBuffers(length, stream);
}

Groups ThreeBufferGroupBy::run(std::size_t n, Aggregation op, cudaStream_t stream, const PhaseHook& after_phase) {
  detail::check_run(n, op, length(), name_);
  return run_phases(n, op, stream, after_phase, nullptr);
}

Groups ThreeBufferGroupBy::run_counted(std::size_t n, Aggregation op, cudaStream_t stream, WorkCounts& counts) {
  detail::check_run(n, op, length(), name_);
  return detail::counted_run(work_, stream, counts,
                             [&](unsigned long long* work) { return run_phases(n, op, stream, {}, work); });
}

std::vector<std::uint32_t> ThreeBufferGroupBy::finish(cudaStream_t stream, const std::string& table) const {
  auto words = status_.to_host(stream);
  if (words[Status::kSentinelSeen] != 0)
    throw std::invalid_argument(std::string(name_) + ": the input holds the key 0xffffffff, which marks empty slots");
  if (words[Status::kOverflow] != 0)
    throw std::runtime_error(std::string(name_) + ": " + table + " overflowed (" + std::to_string(length()) + " slots)");
  return words;
}

Groups SpEga::run_phases(std::size_t n, Aggregation op, cudaStream_t stream, const PhaseHook& after_phase,
                         unsigned long long* work) {
  const std::size_t length = buffers_.length();
  counts_ = {};
  if (n == 0) return Groups{buffers_.yellow_keys.data() + length, buffers_.yellow_values.data() + length, 0};
  const YellowParts parts = YellowParts::for_length(length);
  auto& b = buffers_;
  std::uint32_t* status = status_.data();
  const std::uint64_t identity = detail::identity_of(op);
  status_.fill_bytes(0, stream);

  // Phase 1: the partial table (part 1) empty, its indicator (part 2) zero, then insert.
  detail::clear_table(b.yellow_keys.data(), b.yellow_values.data(), b.yellow_keys.data() + parts.part2_begin,
                      parts.part1, identity, stream);
  dispatch_bool(work != nullptr, [&](auto counted) {
    phase1_no_probe_insert<decltype(counted)::value><<<grid_for(n), kDefaultBlock, 0, stream>>>(
        b.red_keys.data(), b.red_values.data(), n, op, b.yellow_keys.data(), b.yellow_values.data(), length,
        parts.part1, b.blue.data(), status, work);
  });
  HASHLAB_CHECK_LAUNCH();
  if (after_phase) after_phase(1, stream);

  // Phase 2 (with L < 3 there is no partial table: g1 stays 0).
  if (parts.part1 > 0) {
    std::uint32_t* indicator = b.yellow_keys.data() + parts.part2_begin;
    prim::inclusive_scan(indicator, indicator, parts.part1, stream);
    phase2_collect_partial_table<<<grid_for(parts.part1), kDefaultBlock, 0, stream>>>(
        b.yellow_keys.data(), b.yellow_values.data(), length, parts.part1, status);
    HASHLAB_CHECK_LAUNCH();
  }
  if (after_phase) after_phase(2, stream);

  // Phase 3.
  prim::inclusive_scan(b.blue.data(), b.blue.data(), n, stream);
  phase3_collect_unhashed<<<grid_for(n), kDefaultBlock, 0, stream>>>(
      b.red_keys.data(), b.red_values.data(), n, b.blue.data(), b.yellow_keys.data(), b.yellow_values.data(), status);
  HASHLAB_CHECK_LAUNCH();
  if (after_phase) after_phase(3, stream);

  // Phase 4: red becomes the hash table (all L slots empty), blue its indicator (zero).
  detail::clear_table(b.red_keys.data(), b.red_values.data(), b.blue.data(), length, identity, stream);
  dispatch_bool(work != nullptr, [&](auto counted) {
    phase4_linear_probe_aggregate<decltype(counted)::value><<<grid_for(n), kDefaultBlock, 0, stream>>>(
        b.yellow_keys.data(), b.yellow_values.data(), n, op, b.red_keys.data(), b.red_values.data(), b.blue.data(),
        length, status, work);
  });
  HASHLAB_CHECK_LAUNCH();
  if (after_phase) after_phase(4, stream);

  // Phase 5.
  prim::inclusive_scan(b.blue.data(), b.blue.data(), length, stream);
  phase5_collect_probe_table<<<grid_for(length), kDefaultBlock, 0, stream>>>(
      b.red_keys.data(), b.red_values.data(), b.blue.data(), length, b.yellow_keys.data(), b.yellow_values.data(),
      status);
  HASHLAB_CHECK_LAUNCH();
  if (after_phase) after_phase(5, stream);

  const auto words = finish(stream, "phase 4's table");  // n <= L: an overflow is a broken invariant, not bad input
  counts_.partial_table_groups = words[Status::kPartialGroups];
  counts_.unhashed_pairs = words[Status::kUnhashedPairs];
  counts_.probe_table_groups = words[Status::kProbeGroups];
  const std::size_t groups = counts_.partial_table_groups + counts_.probe_table_groups;
  return Groups{b.yellow_keys.data() + (length - groups), b.yellow_values.data() + (length - groups), groups};
}

}  // namespace hashlab::ega
