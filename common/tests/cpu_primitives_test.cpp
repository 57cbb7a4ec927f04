// The public CPU primitives the checks of large outputs use: the parallel radix sort, the
// parallel first-difference scan, and the group-by comparison built on them, at sizes that use
// several threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <type_traits>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "hashlab/common/host_memory.hpp"
#include "hashlab/common/radix_sort.hpp"
#include "hashlab/common/threads.hpp"
#include "hashlab/reference/cpu_baselines.hpp"
#include "hashlab/reference/groupby.hpp"
#include "hashlab/reference/join.hpp"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab {
namespace {

TEST(HostMemory, ZeroedVectorIsAValueInitialisedVectorOfEverySize) {
  EXPECT_TRUE(cpu::zeroed_vector<std::uint32_t>(0).empty());
  const auto small = cpu::zeroed_vector<std::uint64_t>(10);
  EXPECT_EQ(small, std::vector<std::uint64_t>(10));
  // Above kPopulateMinBytes, so its pages are populated first: 48 MiB of zeros, every one.
  const std::size_t n = 3 * cpu::kPopulateMinBytes / sizeof(std::uint32_t) + 7;
  const auto large = cpu::zeroed_vector<std::uint32_t>(n);
  ASSERT_EQ(large.size(), n);
  EXPECT_EQ(std::count(large.begin(), large.end(), 0u), static_cast<std::ptrdiff_t>(n));
}

// The free host memory is read from the kernel; HASHLAB_HOST_MEMORY_LIMIT lowers it, and a need
// above it is refused with both figures.
TEST(HostMemory, AvailableMemoryHonoursTheLimitAndTheCheckNamesBothFigures) {
  std::string how;
  const std::size_t available = cpu::host_memory_available(&how);
  ASSERT_GT(available, 0u);
  ::setenv("HASHLAB_HOST_MEMORY_LIMIT", "1MiB", 1);
  EXPECT_EQ(cpu::host_memory_available(&how), std::min<std::size_t>(available, 1u << 20));
  EXPECT_EQ(how, "HASHLAB_HOST_MEMORY_LIMIT");
  EXPECT_NO_THROW(cpu::require_host_memory(1000, "a small read"));
  try {
    cpu::require_host_memory(std::size_t{3} << 20, "reading k.npy");
    ADD_FAILURE() << "3 MiB fit in 1 MiB";
  } catch (const OutOfHostMemory& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("reading k.npy needs about 3.00 MiB of host memory; 1.00 MiB available"), std::string::npos)
        << what;
  }
  ::setenv("HASHLAB_HOST_MEMORY_LIMIT", "lots", 1);
  EXPECT_THROW(cpu::host_memory_available(), std::invalid_argument);
  ::unsetenv("HASHLAB_HOST_MEMORY_LIMIT");
  EXPECT_GT(cpu::host_memory_available(), std::size_t{1} << 20);
}

TEST(HostMemory, PopulatingPagesKeepsWhatTheyHold) {
  std::vector<std::uint32_t> v(2 * cpu::kPopulateMinBytes / sizeof(std::uint32_t) + 3);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::uint32_t>(i * 2654435761u);
  cpu::populate_pages(v.data() + 1, (v.size() - 1) * sizeof(std::uint32_t));  // not page-aligned
  for (std::size_t i = 0; i < v.size(); ++i) ASSERT_EQ(v[i], static_cast<std::uint32_t>(i * 2654435761u)) << i;
  cpu::populate_pages(nullptr, 1u << 30);  // nothing to do
  cpu::populate_pages(v.data(), 100);      // below kPopulateMinBytes
  EXPECT_EQ(v[0], 0u);
}

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

