// Theorem 1 (partition count) against simulation, Algorithm 1 (greedy merge) against Theorem 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include "hashlab/ega/partition_plan.hpp"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab::ega {
namespace {

// Throws n balls into m bins `trials` times; returns how often some bin got >= k balls.
double simulated_failure_rate(std::uint64_t n, std::uint64_t m, std::uint64_t k, int trials, std::mt19937_64& rng) {
  std::uniform_int_distribution<std::uint64_t> bin(0, m - 1);
  std::vector<std::uint64_t> load(m);
  int failures = 0;
  for (int t = 0; t < trials; ++t) {
    std::fill(load.begin(), load.end(), 0);
    bool failed = false;
    for (std::uint64_t b = 0; b < n && !failed; ++b) failed = ++load[bin(rng)] >= k;
    failures += failed;
  }
  return static_cast<double>(failures) / trials;
}

TEST(Theorem1, PartitionCountMakesTheUnionBoundAtMostP) {
  for (std::uint64_t n : {1000ull, 100000ull, 10000000ull})
    for (std::uint64_t k : {10ull, 100ull, 10000ull})
      for (double p : {0.1, 1e-3, 1e-6}) {
        if (k > n) continue;
        const std::uint64_t m = theorem1_partitions(n, k, p);
        EXPECT_LE(theorem1_failure_bound(n, m, k), p * (1 + 1e-9)) << "n=" << n << " k=" << k << " p=" << p;
        EXPECT_GE(static_cast<double>(m), std::exp(1.0) * n / k * 0.999) << "at least e n / k partitions";
      }
}

TEST(Theorem1, SimulationFailsNoMoreOftenThanP) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  std::mt19937_64 rng(seed);
  struct Case { std::uint64_t n, k; double p; };
  for (const Case c : {Case{10000, 100, 0.05}, Case{20000, 50, 0.05}, Case{5000, 10, 0.05}}) {
    const std::uint64_t m = theorem1_partitions(c.n, c.k, c.p);
    const int trials = 400;
    const double rate = simulated_failure_rate(c.n, m, c.k, trials, rng);
    // p + 4 binomial standard deviations: a correct bound fails this with negligible probability.
    EXPECT_LE(rate, c.p + 4 * std::sqrt(c.p * (1 - c.p) / trials)) << "n=" << c.n << " k=" << c.k << " m=" << m;
    // The bound is not vacuous: a quarter of the partitions overflows often.
    EXPECT_GT(simulated_failure_rate(c.n, std::max<std::uint64_t>(1, m / 4), c.k, 50, rng), c.p)
        << "n=" << c.n << " k=" << c.k << " m/4=" << m / 4;
  }
}

TEST(Theorem1, PairsOfBallsNeedManyBins) {
  // k = 2: no two balls share a bin with probability >= 1 - p (the birthday bound).
  const std::uint64_t m = theorem1_partitions(100, 2, 0.01);
  EXPECT_LE(theorem1_failure_bound(100, m, 2), 0.01);
  EXPECT_GE(m, 100u * 99 / 2 / 0.01 * 0.9);  // m C(n,2) / m^2 <= p needs m >= C(n,2) / p
}

TEST(Theorem1, FewerGroupsThanKNeedOnePartition) { EXPECT_EQ(theorem1_partitions(99, 100, 1e-6), 1u); }

TEST(Theorem1, RejectsBadParameters) {
  EXPECT_THROW(theorem1_partitions(1000, 1, 0.01), std::invalid_argument);
  EXPECT_THROW(theorem1_partitions(1000, 10, 0.0), std::invalid_argument);
  EXPECT_THROW(theorem1_partitions(1000, 10, 1.0), std::invalid_argument);
}

void expect_valid_merge(const std::vector<std::uint64_t>& sizes, std::uint64_t k,
                        const std::vector<std::vector<std::size_t>>& merged) {
  std::vector<int> seen(sizes.size(), 0);
  for (const auto& group : merged) {
    std::uint64_t total = 0;
    for (auto i : group) {
      ASSERT_LT(i, sizes.size());
      ++seen[i];
      total += sizes[i];
    }
    if (group.size() > 1) {
      EXPECT_LE(total, k) << "a merged partition exceeds k";
    }
  }
  for (std::size_t i = 0; i < sizes.size(); ++i) EXPECT_EQ(seen[i], 1) << "partition " << i;
}

TEST(GreedyMerge, MergesTheSmallestFirst) {
  const std::vector<std::uint64_t> sizes{5, 1, 2, 9, 3};
  const auto merged = greedy_merge(sizes, 10);
  expect_valid_merge(sizes, 10, merged);
  // 1 + 2 = 3, + 3 = 6 (+ 5 would exceed 10); then 5 + 6 > 10 stops: {1, 2, 3}, {5}, {9}.
  // (The optimum is 2, {9, 1} and {5, 2, 3}: within Theorem 2's factor of two.)
  EXPECT_EQ(merged.size(), 3u);
}

TEST(GreedyMerge, LeavesPartitionsLargerThanKAlone) {
  const std::vector<std::uint64_t> sizes{50, 1, 1};
  const auto merged = greedy_merge(sizes, 10);
  expect_valid_merge(sizes, 10, merged);
  EXPECT_EQ(merged.size(), 2u);
}

TEST(GreedyMerge, EmptyAndSingle) {
  EXPECT_TRUE(greedy_merge({}, 10).empty());
  EXPECT_EQ(greedy_merge({7}, 10).size(), 1u);
}

TEST(GreedyMerge, Theorem2AtMostTwiceTheOptimumOnRandomInstances) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  std::mt19937_64 rng(seed);
  for (int instance = 0; instance < 300; ++instance) {
    const std::uint64_t k = 1 + rng() % 1000;
    const std::size_t n = 1 + rng() % 12;
    std::vector<std::uint64_t> sizes(n);
    for (auto& s : sizes) s = 1 + rng() % k;  // every size in [1, k]
    const auto merged = greedy_merge(sizes, k);
    expect_valid_merge(sizes, k, merged);
    const std::size_t optimum = optimal_merge_count(sizes, k);
    EXPECT_GE(merged.size(), optimum);
    EXPECT_LE(merged.size(), 2 * optimum) << "instance " << instance << " k=" << k;
    // When it stops, no two merged partitions fit together any more (the smallest two exceed k).
    std::vector<std::uint64_t> totals;
    for (const auto& g : merged) totals.push_back(std::accumulate(g.begin(), g.end(), std::uint64_t{0},
                                                                  [&](std::uint64_t a, std::size_t i) { return a + sizes[i]; }));
    std::sort(totals.begin(), totals.end());
    if (totals.size() >= 2) {
      EXPECT_GT(totals[0] + totals[1], k);
    }
  }
}

TEST(GreedyMerge, OptimalMergeCountOnAKnownInstance) {
  EXPECT_EQ(optimal_merge_count({6, 4, 5, 5}, 10), 2u);
  EXPECT_EQ(optimal_merge_count({6, 6, 6}, 10), 3u);
}

}  // namespace
}  // namespace hashlab::ega
