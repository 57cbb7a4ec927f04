// LPHGA, the hash-based comparator of EGA section 4.1: linear-probing hash group-by on the same
// three buffers as SP-EGA (red: the input, yellow: the table, blue: its indicator).
#include <stdexcept>
#include <string>

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
  // Whole-warp rounds and the same warp-level combine as SP-EGA (so the two differ only in the
  // algorithm).
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  const std::size_t rounds = (n + stride - 1) / stride;
  const std::size_t thread = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  for (std::size_t r = 0; r < rounds; ++r) {
    const std::size_t i = r * stride + thread;
    const unsigned active = __ballot_sync(detail::kFullMask, i < n);
    if (i >= n) continue;
    const std::uint32_t key = red_keys[i];
    std::uint64_t value = red_values[i];
    const unsigned peers = detail::warp_combine(active, key, value, op);
    if (!detail::is_leader(peers)) continue;
    if (key == kEmptyKey) {
      status[Status::kSentinelSeen] = 1;
      continue;
    }
    if (!detail::probe_aggregate<kCount>(yellow_keys, yellow_values, blue, length, key, value, op, kPhase1Seed,
                                         tally))
      status[Status::kOverflow] = 1;
  }
  if (kCount) tally.flush(work);
}

// After the in-place (inclusive) scan of blue, slot i's group goes to red[scan[i] - 1].
__global__ void lphga_collect(const std::uint32_t* yellow_keys, const std::uint64_t* yellow_values,
                              const std::uint32_t* blue_scan, std::size_t length, std::uint32_t* red_keys,
                              std::uint64_t* red_values, std::uint32_t* status) {
  const std::size_t first = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (first == 0) status[Status::kProbeGroups] = blue_scan[length - 1];
  for (std::size_t i = first; i < length; i += std::size_t{gridDim.x} * blockDim.x) {
    const std::uint32_t key = yellow_keys[i];
    if (key == kEmptyKey) continue;
    const std::size_t at = blue_scan[i] - 1;
    red_keys[at] = key;
    red_values[at] = yellow_values[i];
  }
}

}  // namespace

Lphga::Lphga(std::size_t length, cudaStream_t stream) : status_(detail::kStatusWords, stream) {
  if (length >= kEmptyKey)
    throw std::invalid_argument("LPHGA: buffers of " + std::to_string(length) +
                                " items; the 32-bit indicator scan allows at most 2^32 - 2");
  buffers_ = ThreeBuffers(length, stream);
}

Groups Lphga::run(std::size_t n, Aggregation op, cudaStream_t stream, const PhaseHook& after_phase) {
  return run_impl(n, op, stream, after_phase, nullptr);
}

Groups Lphga::run_counted(std::size_t n, Aggregation op, cudaStream_t stream, WorkCounts& counts) {
  if (work_.empty()) work_ = DeviceBuffer<unsigned long long>(detail::kWorkWords, stream);
  work_.fill_bytes(0, stream);
  const Groups groups = run_impl(n, op, stream, {}, work_.data());
  counts = detail::read_work(work_, stream);
  return groups;
}

Groups Lphga::run_impl(std::size_t n, Aggregation op, cudaStream_t stream, const PhaseHook& after_phase,
                       unsigned long long* work) {
  require_supported(op);
  const std::size_t length = buffers_.length();
  if (n > length)
    throw std::invalid_argument("LPHGA: " + std::to_string(n) + " pairs do not fit buffers of length L = " +
                                std::to_string(length));
  if (n == 0) return Groups{buffers_.red_keys.data(), buffers_.red_values.data(), 0};
  auto& b = buffers_;
  std::uint32_t* status = status_.data();
  status_.fill_bytes(0, stream);

  detail::clear_table(b.yellow_keys.data(), b.yellow_values.data(), b.blue.data(), length, detail::identity_of(op),
                      stream);
  if (work != nullptr)
    lphga_hash_aggregate<true><<<grid_for(n), kDefaultBlock, 0, stream>>>(
        b.red_keys.data(), b.red_values.data(), n, op, b.yellow_keys.data(), b.yellow_values.data(), b.blue.data(),
        length, status, work);
  else
    lphga_hash_aggregate<false><<<grid_for(n), kDefaultBlock, 0, stream>>>(
        b.red_keys.data(), b.red_values.data(), n, op, b.yellow_keys.data(), b.yellow_values.data(), b.blue.data(),
        length, status, nullptr);
  HASHLAB_CHECK_LAUNCH();
  if (after_phase) after_phase(1, stream);
  prim::inclusive_scan(b.blue.data(), b.blue.data(), length, stream);
  if (after_phase) after_phase(2, stream);
  lphga_collect<<<grid_for(length), kDefaultBlock, 0, stream>>>(b.yellow_keys.data(), b.yellow_values.data(),
                                                                b.blue.data(), length, b.red_keys.data(),
                                                                b.red_values.data(), status);
  HASHLAB_CHECK_LAUNCH();
  if (after_phase) after_phase(3, stream);

  const auto words = status_.to_host(stream);
  if (words[Status::kSentinelSeen] != 0)
    throw std::invalid_argument("LPHGA: the input holds the key 0xffffffff, which marks empty slots");
  if (words[Status::kOverflow] != 0)
    throw std::runtime_error("LPHGA: the table overflowed (" + std::to_string(length) + " slots)");
  return Groups{b.red_keys.data(), b.red_values.data(), words[Status::kProbeGroups]};
}

}  // namespace hashlab::ega