// One key column and one aggregate column (exact or real) sort as (key, value) records: the values
// move with their keys, equal keys keep their order, and NaN's bits survive.
TEST(GroupByCheck, SortByKeyOfOneColumnMovesValuesAndKeepsEqualKeysInOrder) {
  reference::GroupByResult exact;
  exact.keys = {{5, 3, 5, 1, 3}};
  exact.aggregates.push_back({});
  exact.aggregates[0].op = reference::Aggregation::kSum;
  exact.aggregates[0].exact = {50, 30, 51, 10, 31};
  exact.sort_by_key();
  EXPECT_EQ(exact.keys[0], (std::vector<std::uint32_t>{1, 3, 3, 5, 5}));
  EXPECT_EQ(exact.aggregates[0].exact, (std::vector<std::int64_t>{10, 30, 31, 50, 51}));

  reference::GroupByResult real;
  real.keys = {{9, 2, 9}};
  real.aggregates.push_back({});
  real.aggregates[0].op = reference::Aggregation::kMean;
  real.aggregates[0].real = {std::numeric_limits<double>::quiet_NaN(), -0.0, 2.5};
  real.sort_by_key();
  EXPECT_EQ(real.keys[0], (std::vector<std::uint32_t>{2, 9, 9}));
  EXPECT_TRUE(std::signbit(real.aggregates[0].real[0]));  // -0.0
  EXPECT_TRUE(std::isnan(real.aggregates[0].real[1]));
  EXPECT_EQ(real.aggregates[0].real[2], 2.5);
}

TEST(GroupByCheck, ARepeatedGroupIsNotEqualToTheReference) {
  const auto expected = many_groups(200000);
  auto actual = expected;
  actual.keys[0][5] = actual.keys[0][6];  // one group twice, one missing
  actual.aggregates[0].exact[5] = actual.aggregates[0].exact[6];
  EXPECT_NE(reference::compare(expected, actual), "");
}

// The sort-based group-by, the checks' answer for large inputs, equals the reference bit for bit
// for every value type and aggregation, with groups that straddle the threads' parts.
template <class V>
void expect_sorted_groupby_equals_reference(std::uint32_t key_range, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::size_t n = 100003;
  std::vector<std::uint32_t> keys(n);
  std::vector<V> values(n);
  for (std::size_t i = 0; i < n; ++i) {
    keys[i] = static_cast<std::uint32_t>(rng() % key_range);
    if constexpr (std::is_floating_point_v<V>)
      values[i] = i % 997 == 0 ? std::numeric_limits<V>::quiet_NaN() : static_cast<V>(rng() % 100000) / V(7);
    else
      values[i] = static_cast<V>(static_cast<std::int64_t>(rng() % 2000001) - 1000000);
  }
  for (auto op : {reference::Aggregation::kSum, reference::Aggregation::kMin, reference::Aggregation::kMax,
                  reference::Aggregation::kCount, reference::Aggregation::kMean}) {
    const auto expected = reference::groupby(keys, values, op);
    for (unsigned threads : {1u, 5u, 16u}) {
      const auto got = reference::sorted_groupby(keys, values, op, threads);
      EXPECT_EQ(got.keys, expected.keys) << reference::to_string(op) << ", " << threads << " threads";
      EXPECT_EQ(got.aggregates[0].exact, expected.aggregates[0].exact) << reference::to_string(op);
      ASSERT_EQ(got.aggregates[0].real.size(), expected.aggregates[0].real.size());
      for (std::size_t g = 0; g < expected.aggregates[0].real.size(); ++g) {  // bit for bit, NaN included
        const double e = expected.aggregates[0].real[g], a = got.aggregates[0].real[g];
        ASSERT_TRUE(e == a || (std::isnan(e) && std::isnan(a))) << reference::to_string(op) << " group " << g;
      }
    }
  }
}

TEST(SortedGroupBy, EqualsTheReferenceForEveryTypeAndAggregation) {
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  for (std::uint32_t range : {1u, 3u, 5000u, 0xffffffffu}) {  // one group, huge groups, many, nearly unique
    expect_sorted_groupby_equals_reference<std::int32_t>(range, seed);
    expect_sorted_groupby_equals_reference<std::uint32_t>(range, seed + 1);
    expect_sorted_groupby_equals_reference<std::int64_t>(range, seed + 2);
    expect_sorted_groupby_equals_reference<float>(range, seed + 3);
    expect_sorted_groupby_equals_reference<double>(range, seed + 4);
  }
}

