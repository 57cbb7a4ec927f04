// reduce.cuh: warp and block sums equal the host's sums, in 64 bits, and the atomic forms add
// every warp's (block's) total exactly once.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/memory.hpp"
#include "hashlab/common/reduce.cuh"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab {
namespace {

class WarpAndBlockSum : public testing::GpuTest {};

constexpr int kBlock = 256;

__global__ void warp_sums(const unsigned long long* in, unsigned long long* out) {
  const unsigned long long sum = warp_sum(in[global_thread_index()]);
  if (threadIdx.x % 32 == 0) out[global_thread_index() / 32] = sum;
}

__global__ void block_sums(const std::uint32_t* in, std::uint32_t* out) {
  const std::uint32_t sum = block_sum<kBlock>(in[global_thread_index()]);
  if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

__global__ void add_warp_sums(const unsigned long long* in, std::size_t n, unsigned long long* total) {
  unsigned long long mine = 0;
  for (const std::size_t i : grid_stride(n)) mine += in[i];
  atomic_add_warp_sum(total, mine);
}

__global__ void add_block_sums(const unsigned long long* in, std::size_t n, unsigned long long* total) {
  unsigned long long mine = 0;
  for (const std::size_t i : grid_stride(n)) mine += in[i];
  atomic_add_block_sum<kBlock>(total, mine);
}

// Values above 2^32, so a 32-bit sum would be wrong; every 5th one 0, so some warps add nothing.
std::vector<unsigned long long> wide_values(std::size_t n) {
  std::vector<unsigned long long> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = (i % 5 == 0) ? 0 : (std::uint64_t{1} << 33) + i * 2654435761ull;
  return v;
}

TEST_F(WarpAndBlockSum, WarpSumIsEachWarpsSumInLaneZero) {
  testing::LazyStream stream;
  const unsigned blocks = 3;
  const std::size_t n = std::size_t{blocks} * kBlock;
  const auto values = wide_values(n);
  auto d = to_device(values, stream);
  DeviceBuffer<unsigned long long> out(n / 32, stream);
  warp_sums<<<blocks, kBlock, 0, stream>>>(d.data(), out.data());
  HASHLAB_CHECK_LAUNCH();
  const auto got = out.to_host(stream);
  for (std::size_t w = 0; w < n / 32; ++w)
    ASSERT_EQ(got[w], std::accumulate(values.begin() + 32 * w, values.begin() + 32 * (w + 1), 0ull)) << "warp " << w;
}

TEST_F(WarpAndBlockSum, BlockSumIsEachBlocksSumInThreadZero) {
  testing::LazyStream stream;
  const unsigned blocks = 4;
  std::vector<std::uint32_t> values(std::size_t{blocks} * kBlock);
  std::iota(values.begin(), values.end(), 1u);
  auto d = to_device(values, stream);
  DeviceBuffer<std::uint32_t> out(blocks, stream);
  block_sums<<<blocks, kBlock, 0, stream>>>(d.data(), out.data());
  HASHLAB_CHECK_LAUNCH();
  const auto got = out.to_host(stream);
  for (unsigned b = 0; b < blocks; ++b)
    ASSERT_EQ(got[b], std::accumulate(values.begin() + kBlock * b, values.begin() + kBlock * (b + 1), 0u)) << "block " << b;
}

TEST_F(WarpAndBlockSum, AtomicFormsAddUpToTheTotal) {
  testing::LazyStream stream;
  for (const std::size_t n : {0ul, 1ul, 33ul, 100003ul}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto values = wide_values(n);
    auto d = to_device(values, stream);
    DeviceBuffer<unsigned long long> totals(2, stream);
    totals.fill_bytes(0, stream);
    add_warp_sums<<<13, kBlock, 0, stream>>>(d.data(), n, totals.data());
    HASHLAB_CHECK_LAUNCH();
    add_block_sums<<<13, kBlock, 0, stream>>>(d.data(), n, totals.data() + 1);
    HASHLAB_CHECK_LAUNCH();
    const unsigned long long expected = std::accumulate(values.begin(), values.end(), 0ull);
    EXPECT_EQ(totals.to_host(stream), (std::vector<unsigned long long>{expected, expected}));
  }
}

}  // namespace
}  // namespace hashlab
