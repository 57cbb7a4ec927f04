// The reference group-by against a brute-force one (linear search for each row's group, each
// group's values reduced by the definition of the aggregation), plus its exactness rules,
// errors, and compare().
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "hashlab/common/generator.hpp"
#include "hashlab/reference/groupby.hpp"
#include "hashlab/testing/gpu_test.hpp"
#include "hashlab/testing/errors.hpp"

namespace hashlab::reference {
namespace {

using hashlab::testing::error_of;
using hashlab::testing::mentions;

using hashlab::testing::test_seed;

constexpr Aggregation kAllAggregations[] = {Aggregation::kSum, Aggregation::kMin, Aggregation::kMax,
                                           Aggregation::kCount, Aggregation::kMean};

// ---- the brute-force oracle -------------------------------------------------------------------

template <class V>
struct BruteGroup {
  std::vector<std::uint32_t> tuple;
  std::vector<std::vector<V>> values;  // per value column, in row order
  bool operator<(const BruteGroup& other) const { return tuple < other.tuple; }
};

/// Each group's rows, found by comparing the row's tuple with every group found so far.
template <class V>
std::vector<BruteGroup<V>> brute_groups(const std::vector<std::vector<std::uint32_t>>& keys,
                                        const std::vector<std::vector<V>>& values) {
  std::vector<BruteGroup<V>> groups;
  const std::size_t n = keys.front().size();
  for (std::size_t row = 0; row < n; ++row) {
    std::vector<std::uint32_t> tuple;
    for (const auto& column : keys) tuple.push_back(column[row]);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const BruteGroup<V>& g) { return g.tuple == tuple; });
    if (it == groups.end()) {
      groups.push_back({tuple, std::vector<std::vector<V>>(values.size())});
      it = groups.end() - 1;
    }
    for (std::size_t v = 0; v < values.size(); ++v) it->values[v].push_back(values[v][row]);
  }
  std::sort(groups.begin(), groups.end());
  return groups;
}

/// The aggregation of one group's values (in row order), by definition. Integer results are
/// exact; floating sums add in row order in double, like the reference promises.
template <class V>
void reduce(Aggregation op, const std::vector<V>& xs, AggregateColumn& out) {
  const bool integral = std::is_integral_v<V>;
  switch (op) {
    case Aggregation::kCount:
      out.exact.push_back(static_cast<std::int64_t>(xs.size()));
      return;
    case Aggregation::kMin:
    case Aggregation::kMax: {
      const V m = op == Aggregation::kMin ? *std::min_element(xs.begin(), xs.end())
                                          : *std::max_element(xs.begin(), xs.end());
      if (integral) out.exact.push_back(static_cast<std::int64_t>(m));
      else out.real.push_back(static_cast<double>(m));
      return;
    }
    case Aggregation::kSum:
    case Aggregation::kMean: {
      std::int64_t exact_sum = 0;
      double real_sum = 0;
      for (V x : xs) {
        if (integral) exact_sum += static_cast<std::int64_t>(x);
        else real_sum += static_cast<double>(x);
      }
      const double sum = integral ? static_cast<double>(exact_sum) : real_sum;
      if (op == Aggregation::kMean) out.real.push_back(sum / static_cast<double>(xs.size()));
      else if (integral) out.exact.push_back(exact_sum);
      else out.real.push_back(real_sum);
      return;
    }
  }
}

template <class V>
GroupByResult brute_force_groupby(const std::vector<std::vector<std::uint32_t>>& keys,
                                  const std::vector<std::vector<V>>& values, const std::vector<Aggregation>& ops) {
  const auto groups = brute_groups(keys, values);
  GroupByResult result;
  result.keys.resize(keys.size());
  result.aggregates.resize(ops.size());
  for (std::size_t v = 0; v < ops.size(); ++v) result.aggregates[v].op = ops[v];
  for (const auto& g : groups) {
    for (std::size_t c = 0; c < keys.size(); ++c) result.keys[c].push_back(g.tuple[c]);
    for (std::size_t v = 0; v < ops.size(); ++v) reduce(ops[v], g.values[v], result.aggregates[v]);
  }
  return result;
}

