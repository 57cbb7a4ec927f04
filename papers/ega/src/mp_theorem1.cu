// Theorem 1 (EGA section 4.2.1) by simulation: throws of n distinct keys into MP-EGA's partitions
// by its own partition hash, on the GPU (one block per trial) and, for checking, on the host.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "hashlab/common/hash.hpp"
#include "hashlab/common/launch.cuh"
#include "hashlab/common/memory.hpp"
#include "mp_ega_detail.hpp"

namespace hashlab::ega {
namespace {

using detail::partition_of;

// Theorem 1 by simulation (4.2.1): block b throws trial first_trial + b's n balls (the keys
// fmix32(i), i < n, all distinct) into `partitions` bins by the partition hash seeded
// kPartitionSeed + trial, and writes its largest bin. Each thread counts into its own column of
// shared memory (counts[bin * blockDim.x + thread]: no atomics, and a warp's 32 lanes hit 32
// banks), then thread b sums bin b.
__global__ void theorem1_trial_largest_bin(std::uint64_t n, std::uint32_t partitions, std::uint32_t first_trial,
                                           std::uint32_t* largest) {
  extern __shared__ std::uint32_t counts[];
  __shared__ std::uint32_t block_largest;
  for (std::uint32_t b = 0; b < partitions; ++b) counts[b * blockDim.x + threadIdx.x] = 0;
  if (threadIdx.x == 0) block_largest = 0;
  const std::uint32_t seed = kPartitionSeed + first_trial + blockIdx.x;
  for (std::uint64_t i = threadIdx.x; i < n; i += blockDim.x) {
    const std::uint32_t key = hash::fmix32(static_cast<std::uint32_t>(i));
    ++counts[partition_of(key, partitions, seed) * blockDim.x + threadIdx.x];
  }
  __syncthreads();
  for (std::uint32_t b = threadIdx.x; b < partitions; b += blockDim.x) {
    std::uint32_t total = 0;
    for (unsigned t = 0; t < blockDim.x; ++t) total += counts[b * blockDim.x + t];
    atomicMax(&block_largest, total);
  }
  __syncthreads();
  if (threadIdx.x == 0) largest[blockIdx.x] = block_largest;
}

void check_simulation(std::uint64_t n, std::uint32_t partitions) {
  if (partitions < 1 || partitions > kMaxSimulatedPartitions)
    throw std::invalid_argument("Theorem 1 simulation: " + std::to_string(partitions) + " partitions; 1 to " +
                                std::to_string(kMaxSimulatedPartitions) + " fit the per-thread counters");
  if (n >= (std::uint64_t{1} << 32))
    throw std::invalid_argument("Theorem 1 simulation: n = " + std::to_string(n) + " balls; the keys are 32-bit");
}

}  // namespace

std::vector<std::uint32_t> theorem1_largest_bins(std::uint64_t n, std::uint32_t partitions, std::uint32_t trials,
                                                 std::uint32_t first_trial, cudaStream_t stream) {
  check_simulation(n, partitions);
  DeviceBuffer<std::uint32_t> largest(trials, stream);
  constexpr std::uint32_t kTrialsPerLaunch = 65536;
  const std::size_t shared = std::size_t{partitions} * kDefaultBlock * sizeof(std::uint32_t);
  for (std::uint32_t done = 0; done < trials; done += std::min(kTrialsPerLaunch, trials - done)) {
    const std::uint32_t blocks = std::min(kTrialsPerLaunch, trials - done);
    theorem1_trial_largest_bin<<<blocks, kDefaultBlock, shared, stream>>>(n, partitions, first_trial + done,
                                                                          largest.data() + done);
    HASHLAB_CHECK_LAUNCH();
  }
  return largest.to_host(stream);
}

std::uint32_t theorem1_largest_bin_on_host(std::uint64_t n, std::uint32_t partitions, std::uint32_t trial) {
  check_simulation(n, partitions);
  std::vector<std::uint32_t> counts(partitions, 0);
  const std::uint32_t seed = kPartitionSeed + trial;
  for (std::uint64_t i = 0; i < n; ++i) ++counts[partition_of(hash::fmix32(static_cast<std::uint32_t>(i)), partitions, seed)];
  return *std::max_element(counts.begin(), counts.end());
}

}  // namespace hashlab::ega
