// Section 3, GPU sampling (the report's predictTableLength_GPU kernel): cuRAND triples of rows,
// counting equal key pairs; cardinality.hpp derives N from the count.
#include <curand_kernel.h>

#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/launch.cuh"
#include "hashlab/common/reduce.cuh"
#include "sampling.hpp"
#include "table.cuh"

namespace hashlab::rapids {
namespace {

__device__ __forceinline__ bool rows_equal(const std::uint32_t* keys, int key_columns, std::size_t rows,
                                           std::uint32_t a, std::uint32_t b) {
  for (int c = 0; c < key_columns; ++c)
    if (keys[c * rows + a] != keys[c * rows + b]) return false;
  return true;
}

// Section 3: "The GPU sampling uses three step sampling ... Using cuRAND library, 1% of sampling
// is done". Each thread draws its triples from its own Philox subsequence (its grid index); equal
// pairs are summed per warp, then one atomic per warp.
__global__ void predict_table_length_gpu(const std::uint32_t* __restrict__ keys, int key_columns, std::size_t rows,
                                         std::uint64_t trials, std::uint64_t seed,
                                         unsigned long long* equal_pairs) {
  curandStatePhilox4_32_10_t state;
  curand_init(seed, global_thread_index(), 0, &state);
  unsigned long long mine = 0;
  for (const std::uint64_t t : grid_stride(trials)) {
    const uint4 w = curand4(&state);
    std::uint32_t a = 0, b = 0, c = 0;
    detail::distinct_triple(w.x, w.y, w.z, static_cast<std::uint32_t>(rows), a, b, c);
    mine += rows_equal(keys, key_columns, rows, a, b) + rows_equal(keys, key_columns, rows, a, c) +
            rows_equal(keys, key_columns, rows, b, c);
  }
  atomic_add_warp_sum(equal_pairs, mine);
}

}  // namespace

SampleCounts sample_triples_gpu(const std::uint32_t* keys, int key_columns, std::size_t rows, std::uint64_t trials,
                                std::uint64_t seed, cudaStream_t stream) {
  SampleCounts counts;
  if (rows < 3 || trials == 0) return counts;
  if (rows > 0xffffffffull)
    throw std::invalid_argument("rapids GPU sampling: " + std::to_string(rows) + " rows exceed 32-bit row numbers");
  DeviceBuffer<unsigned long long> equal(1, stream);
  equal.fill_bytes(0, stream);
  // The draws are latency-bound random reads: about 8 triples per thread keeps many in flight.
  constexpr std::uint64_t kTriplesPerThread = 8;
  const unsigned grid = grid_for(div_up<std::uint64_t>(trials, kTriplesPerThread), kDefaultBlock, 4096);
  predict_table_length_gpu<<<grid, kDefaultBlock, 0, stream>>>(keys, key_columns, rows, trials, seed, equal.data());
  HASHLAB_CHECK_LAUNCH();
  counts.trials = trials;
  counts.equal_pairs = read_device_value(equal.data(), stream);
  return counts;
}

}  // namespace hashlab::rapids