/// Field-by-field equality, reals bit for bit (both add in row order), with the first difference.
::testing::AssertionResult same_result(const GroupByResult& expected, const GroupByResult& actual) {
  if (expected.keys != actual.keys) {
    auto failure = ::testing::AssertionFailure() << "keys differ: expected " << expected.groups() << " groups, got "
                                                 << actual.groups();
    for (std::size_t c = 0; c < std::min(expected.keys.size(), actual.keys.size()); ++c)
      for (std::size_t g = 0; g < std::min(expected.keys[c].size(), actual.keys[c].size()); ++g)
        if (expected.keys[c][g] != actual.keys[c][g])
          return failure << "; first at column " << c << " group " << g << ": expected " << expected.keys[c][g]
                         << " got " << actual.keys[c][g];
    return failure;
  }
  if (expected.aggregates.size() != actual.aggregates.size())
    return ::testing::AssertionFailure() << "aggregate count differs";
  for (std::size_t v = 0; v < expected.aggregates.size(); ++v) {
    const auto& e = expected.aggregates[v];
    const auto& a = actual.aggregates[v];
    if (e.op != a.op) return ::testing::AssertionFailure() << "aggregate " << v << " has another op";
    if (e.exact != a.exact || e.real.size() != a.real.size())
      return ::testing::AssertionFailure() << "aggregate " << v << " (" << to_string(e.op)
                                           << ") differs in its exact values or kind";
    for (std::size_t g = 0; g < e.real.size(); ++g)
      if (!(e.real[g] == a.real[g] || (std::isnan(e.real[g]) && std::isnan(a.real[g]))))
        return ::testing::AssertionFailure() << "aggregate " << v << " (" << to_string(e.op) << ") of group " << g
                                             << ": expected " << e.real[g] << " got " << a.real[g];
  }
  return ::testing::AssertionSuccess();
}

// ---- inputs from the shared generator ---------------------------------------------------------

std::vector<std::vector<std::uint32_t>> key_columns(std::uint64_t seed, int columns, std::size_t n,
                                                    std::uint64_t groups) {
  // A small domain makes single columns collide across groups, as real multi-column keys do.
  const auto flat = gen::generate_key_columns_host(gen::KeySpec::uniform(groups, 1000), seed, columns, n);
  std::vector<std::vector<std::uint32_t>> keys(columns);
  for (int c = 0; c < columns; ++c) keys[c].assign(flat.begin() + c * n, flat.begin() + (c + 1) * n);
  return keys;
}

template <class V>
std::vector<V> value_column(std::uint64_t seed, std::size_t n) {
  if constexpr (std::is_same_v<V, std::uint32_t>) return gen::generate_values_host<V>(seed, 0u, 4000000000u, n);
  else if constexpr (std::is_same_v<V, std::int64_t>)
    return gen::generate_values_host<V>(seed, -(std::int64_t{1} << 40), -(std::int64_t{1} << 40) + 4000000000, n);
  else if constexpr (std::is_integral_v<V>) return gen::generate_values_host<V>(seed, V(-1000), V(1000), n);
  else return gen::generate_values_host<V>(seed, V(-100), V(100), n);
}

constexpr std::size_t kSizes[] = {0, 1, 2, 7, 100, 999};

std::uint64_t groups_for(std::size_t n) { return std::max<std::size_t>(1, n / 5); }

// ---- against brute force, every value type ----------------------------------------------------

template <class V>
class ReferenceGroupByTyped : public ::testing::Test {};

using ValueTypes = ::testing::Types<std::int32_t, std::uint32_t, std::int64_t, float, double>;
TYPED_TEST_SUITE(ReferenceGroupByTyped, ValueTypes);

TYPED_TEST(ReferenceGroupByTyped, EveryAggregationOfOneKeyColumnMatchesBruteForce) {
  for (std::uint64_t seed = test_seed(); seed < test_seed() + 3; ++seed) {
    HASHLAB_TRACE_SEED(seed);
    for (std::size_t n : kSizes) {
      const auto keys = key_columns(seed, 1, n, groups_for(n));
      const auto values = value_column<TypeParam>(seed + 100, n);
      for (Aggregation op : kAllAggregations) {
        SCOPED_TRACE(std::string("n=") + std::to_string(n) + " op=" + to_string(op));
        EXPECT_TRUE(same_result(brute_force_groupby<TypeParam>(keys, {values}, {op}), groupby(keys[0], values, op)));
      }
    }
  }
}

