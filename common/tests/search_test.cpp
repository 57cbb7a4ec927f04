// search.hpp on the host: lower_bound and upper_bound agree with std:: on sorted arrays with
// repeats, at both ends, empty, and with a 32-bit index (device runs: search_gpu_test.cu).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "hashlab/common/search.hpp"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab {
namespace {

void expect_like_std(const std::vector<std::uint32_t>& sorted, std::uint32_t q) {
  const std::size_t lower = std::lower_bound(sorted.begin(), sorted.end(), q) - sorted.begin();
  const std::size_t upper = std::upper_bound(sorted.begin(), sorted.end(), q) - sorted.begin();
  EXPECT_EQ(lower_bound(sorted.data(), sorted.size(), q), lower) << "query " << q;
  EXPECT_EQ(upper_bound(sorted.data(), sorted.size(), q), upper) << "query " << q;
  const auto n32 = static_cast<unsigned>(sorted.size());
  EXPECT_EQ(lower_bound(sorted.data(), n32, q), lower) << "query " << q << " (32-bit index)";
  EXPECT_EQ(upper_bound(sorted.data(), n32, q), upper) << "query " << q << " (32-bit index)";
}

TEST(Search, EmptyArrayGivesZero) {
  const std::uint32_t* none = nullptr;
  EXPECT_EQ(lower_bound(none, std::size_t{0}, 5u), 0u);
  EXPECT_EQ(upper_bound(none, std::size_t{0}, 5u), 0u);
}

TEST(Search, RunsOfEqualKeysAndBothEnds) {
  const std::vector<std::uint32_t> sorted{2, 2, 2, 5, 7, 7, 0xffffffffu};
  for (std::uint32_t q : {0u, 1u, 2u, 3u, 5u, 6u, 7u, 8u, 0xfffffffeu, 0xffffffffu}) expect_like_std(sorted, q);
}

TEST(Search, RandomArraysMatchStd) {
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  std::mt19937_64 rng(seed);
  for (std::size_t n : {1, 2, 3, 31, 32, 33, 1000, 4097}) {
    std::vector<std::uint32_t> sorted(n);
    for (auto& x : sorted) x = static_cast<std::uint32_t>(rng() % (2 * n));  // repeats and gaps
    std::sort(sorted.begin(), sorted.end());
    for (int k = 0; k < 200; ++k) expect_like_std(sorted, static_cast<std::uint32_t>(rng() % (2 * n + 2)));
  }
}

}  // namespace
}  // namespace hashlab
