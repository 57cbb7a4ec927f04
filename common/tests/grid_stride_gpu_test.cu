// grid_stride.cuh: every index below n is visited exactly once whatever the grid, indices run
// past 2^32, and grid_stride_rounds gives every thread the same number of rounds.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/launch.cuh"
#include "hashlab/common/memory.hpp"
#include "hashlab/common/reduce.cuh"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab {
namespace {

class GridStride : public testing::GpuTest {};

__global__ void count_visits(std::size_t n, std::uint32_t* visits) {
  for (const std::size_t i : grid_stride(n)) atomicAdd(visits + i, 1u);
}

__global__ void record_thread_index(std::size_t* out) { out[global_thread_index()] = global_thread_index(); }

// Each thread: how many indices it saw, their sum, the largest; summed over the grid.
__global__ void sum_indices(std::size_t n, unsigned long long* count, unsigned long long* sum,
                            unsigned long long* largest) {
  unsigned long long c = 0, s = 0, m = 0;
  for (const std::size_t i : grid_stride(n)) {
    ++c;
    s += i;
    m = i;  // increasing along a thread's loop
  }
  atomic_add_warp_sum(count, c);
  atomic_add_warp_sum(sum, s);
  if (c > 0) atomicMax(largest, m);
}

__global__ void count_rounds(std::size_t n, std::uint32_t* rounds, std::uint32_t* visits) {
  std::uint32_t r = 0;
  for (const std::size_t i : grid_stride_rounds(n)) {
    ++r;
    if (i < n) atomicAdd(visits + i, 1u);
  }
  rounds[global_thread_index()] = r;
}

struct Grid {
  unsigned blocks;
  unsigned threads;
};

TEST_F(GridStride, VisitsEveryIndexOnceForAnyGrid) {
  testing::LazyStream stream;
  for (const std::size_t n : {0ul, 1ul, 31ul, 1000ul, 100003ul}) {
    for (const Grid g : {Grid{1, 32}, Grid{7, 96}, Grid{grid_for(n), kDefaultBlock}, Grid{4096, 1024}}) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", grid " + std::to_string(g.blocks) + " x " +
                   std::to_string(g.threads));
      DeviceBuffer<std::uint32_t> visits(n, stream);
      visits.fill_bytes(0, stream);
      count_visits<<<g.blocks, g.threads, 0, stream>>>(n, visits.data());
      HASHLAB_CHECK_LAUNCH();
      EXPECT_EQ(visits.to_host(stream), std::vector<std::uint32_t>(n, 1u));
    }
  }
}

TEST_F(GridStride, GlobalThreadIndexNumbersTheGridsThreadsInOrder) {
  testing::LazyStream stream;
  const unsigned blocks = 5, threads = 96;
  DeviceBuffer<std::size_t> out(blocks * threads, stream);
  record_thread_index<<<blocks, threads, 0, stream>>>(out.data());
  HASHLAB_CHECK_LAUNCH();
  const auto got = out.to_host(stream);
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], i);
}

// 2^32 + 3 indices from a grid of 2^18 threads: a 32-bit index would wrap (and never end).
TEST_F(GridStride, IndicesPass2To32) {
  testing::LazyStream stream;
  const std::size_t n = (std::size_t{1} << 32) + 3;
  DeviceBuffer<unsigned long long> totals(3, stream);
  totals.fill_bytes(0, stream);
  sum_indices<<<1024, 256, 0, stream>>>(n, totals.data(), totals.data() + 1, totals.data() + 2);
  HASHLAB_CHECK_LAUNCH();
  const auto got = totals.to_host(stream);
  const unsigned long long expected_sum = (n % 2 == 0) ? (n / 2) * (n - 1) : n * ((n - 1) / 2);  // mod 2^64
  EXPECT_EQ(got[0], n);
  EXPECT_EQ(got[1], expected_sum);
  EXPECT_EQ(got[2], n - 1);
}

TEST_F(GridStride, RoundsAreTheSameOnEveryThreadAndVisitEachIndexOnce) {
  testing::LazyStream stream;
  const unsigned blocks = 7, threads = 64;
  const std::size_t grid = std::size_t{blocks} * threads;
  for (const std::size_t n : {0ul, 1ul, grid - 1, grid, grid + 1, 10 * grid + 5}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    DeviceBuffer<std::uint32_t> rounds(grid, stream), visits(n, stream);
    visits.fill_bytes(0, stream);
    count_rounds<<<blocks, threads, 0, stream>>>(n, rounds.data(), visits.data());
    HASHLAB_CHECK_LAUNCH();
    const auto expected_rounds = static_cast<std::uint32_t>((n + grid - 1) / grid);
    EXPECT_EQ(rounds.to_host(stream), std::vector<std::uint32_t>(grid, expected_rounds));
    EXPECT_EQ(visits.to_host(stream), std::vector<std::uint32_t>(n, 1u));
  }
}

}  // namespace
}  // namespace hashlab