TYPED_TEST(ReferenceGroupByTyped, EveryAggregationOfThreeKeyColumnsMatchesBruteForce) {
  for (std::uint64_t seed = test_seed(); seed < test_seed() + 3; ++seed) {
    HASHLAB_TRACE_SEED(seed);
    for (std::size_t n : kSizes) {
      const auto keys = key_columns(seed, 3, n, groups_for(n));
      const std::vector<std::vector<TypeParam>> values(5, value_column<TypeParam>(seed + 100, n));
      const std::vector<Aggregation> ops(std::begin(kAllAggregations), std::end(kAllAggregations));
      SCOPED_TRACE("n=" + std::to_string(n));
      EXPECT_TRUE(same_result(brute_force_groupby(keys, values, ops), groupby(keys, values, ops)));
    }
  }
}

TYPED_TEST(ReferenceGroupByTyped, MeanIsRealAndCountIsExact) {
  const std::vector<std::uint32_t> keys = {1, 1, 2};
  const std::vector<TypeParam> values = {TypeParam(1), TypeParam(2), TypeParam(4)};
  const auto mean = groupby(keys, values, Aggregation::kMean);
  EXPECT_TRUE(mean.aggregates[0].exact.empty());
  EXPECT_EQ(mean.aggregates[0].real, (std::vector<double>{1.5, 4.0}));
  const auto count = groupby(keys, values, Aggregation::kCount);
  EXPECT_TRUE(count.aggregates[0].real.empty());
  EXPECT_EQ(count.aggregates[0].exact, (std::vector<std::int64_t>{2, 1}));
}

TYPED_TEST(ReferenceGroupByTyped, SumMinMaxAreExactForIntegersAndRealForFloats) {
  const std::vector<std::uint32_t> keys = {7, 7};
  const std::vector<TypeParam> values = {TypeParam(3), TypeParam(5)};
  for (Aggregation op : {Aggregation::kSum, Aggregation::kMin, Aggregation::kMax}) {
    const auto result = groupby(keys, values, op);
    EXPECT_EQ(result.aggregates[0].is_exact(), std::is_integral_v<TypeParam>) << to_string(op);
    EXPECT_EQ(result.aggregates[0].exact.size() + result.aggregates[0].real.size(), 1u);
  }
}

// ---- semantics --------------------------------------------------------------------------------

TEST(ReferenceGroupBy, SumOfTwoKeyColumnsMatchesBruteForce) {
  for (std::uint64_t seed = test_seed(); seed < test_seed() + 5; ++seed) {
    HASHLAB_TRACE_SEED(seed);
    for (std::size_t n : {1u, 13u, 500u, 3001u}) {
      const auto keys = key_columns(seed, 2, n, n / 3 + 1);
      const auto values = value_column<std::int32_t>(seed + 1, n);
      EXPECT_TRUE(same_result(brute_force_groupby<std::int32_t>(keys, {values}, {Aggregation::kSum}),
                              groupby<std::int32_t>(keys, {values}, {Aggregation::kSum})))
          << "n=" << n;
    }
  }
}

TEST(ReferenceGroupBy, TuplesSharingAColumnValueStayApart) {
  const std::vector<std::vector<std::uint32_t>> keys = {{1, 1, 2, 2, 1}, {5, 6, 5, 6, 5}};
  const std::vector<std::vector<std::int32_t>> values = {{1, 2, 3, 4, 5}};
  const auto result = groupby(keys, values, {Aggregation::kSum});
  EXPECT_EQ(result.keys[0], (std::vector<std::uint32_t>{1, 1, 2, 2}));
  EXPECT_EQ(result.keys[1], (std::vector<std::uint32_t>{5, 6, 5, 6}));
  EXPECT_EQ(result.aggregates[0].exact, (std::vector<std::int64_t>{6, 2, 3, 4}));
}

TEST(ReferenceGroupBy, ResultIsSortedByKeyTuple) {
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  const auto keys = key_columns(seed, 2, 5000, 700);
  const auto result = groupby<double>(keys, {value_column<double>(seed, 5000)}, {Aggregation::kMax});
  ASSERT_EQ(result.groups(), 700u);
  for (std::size_t g = 1; g < result.groups(); ++g)
    EXPECT_LT(std::make_pair(result.keys[0][g - 1], result.keys[1][g - 1]),
              std::make_pair(result.keys[0][g], result.keys[1][g]));
}

