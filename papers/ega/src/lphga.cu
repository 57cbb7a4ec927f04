// LPHGA, the hash-based comparator of EGA section 4.1: linear-probing hash group-by on the same
// three buffers as SP-EGA (red: the input, yellow: the table, blue: its indicator).
#include <stdexcept>
#include <string>

#include "hashlab/common/dispatch.hpp"
#include "hashlab/common/launch.cuh"
#include "hashlab/common/primitives.hpp"
#include "hashlab/ega/sp_ega.hpp"
#include "ega_device.cuh"

namespace hashlab::ega {
namespace {

using detail::Status;

// Every pair of red, linear-probe hash aggregated into yellow (L slots); blue marks used slots.
// With kCount, `work` counts the lookups, probe steps and atomics.
template <bool kCount>
__global__ void lphga_hash_aggregate(const std::uint32_t* red_keys, const std::uint64_t* red_values, std::size_t n,
                                     Aggregation op, std::uint32_t* yellow_keys, std::uint64_t* yellow_values,
                                     std::uint32_t* blue, std::size_t length, std::uint32_t* status,
                                     unsigned long long* work) {
  detail::WorkTally tally;
  // The same pair loop and warp-level combine as SP-EGA (so the two differ only in the algorithm).
  detail::for_each_combined_pair(
      red_keys, red_values, n, op,
      [&](std::size_t, std::uint32_t key, std::uint64_t value, unsigned, unsigned peers) {
        if (!detail::is_leader(peers)) return;
        if (key == kEmptyKey) {
          status[Status::kSentinelSeen] = 1;
          return;
        }
        if (!detail::probe_aggregate<kCount>(yellow_keys, yellow_values, blue, length, key, value, op, kPhase1Seed,
                                             tally))
          status[Status::kOverflow] = 1;
      });
  if (kCount) tally.flush(work);
}

// After the in-place (inclusive) scan of blue, slot i's group goes to red[scan[i] - 1].
__global__ void lphga_collect(const std::uint32_t* yellow_keys, const std::uint64_t* yellow_values,
                              const std::uint32_t* blue_scan, std::size_t length, std::uint32_t* red_keys,
                              std::uint64_t* red_values, std::uint32_t* status) {
  if (global_thread_index() == 0) status[Status::kProbeGroups] = blue_scan[length - 1];
  detail::collect_groups(yellow_keys, yellow_values, length, blue_scan, 0, red_keys, red_values);
}

}  // namespace

Groups Lphga::run_phases(std::size_t n, Aggregation op, cudaStream_t stream, const PhaseHook& after_phase,
                         unsigned long long* work) {
  const std::size_t length = buffers_.length();
  if (n == 0) return Groups{buffers_.red_keys.data(), buffers_.red_values.data(), 0};
  auto& b = buffers_;
  std::uint32_t* status = status_.data();
  status_.fill_bytes(0, stream);

  detail::clear_table(b.yellow_keys.data(), b.yellow_values.data(), b.blue.data(), length, detail::identity_of(op),
                      stream);
  dispatch_bool(work != nullptr, [&](auto counted) {
    lphga_hash_aggregate<decltype(counted)::value><<<grid_for(n), kDefaultBlock, 0, stream>>>(
        b.red_keys.data(), b.red_values.data(), n, op, b.yellow_keys.data(), b.yellow_values.data(), b.blue.data(),
        length, status, work);
  });
  HASHLAB_CHECK_LAUNCH();
  if (after_phase) after_phase(1, stream);
  prim::inclusive_scan(b.blue.data(), b.blue.data(), length, stream);
  if (after_phase) after_phase(2, stream);
  lphga_collect<<<grid_for(length), kDefaultBlock, 0, stream>>>(b.yellow_keys.data(), b.yellow_values.data(),
                                                                b.blue.data(), length, b.red_keys.data(),
                                                                b.red_values.data(), status);
  HASHLAB_CHECK_LAUNCH();
  if (after_phase) after_phase(3, stream);

  const auto words = finish(stream, "the table");
  return Groups{b.red_keys.data(), b.red_values.data(), words[Status::kProbeGroups]};
}

}  // namespace hashlab::ega
