// search.hpp on the device: lower_bound and upper_bound in global memory (64-bit index) and in
// shared memory (32-bit index) agree with std:: (host runs: search_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/generator.hpp"
#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/memory.hpp"
#include "hashlab/common/search.hpp"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab {
namespace {

class DeviceSearch : public testing::GpuTest {};

constexpr unsigned kSharedItems = 1000;

__global__ void bounds_in_global(const std::uint32_t* sorted, std::size_t n, const std::uint32_t* queries,
                                 std::size_t m, std::uint32_t* lower, std::uint32_t* upper) {
  for (const std::size_t i : grid_stride(m)) {
    lower[i] = static_cast<std::uint32_t>(lower_bound(sorted, n, queries[i]));
    upper[i] = static_cast<std::uint32_t>(upper_bound(sorted, n, queries[i]));
  }
}

__global__ void bounds_in_shared(const std::uint32_t* sorted, unsigned n, const std::uint32_t* queries,
                                 std::size_t m, std::uint32_t* lower, std::uint32_t* upper) {
  __shared__ std::uint32_t staged[kSharedItems];
  for (unsigned j = threadIdx.x; j < n; j += blockDim.x) staged[j] = sorted[j];
  __syncthreads();
  for (const std::size_t i : grid_stride(m)) {
    lower[i] = lower_bound(staged, n, queries[i]);
    upper[i] = upper_bound(staged, n, queries[i]);
  }
}

TEST_F(DeviceSearch, LowerAndUpperBoundMatchStdInGlobalAndSharedMemory) {
  testing::LazyStream stream;
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  for (const std::size_t n : {0ul, 1ul, 37ul, std::size_t{kSharedItems}}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    auto sorted = gen::generate_keys_host(gen::KeySpec::uniform(std::max<std::size_t>(n / 2, 1), 2 * n + 2), seed, n);
    std::sort(sorted.begin(), sorted.end());  // repeats: about two of each key
    const auto queries = gen::generate_keys_host(gen::KeySpec::uniform(2 * n + 3, 2 * n + 3), seed + 1, 5000);
    auto d_sorted = to_device(sorted, stream);
    auto d_queries = to_device(queries, stream);
    DeviceBuffer<std::uint32_t> lower(queries.size(), stream), upper(queries.size(), stream);
    DeviceBuffer<std::uint32_t> lower32(queries.size(), stream), upper32(queries.size(), stream);
    bounds_in_global<<<7, 128, 0, stream>>>(d_sorted.data(), n, d_queries.data(), queries.size(), lower.data(),
                                            upper.data());
    HASHLAB_CHECK_LAUNCH();
    bounds_in_shared<<<7, 128, 0, stream>>>(d_sorted.data(), static_cast<unsigned>(n), d_queries.data(),
                                            queries.size(), lower32.data(), upper32.data());
    HASHLAB_CHECK_LAUNCH();
    const auto l = lower.to_host(stream), u = upper.to_host(stream);
    const auto l32 = lower32.to_host(stream), u32 = upper32.to_host(stream);
    for (std::size_t i = 0; i < queries.size(); ++i) {
      const auto q = queries[i];
      const auto expected_lower = static_cast<std::uint32_t>(std::lower_bound(sorted.begin(), sorted.end(), q) - sorted.begin());
      const auto expected_upper = static_cast<std::uint32_t>(std::upper_bound(sorted.begin(), sorted.end(), q) - sorted.begin());
      ASSERT_EQ(l[i], expected_lower) << "query " << q;
      ASSERT_EQ(u[i], expected_upper) << "query " << q;
      ASSERT_EQ(l32[i], expected_lower) << "query " << q << " (shared memory)";
      ASSERT_EQ(u32[i], expected_upper) << "query " << q << " (shared memory)";
    }
  }
}

}  // namespace
}  // namespace hashlab