TEST(ReferenceGroupBy, EmptyInputHasNoGroups) {
  const auto result = groupby(std::vector<std::uint32_t>{}, std::vector<float>{}, Aggregation::kMean);
  EXPECT_EQ(result.groups(), 0u);
  ASSERT_EQ(result.keys.size(), 1u);
  ASSERT_EQ(result.aggregates.size(), 1u);
  EXPECT_EQ(result.aggregates[0].op, Aggregation::kMean);
}

TEST(ReferenceGroupBy, KeyColumnsWithoutValueColumnsGiveTheDistinctTuples) {
  const std::vector<std::vector<std::uint32_t>> keys = {{3, 1, 3, 2}};
  const auto result = groupby<std::int32_t>(keys, {}, {});
  EXPECT_EQ(result.keys[0], (std::vector<std::uint32_t>{1, 2, 3}));
  EXPECT_TRUE(result.aggregates.empty());
}

TEST(ReferenceGroupBy, IntegerSumIsExactBeyondThirtyTwoBits) {
  const std::vector<std::uint32_t> keys(1000, 9);
  const std::vector<std::uint32_t> values(1000, 4000000000u);
  EXPECT_EQ(groupby(keys, values, Aggregation::kSum).aggregates[0].exact,
            (std::vector<std::int64_t>{4000000000000}));
  const std::vector<std::int32_t> negative(1000, std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(groupby(keys, negative, Aggregation::kSum).aggregates[0].exact,
            (std::vector<std::int64_t>{-2147483648000}));
}

TEST(ReferenceGroupBy, Int64SumWrapsAroundLikeTwosComplement) {
  const std::vector<std::uint32_t> keys = {1, 1};
  const std::vector<std::int64_t> values = {std::numeric_limits<std::int64_t>::max(), 1};
  EXPECT_EQ(groupby(keys, values, Aggregation::kSum).aggregates[0].exact,
            (std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::min()}));
}

TEST(ReferenceGroupBy, ExtremeIntegersKeepTheirValueInMinAndMax) {
  const std::vector<std::uint32_t> keys = {1, 1, 2, 2};
  const std::vector<std::uint32_t> u = {0xffffffffu, 0u, 5u, 0xfffffffeu};
  EXPECT_EQ(groupby(keys, u, Aggregation::kMax).aggregates[0].exact, (std::vector<std::int64_t>{0xffffffff, 0xfffffffe}));
  const std::vector<std::int64_t> s = {std::numeric_limits<std::int64_t>::min(), 0, -1, 1};
  EXPECT_EQ(groupby(keys, s, Aggregation::kMin).aggregates[0].exact,
            (std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::min(), -1}));
}

TEST(ReferenceGroupBy, FloatSumsAccumulateInDouble) {
  // 2^24 + 1 is not a float: a float accumulator would lose the ones.
  const std::vector<std::uint32_t> keys(3, 0);
  const std::vector<float> values = {16777216.0f, 1.0f, 1.0f};
  EXPECT_EQ(groupby(keys, values, Aggregation::kSum).aggregates[0].real, (std::vector<double>{16777218.0}));
}

TEST(ReferenceGroupBy, IntegerMeanDividesTheExactSum) {
  const std::vector<std::uint32_t> keys = {4, 4, 4};
  const std::vector<std::int64_t> values = {(std::int64_t{1} << 60) + 1, (std::int64_t{1} << 60) + 1, 1};
  const double expected = static_cast<double>((std::int64_t{1} << 61) + 3) / 3.0;
  EXPECT_EQ(groupby(keys, values, Aggregation::kMean).aggregates[0].real, (std::vector<double>{expected}));
}

TEST(ReferenceGroupBy, MinAndMaxSkipNaN) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<std::uint32_t> keys = {1, 1, 1, 2, 2, 2};
  const std::vector<double> values = {nan, 3.0, -1.0, 4.0, nan, 2.0};
  EXPECT_EQ(groupby(keys, values, Aggregation::kMin).aggregates[0].real, (std::vector<double>{-1.0, 2.0}));
  EXPECT_EQ(groupby(keys, values, Aggregation::kMax).aggregates[0].real, (std::vector<double>{3.0, 4.0}));
}