// Several key columns and one aggregation per value column: equal to the reference bit for bit,
// with tuples that share their first key (ties the later columns break), more threads than rows,
// and the reference's errors for a malformed input.
TEST(SortedGroupBy, SeveralKeyAndValueColumnsEqualTheReference) {
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  std::mt19937_64 rng(seed);
  using reference::Aggregation;
  const std::vector<Aggregation> ops = {Aggregation::kSum, Aggregation::kMin, Aggregation::kMean, Aggregation::kCount};
  for (std::size_t n : {std::size_t{3}, std::size_t{100003}}) {
    std::vector<std::vector<std::uint32_t>> keys(3, std::vector<std::uint32_t>(n));
    std::vector<std::vector<double>> values(ops.size(), std::vector<double>(n));
    for (std::size_t i = 0; i < n; ++i) {
      keys[0][i] = static_cast<std::uint32_t>(rng() % 4);
      keys[1][i] = static_cast<std::uint32_t>(rng() % 7) * 0x01010101u;  // every byte of the key varies
      keys[2][i] = static_cast<std::uint32_t>(rng() % 50);
      for (auto& column : values) column[i] = static_cast<double>(rng() % 100000) / 7;
    }
    const auto expected = reference::groupby(keys, values, ops);
    for (unsigned threads : {1u, 5u, 16u}) {
      const auto got = reference::sorted_groupby(keys, values, ops, threads);
      EXPECT_EQ(got.keys, expected.keys) << n << " rows, " << threads << " threads";
      ASSERT_EQ(got.aggregates.size(), ops.size());
      for (std::size_t v = 0; v < ops.size(); ++v) {
        EXPECT_EQ(got.aggregates[v].op, ops[v]);
        EXPECT_EQ(got.aggregates[v].exact, expected.aggregates[v].exact) << reference::to_string(ops[v]);
        EXPECT_EQ(got.aggregates[v].real, expected.aggregates[v].real) << reference::to_string(ops[v]);
      }
    }
  }
  const std::vector<std::vector<std::uint32_t>> two_keys = {{1, 2}, {1}};
  EXPECT_THROW(reference::sorted_groupby(two_keys, std::vector<std::vector<double>>{{1, 2}}, {Aggregation::kSum}),
               std::invalid_argument);
  EXPECT_THROW(reference::sorted_groupby(std::vector<std::vector<std::uint32_t>>{{1, 2}},
                                         std::vector<std::vector<double>>{{1, 2}}, {}),
               std::invalid_argument);
}

TEST(SortedGroupBy, EmptyInputAndMismatchedLengths) {
  const auto empty = reference::sorted_groupby(std::vector<std::uint32_t>{}, std::vector<std::int32_t>{},
                                               reference::Aggregation::kSum);
  EXPECT_EQ(empty.groups(), 0u);
  EXPECT_EQ(reference::compare(reference::groupby(std::vector<std::uint32_t>{}, std::vector<std::int32_t>{},
                                                  reference::Aggregation::kSum),
                               empty),
            "");
  EXPECT_THROW(reference::sorted_groupby(std::vector<std::uint32_t>{1, 2}, std::vector<std::int32_t>{1},
                                         reference::Aggregation::kSum),
               std::invalid_argument);
}

TEST(SortedJoinCount, EqualsTheReferenceWithRepeatedKeysOnBothSides) {
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  std::mt19937_64 rng(seed);
  for (std::uint32_t range : {1u, 50u, 100000u, 0xffffffffu}) {
    std::vector<std::uint32_t> r(150001), s(90007);
    for (auto& k : r) k = static_cast<std::uint32_t>(rng() % range);
    for (auto& k : s) k = static_cast<std::uint32_t>(rng() % range);
    for (unsigned threads : {1u, 7u})
      EXPECT_EQ(reference::sorted_join_count(r, s, threads), reference::inner_join_count(r, s)) << range;
  }
  EXPECT_EQ(reference::sorted_join_count({}, {1, 2}), 0u);
}

// The checks' count: the reference (no note) up to 2^20 keys in either column, the sorted count
// (with its note) above; the same number either way.
TEST(OracleJoinCount, IsTheReferenceUpToTheThresholdAndTheSortedCountAbove) {
  std::vector<std::uint32_t> r(cpu::kOracleReferenceRows), s(1000);
  for (std::size_t i = 0; i < r.size(); ++i) r[i] = static_cast<std::uint32_t>(i % 5000);
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = static_cast<std::uint32_t>(i * 7);
  std::string note = "stale";
  const std::uint64_t expected = reference::inner_join_count(r, s);
  EXPECT_EQ(reference::oracle_join_count(r, s, &note), expected);
  EXPECT_EQ(note, "");
  s.push_back(7);
  r.push_back(7);  // one key above the threshold
  EXPECT_EQ(reference::oracle_join_count(r, s, &note), reference::inner_join_count(r, s));
  EXPECT_EQ(note, reference::kSortedJoinCountOracle);
  EXPECT_EQ(reference::oracle_join_count({}, {1}), 0u);
}

}  // namespace
}  // namespace hashlab
