// The public CPU primitives the checks of large outputs use: the parallel radix sort, the
// parallel first-difference scan, and the group-by comparison built on them, at sizes that use
// several threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "hashlab/common/radix_sort.hpp"
#include "hashlab/common/threads.hpp"
#include "hashlab/reference/groupby.hpp"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab {
namespace {

struct Row {
  std::uint32_t key;
  std::uint32_t payload;  // the row's input position: shows stability
  bool operator==(const Row& o) const { return key == o.key && payload == o.payload; }
};

std::vector<Row> random_rows(std::size_t n, std::uint32_t key_range, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Row> rows(n);
  for (std::size_t i = 0; i < n; ++i) rows[i] = {static_cast<std::uint32_t>(rng() % key_range), static_cast<std::uint32_t>(i)};
  return rows;
}

TEST(RadixSort, EqualsAStableSortForEveryThreadCount) {
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  for (std::uint32_t range : {1u, 7u, 1u << 12, 0xffffffffu})
    for (unsigned threads : {1u, 3u, 8u}) {
      auto rows = random_rows(300001, range, seed + range);
      auto expected = rows;
      std::stable_sort(expected.begin(), expected.end(), [](const Row& a, const Row& b) { return a.key < b.key; });
      cpu::radix_sort(rows, [](const Row& r) { return r.key; }, threads);
      EXPECT_EQ(rows, expected) << "key range " << range << ", " << threads << " threads";
    }
}

TEST(RadixSort, SortsEmptyAndSingleInputs) {
  std::vector<Row> none;
  cpu::radix_sort(none, [](const Row& r) { return r.key; });
  EXPECT_TRUE(none.empty());
  std::vector<Row> one{{5, 0}};
  cpu::radix_sort(one, [](const Row& r) { return r.key; });
  EXPECT_EQ(one, (std::vector<Row>{{5, 0}}));
}

TEST(FirstIndexWhere, FindsTheSmallestHitAcrossThreads) {
  const std::size_t n = 1000003;
  for (unsigned threads : {1u, 4u, 16u}) {
    EXPECT_EQ(cpu::first_index_where(n, [](std::size_t i) { return i >= 700000 || i == 999999; }, threads), 700000u);
    EXPECT_EQ(cpu::first_index_where(n, [](std::size_t i) { return i % 250001 == 250000; }, threads), 250000u);
    EXPECT_EQ(cpu::first_index_where(n, [](std::size_t) { return false; }, threads), n);
  }
  EXPECT_EQ(cpu::first_index_where(0, [](std::size_t) { return true; }), 0u);
}

// A group-by result of many groups, in key order, and the same groups shuffled.
reference::GroupByResult many_groups(std::size_t groups) {
  std::vector<std::uint32_t> keys(groups);
  std::vector<std::int32_t> values(groups);
  for (std::size_t g = 0; g < groups; ++g) {
    keys[g] = static_cast<std::uint32_t>(g * 2654435761u);
    values[g] = static_cast<std::int32_t>(g % 1000);
  }
  return reference::groupby(keys, values, reference::Aggregation::kSum);
}

TEST(GroupByCheck, ALargeShuffledResultSortsAndComparesEqual) {
  const auto expected = many_groups(500000);
  EXPECT_TRUE(expected.sorted_by_key());
  auto shuffled = expected;
  std::mt19937_64 rng(testing::test_seed());
  std::vector<std::size_t> order(expected.groups());
  for (std::size_t g = 0; g < order.size(); ++g) order[g] = g;
  std::shuffle(order.begin(), order.end(), rng);
  for (std::size_t g = 0; g < order.size(); ++g) {
    shuffled.keys[0][g] = expected.keys[0][order[g]];
    shuffled.aggregates[0].exact[g] = expected.aggregates[0].exact[order[g]];
  }
  EXPECT_FALSE(shuffled.sorted_by_key());
  EXPECT_EQ(reference::compare(expected, shuffled), "");
  shuffled.sort_by_key();
  EXPECT_TRUE(shuffled.sorted_by_key());
  EXPECT_EQ(shuffled.keys, expected.keys);
  EXPECT_EQ(shuffled.aggregates[0].exact, expected.aggregates[0].exact);
}

TEST(GroupByCheck, TheFirstOfSeveralDifferencesInALargeResultIsReported) {
  const auto expected = many_groups(500000);
  auto actual = expected;
  actual.aggregates[0].exact[400000] += 1;
  actual.aggregates[0].exact[123456] += 7;  // the first in key order, in another thread's chunk
  const std::string why = reference::compare(expected, actual);
  EXPECT_NE(why.find("of key (" + std::to_string(expected.keys[0][123456]) + ")"), std::string::npos) << why;
}

TEST(GroupByCheck, ARepeatedGroupIsNotEqualToTheReference) {
  const auto expected = many_groups(200000);
  auto actual = expected;
  actual.keys[0][5] = actual.keys[0][6];  // one group twice, one missing
  actual.aggregates[0].exact[5] = actual.aggregates[0].exact[6];
  EXPECT_NE(reference::compare(expected, actual), "");
}

}  // namespace
}  // namespace hashlab