TEST(ReferenceGroupBy, MinOfOnlyNaNIsNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto result = groupby(std::vector<std::uint32_t>{1, 1}, std::vector<float>{nan, nan}, Aggregation::kMin);
  ASSERT_EQ(result.aggregates[0].real.size(), 1u);
  EXPECT_TRUE(std::isnan(result.aggregates[0].real[0]));
}

TEST(ReferenceGroupBy, ReservedKeyIsAnOrdinaryKey) {
  const std::vector<std::uint32_t> keys = {0xffffffffu, 0u, 0xffffffffu};
  const std::vector<std::int32_t> values = {1, 2, 3};
  const auto result = groupby(keys, values, Aggregation::kSum);
  EXPECT_EQ(result.keys[0], (std::vector<std::uint32_t>{0u, 0xffffffffu}));
  EXPECT_EQ(result.aggregates[0].exact, (std::vector<std::int64_t>{2, 4}));
}

TEST(ReferenceGroupBy, SortByKeyMovesAggregatesWithTheirKeys) {
  GroupByResult r;
  r.keys = {{3, 1, 2}, {0, 9, 9}};
  r.aggregates.resize(2);
  r.aggregates[0].exact = {30, 10, 20};
  r.aggregates[1].op = Aggregation::kMean;
  r.aggregates[1].real = {3.5, 1.5, 2.5};
  r.sort_by_key();
  EXPECT_EQ(r.keys[0], (std::vector<std::uint32_t>{1, 2, 3}));
  EXPECT_EQ(r.keys[1], (std::vector<std::uint32_t>{9, 9, 0}));
  EXPECT_EQ(r.aggregates[0].exact, (std::vector<std::int64_t>{10, 20, 30}));
  EXPECT_EQ(r.aggregates[1].real, (std::vector<double>{1.5, 2.5, 3.5}));
}

// The parts of a group-by whose groups were split by key (as across servers), appended and sorted,
// are the group-by of the whole input; a part of another shape is refused.
TEST(ReferenceGroupBy, AppendedPartsSortedAreTheWholeGroupBy) {
  const auto keys = key_columns(test_seed(), 2, 3000, 700);
  const auto values = value_column<std::int32_t>(test_seed() + 1, 3000);
  const std::vector<Aggregation> ops = {Aggregation::kSum, Aggregation::kMean};
  std::vector<std::vector<std::uint32_t>> even(2), odd(2);
  std::vector<std::int32_t> even_values, odd_values;
  for (std::size_t i = 0; i < values.size(); ++i) {
    auto& part = keys[0][i] % 2 == 0 ? even : odd;
    for (int c = 0; c < 2; ++c) part[c].push_back(keys[c][i]);
    (keys[0][i] % 2 == 0 ? even_values : odd_values).push_back(values[i]);
  }
  GroupByResult all = groupby<std::int32_t>(odd, {odd_values, odd_values}, ops);
  all.append(groupby<std::int32_t>(even, {even_values, even_values}, ops));
  EXPECT_FALSE(all.sorted_by_key());
  all.sort_by_key();
  EXPECT_TRUE(same_result(groupby<std::int32_t>(keys, {values, values}, ops), all));
  GroupByResult one_column;
  one_column.keys = {{1}};
  one_column.aggregates.resize(2);
  EXPECT_THROW(all.append(one_column), std::invalid_argument);
}

TEST(ReferenceGroupBy, SortByKeyOrdersLaterColumnsWithinEqualFirstColumns) {
  GroupByResult r;
  r.keys = {{2, 1, 2, 1}, {1, 2, 0, 1}};
  r.aggregates.resize(1);
  r.aggregates[0].exact = {21, 12, 20, 11};
  r.sort_by_key();
  EXPECT_EQ(r.aggregates[0].exact, (std::vector<std::int64_t>{11, 12, 20, 21}));
}

// The shortcut for a result in key order already (a sort-based group-by's): equal
// keys included, on several threads (more than 64Ki groups), nothing moves.
TEST(ReferenceGroupBy, SortByKeyLeavesAResultInKeyOrderAsItIs) {
  constexpr std::size_t kGroups = std::size_t{1} << 18;
  GroupByResult r;
  r.keys.resize(1);
  r.aggregates.resize(2);
  r.aggregates[1].op = Aggregation::kMean;
  for (std::size_t g = 0; g < kGroups; ++g) {
    r.keys[0].push_back(static_cast<std::uint32_t>(g / 3));  // runs of three equal keys
    r.aggregates[0].exact.push_back(static_cast<std::int64_t>(kGroups - g));
    r.aggregates[1].real.push_back(0.5 * static_cast<double>(g % 7));
  }
  ASSERT_TRUE(r.sorted_by_key());
  const GroupByResult before = r;
  r.sort_by_key();
  EXPECT_EQ(r.keys, before.keys);
  EXPECT_EQ(r.aggregates[0].exact, before.aggregates[0].exact);
  EXPECT_EQ(r.aggregates[1].real, before.aggregates[1].real);
}

TEST(ReferenceGroupBy, SortByKeySortsAResultOutOfOrderOnlyAtItsEnd) {
  GroupByResult r;
  r.keys = {{1, 2, 3, 5, 4}};
  r.aggregates.resize(1);
  r.aggregates[0].exact = {10, 20, 30, 50, 40};
  ASSERT_FALSE(r.sorted_by_key());
  r.sort_by_key();
  EXPECT_EQ(r.keys[0], (std::vector<std::uint32_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(r.aggregates[0].exact, (std::vector<std::int64_t>{10, 20, 30, 40, 50}));
}

// Several threads and every byte of the keys: the column-by-column radix sort must give the
// order of a stable sort by the whole tuple (equal tuples in group order).
TEST(ReferenceGroupBy, SortByKeyOfManyTuplesMatchesAStableSortByTheTuple) {
  const std::size_t n = 300000;
  std::mt19937 rng(static_cast<std::mt19937::result_type>(test_seed()));
  GroupByResult r;
  r.keys.assign(3, std::vector<std::uint32_t>(n));
  r.aggregates.resize(1);
  r.aggregates[0].exact.resize(n);
  for (std::size_t g = 0; g < n; ++g) {
    r.keys[0][g] = rng() % 3;                  // many ties to break by the later columns
    r.keys[1][g] = rng() % 5 * 0x01010101u;  // every byte of the key varies
    r.keys[2][g] = rng() % 100;                // some whole tuples equal
    r.aggregates[0].exact[g] = static_cast<std::int64_t>(g);
  }
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    for (const auto& column : r.keys)
      if (column[a] != column[b]) return column[a] < column[b];
    return false;
  });
  r.sort_by_key();
  ASSERT_TRUE(r.sorted_by_key());
  for (std::size_t g = 0; g < n; ++g) ASSERT_EQ(r.aggregates[0].exact[g], static_cast<std::int64_t>(order[g])) << "at " << g;
}

// ---- parse_aggregation ------------------------------------------------------------------------

TEST(ReferenceGroupBy, ParseAggregationReadsEveryName) {
  for (Aggregation op : kAllAggregations) EXPECT_EQ(parse_aggregation(to_string(op)), op);
  EXPECT_STREQ(to_string(Aggregation::kCount), "count");
}

TEST(ReferenceGroupBy, ParseAggregationRejectsUnknownNameListingTheChoices) {
  try {
    parse_aggregation("median");
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "unknown reduction 'median' (expected sum, min, max, count or mean)");
  }
  EXPECT_THROW(parse_aggregation("Sum"), std::invalid_argument);
  EXPECT_THROW(parse_aggregation(""), std::invalid_argument);
}

// ---- errors -----------------------------------------------------------------------------------

TEST(ReferenceGroupByErrors, KeysAndValuesOfDifferentLengthsAreRejected) {
  const std::string why = error_of(
      [] { groupby(std::vector<std::uint32_t>{1, 2, 3}, std::vector<double>{1.0}, Aggregation::kSum); });
  EXPECT_TRUE(mentions(why, "3 keys but 1 values"));
}

TEST(ReferenceGroupByErrors, KeyColumnsOfDifferentLengthsAreRejected) {
  const std::string why = error_of([] {
    groupby<std::int32_t>({{1, 2, 3}, {1, 2}}, {{1, 2, 3}}, {Aggregation::kSum});
  });
  EXPECT_TRUE(mentions(why, "key column 1 has 2 rows but key column 0 has 3"));
}

TEST(ReferenceGroupByErrors, ValueColumnShorterThanKeysIsRejected) {
  const std::string why = error_of([] {
    groupby<std::int32_t>({{1, 2, 3}}, {{1, 2, 3}, {1}}, {Aggregation::kSum, Aggregation::kMax});
  });
  EXPECT_TRUE(mentions(why, "value column 1 has 1 rows but the key columns have 3"));
}

TEST(ReferenceGroupByErrors, OneAggregationPerValueColumnIsRequired) {
  const std::string why =
      error_of([] { groupby<std::int32_t>({{1, 2}}, {{1, 2}, {3, 4}}, {Aggregation::kSum}); });
  EXPECT_TRUE(mentions(why, "2 value columns but 1 aggregations"));
}

TEST(ReferenceGroupByErrors, AtLeastOneKeyColumnIsRequired) {
  const std::string why = error_of([] {
    groupby(std::vector<std::vector<std::uint32_t>>{}, std::vector<std::vector<std::int32_t>>{},
            std::vector<Aggregation>{});
  });
  EXPECT_TRUE(mentions(why, "at least one key column"));
}

// ---- compare() --------------------------------------------------------------------------------

GroupByResult small_result() {
  return groupby(std::vector<std::uint32_t>{5, 3, 5, 8}, std::vector<std::int32_t>{1, 2, 3, 4}, Aggregation::kSum);
}

TEST(ReferenceGroupByCompare, EqualResultsAgreeInAnyOrder) {
  const GroupByResult expected = small_result();
  GroupByResult shuffled = expected;
  std::reverse(shuffled.keys[0].begin(), shuffled.keys[0].end());
  std::reverse(shuffled.aggregates[0].exact.begin(), shuffled.aggregates[0].exact.end());
  EXPECT_EQ(compare(expected, shuffled), "");
  EXPECT_EQ(compare(expected, expected), "");
}

TEST(ReferenceGroupByCompare, ReportsADifferentGroupCount) {
  GroupByResult actual = small_result();
  actual.keys[0].pop_back();
  actual.aggregates[0].exact.pop_back();
  EXPECT_TRUE(mentions(compare(small_result(), actual), "group count differs: expected 3 got 2"));
}

TEST(ReferenceGroupByCompare, ReportsTheFirstDifferentKeyTuple) {
  GroupByResult actual = small_result();  // keys 3, 5, 8
  actual.keys[0][2] = 9;
  EXPECT_TRUE(mentions(compare(small_result(), actual), "key tuple differs at group 2: expected (8) got (9)"));
}

TEST(ReferenceGroupByCompare, ReportsADifferentAggregateWithItsKey) {
  GroupByResult actual = small_result();  // sums 2, 4, 4
  actual.aggregates[0].exact[1] = 41;
  EXPECT_TRUE(mentions(compare(small_result(), actual), "aggregate 0 (sum) of key (5) expected 4 got 41"));
}

TEST(ReferenceGroupByCompare, ToleratesRealDifferencesWithinTheRelativeTolerance) {
  GroupByResult expected = groupby(std::vector<std::uint32_t>{1, 2}, std::vector<double>{100.0, 200.0},
                                   Aggregation::kSum);
  GroupByResult actual = expected;
  actual.aggregates[0].real[1] = 200.0 * (1 + 1e-12);
  EXPECT_EQ(compare(expected, actual), "");
  actual.aggregates[0].real[1] = 200.0 * (1 + 1e-6);
  EXPECT_TRUE(mentions(compare(expected, actual), "aggregate 0 (sum) of key (2) expected 200 got 200.000"));
  EXPECT_EQ(compare(expected, actual, 1e-5), "");
}

TEST(ReferenceGroupByCompare, ReportsMultiColumnKeysAsTuples) {
  GroupByResult expected = groupby<std::int32_t>({{1, 2}, {7, 8}}, {{10, 20}}, {Aggregation::kMax});
  GroupByResult actual = expected;
  actual.keys[1][0] = 6;
  EXPECT_TRUE(mentions(compare(expected, actual), "expected (1, 7) got (1, 6)"));
}

TEST(ReferenceGroupByCompare, ReportsADifferentKindOfAggregate) {
  GroupByResult actual = small_result();
  actual.aggregates[0].op = Aggregation::kMax;
  EXPECT_TRUE(mentions(compare(small_result(), actual), "expected sum got max"));
}

TEST(ReferenceGroupByCompare, ReportsAMalformedResult) {
  GroupByResult actual = small_result();
  actual.aggregates[0].exact.pop_back();
  EXPECT_TRUE(mentions(compare(small_result(), actual), "malformed"));
}

}  // namespace
}  // namespace hashlab::reference
