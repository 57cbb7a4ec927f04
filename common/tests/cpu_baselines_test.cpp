// The multi-threaded CPU baselines give exactly the references' results: every size (0, 1, tiny,
// large), thread count (1, 2, 3, 8, more threads than rows), aggregation and value type, on
// few groups and on many (both group-by strategies), skewed keys and the reserved key.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "hashlab/common/generator.hpp"
#include "hashlab/reference/cpu_baselines.hpp"
#include "hashlab/reference/groupby.hpp"
#include "hashlab/reference/join.hpp"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab::cpu {
namespace {

using hashlab::testing::test_seed;
using reference::Aggregation;
using reference::GroupByResult;

constexpr Aggregation kAllAggregations[] = {Aggregation::kSum, Aggregation::kMin, Aggregation::kMax,
                                           Aggregation::kCount, Aggregation::kMean};

/// Bit-for-bit equality (reals too: the baseline promises the reference's rounding), with the
/// first difference as compare() reports it.
::testing::AssertionResult identical(const GroupByResult& expected, const GroupByResult& actual) {
  const std::string difference = reference::compare(expected, actual, /*rel_tol=*/0.0);
  if (!difference.empty()) return ::testing::AssertionFailure() << difference;
  if (expected.keys != actual.keys) return ::testing::AssertionFailure() << "keys are not in the same order";
  for (std::size_t v = 0; v < expected.aggregates.size(); ++v) {
    const auto& e = expected.aggregates[v];
    const auto& a = actual.aggregates[v];
    if (e.exact != a.exact || e.real.size() != a.real.size())
      return ::testing::AssertionFailure() << "aggregate " << v << " differs in kind or order";
    for (std::size_t g = 0; g < e.real.size(); ++g)
      if (std::signbit(e.real[g]) != std::signbit(a.real[g]))
        return ::testing::AssertionFailure() << "aggregate " << v << " of group " << g << " differs in sign";
  }
  return ::testing::AssertionSuccess();
}

template <class V>
std::vector<V> values_for(std::uint64_t seed, std::size_t n) {
  if constexpr (std::is_same_v<V, std::uint32_t>) return gen::generate_values_host<V>(seed, 0u, 4000000000u, n);
  else if constexpr (std::is_integral_v<V>) return gen::generate_values_host<V>(seed, V(-100000), V(100000), n);
  else return gen::generate_values_host<V>(seed, V(-1000), V(1000), n);
}

// ---- group-by over sizes x thread counts ------------------------------------------------------

// The group estimate that picks parallel_groupby's strategy: a table in key order (TPC-H's
// lineitem by orderkey: 4 rows per key) and keys repeating with a period look to the sample as
// they are, and a random input is estimated within a few percent.
TEST(GroupEstimate, SortedPeriodicAndRandomKeysAreEstimatedAsTheyAre) {
  const std::size_t n = 6000000;
  std::vector<std::uint32_t> sorted(n), periodic(n), random;
  for (std::size_t i = 0; i < n; ++i) {
    sorted[i] = static_cast<std::uint32_t>(i / 4);        // 1.5M groups
    periodic[i] = static_cast<std::uint32_t>(i % 91);     // 91 groups, a period that divides no window
  }
  EXPECT_GE(estimate_groups(sorted.data(), n), std::size_t{1000000});
  const std::size_t few = estimate_groups(periodic.data(), n);
  EXPECT_GE(few, 85u);
  EXPECT_LE(few, 100u);
  random = gen::generate_keys_host(gen::KeySpec::uniform(20000), test_seed(), n);
  const double estimate = static_cast<double>(estimate_groups(random.data(), n));
  EXPECT_NEAR(estimate / 20000, 1.0, 0.05);
  EXPECT_EQ(estimate_groups(sorted.data(), 1000), 250u);  // up to 65536 rows: exact
}

using SizeAndThreads = std::tuple<std::size_t, unsigned>;

class ParallelGroupBy : public ::testing::TestWithParam<SizeAndThreads> {};

TEST_P(ParallelGroupBy, EveryAggregationEqualsReferenceOnFewGroups) {
  const auto [n, threads] = GetParam();
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  const auto keys = gen::generate_keys_host(gen::KeySpec::uniform(n / 50 + 1), seed, n);
  const auto values = values_for<std::int32_t>(seed + 1, n);
  for (Aggregation op : kAllAggregations)
    EXPECT_TRUE(identical(reference::groupby(keys, values, op), parallel_groupby(keys, values, op, threads)))
        << reference::to_string(op);
}

TEST_P(ParallelGroupBy, EveryAggregationEqualsReferenceOnManyGroups) {
  const auto [n, threads] = GetParam();
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  const auto keys = gen::generate_keys_host(gen::KeySpec::uniform(n / 2 + 1), seed, n);
  const auto values = values_for<double>(seed + 1, n);
  for (Aggregation op : kAllAggregations)
    EXPECT_TRUE(identical(reference::groupby(keys, values, op), parallel_groupby(keys, values, op, threads)))
        << reference::to_string(op);
}

TEST_P(ParallelGroupBy, OneKeyRepeatedEqualsReference) {
  const auto [n, threads] = GetParam();
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  const std::vector<std::uint32_t> keys(n, 123456u);
  const auto values = values_for<float>(seed, n);
  for (Aggregation op : kAllAggregations)
    EXPECT_TRUE(identical(reference::groupby(keys, values, op), parallel_groupby(keys, values, op, threads)))
        << reference::to_string(op);
}

TEST_P(ParallelGroupBy, OneHeavyKeyAmongUniqueKeysEqualsReference) {
  const auto [n, threads] = GetParam();
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  auto keys = gen::generate_keys_host(gen::KeySpec::unique(), seed, n);
  for (std::size_t i = 0; i < n; i += 2) keys[i] = 77u;  // half the rows in one group
  const auto values = values_for<std::int64_t>(seed + 1, n);
  for (Aggregation op : kAllAggregations)
    EXPECT_TRUE(identical(reference::groupby(keys, values, op), parallel_groupby(keys, values, op, threads)))
        << reference::to_string(op);
}

std::string size_and_threads_name(const ::testing::TestParamInfo<SizeAndThreads>& info) {
  return "rows" + std::to_string(std::get<0>(info.param)) + "_threads" + std::to_string(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(SizesAndThreads, ParallelGroupBy,
                         ::testing::Combine(::testing::Values<std::size_t>(0, 1, 7, 1000, 100000),
                                            ::testing::Values(1u, 2u, 3u, 8u)),
                         size_and_threads_name);

// ---- group-by: value types and particular inputs ----------------------------------------------

template <class V>
class ParallelGroupByTyped : public ::testing::Test {};

using ValueTypes = ::testing::Types<std::int32_t, std::uint32_t, std::int64_t, float, double>;
TYPED_TEST_SUITE(ParallelGroupByTyped, ValueTypes);

TYPED_TEST(ParallelGroupByTyped, EveryAggregationEqualsReferenceBitForBit) {
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  for (std::uint64_t groups : {3u, 5000u, 60000u}) {
    const auto keys = gen::generate_keys_host(gen::KeySpec::uniform(groups), seed, 120000);
    const auto values = values_for<TypeParam>(seed + 1, keys.size());
    for (Aggregation op : kAllAggregations)
      for (unsigned threads : {1u, 3u, 8u})
        EXPECT_TRUE(identical(reference::groupby(keys, values, op), parallel_groupby(keys, values, op, threads)))
            << reference::to_string(op) << " groups=" << groups << " threads=" << threads;
  }
}

TYPED_TEST(ParallelGroupByTyped, ZipfKeysEqualReference) {
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  const auto keys = gen::generate_keys_host(gen::KeySpec::zipf(100000, 1.2), seed, 200000);
  const auto values = values_for<TypeParam>(seed + 1, keys.size());
  for (Aggregation op : kAllAggregations)
    EXPECT_TRUE(identical(reference::groupby(keys, values, op), parallel_groupby(keys, values, op, 4)))
        << reference::to_string(op);
}

TEST(ParallelGroupByInputs, ReservedKeyIsAnOrdinaryKey) {
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  for (std::uint64_t groups : {10u, 50000u}) {
    auto keys = gen::generate_keys_host(gen::KeySpec::uniform(groups), seed, 100000);
    for (std::size_t i = 0; i < keys.size(); i += 3) keys[i] = 0xffffffffu;
    const auto values = values_for<std::int32_t>(seed + 1, keys.size());
    for (Aggregation op : kAllAggregations)
      EXPECT_TRUE(identical(reference::groupby(keys, values, op), parallel_groupby(keys, values, op, 3)))
          << reference::to_string(op) << " groups=" << groups;
  }
}

TEST(ParallelGroupByInputs, RareKeysHiddenFromASampleEqualReference) {
  // Every row that a sample of the input might look at carries key 1, every other row a key of
  // its own: a group-by that trusts a sample to expect few groups must still get this right.
  constexpr std::size_t kRows = 1u << 20;
  std::vector<std::uint32_t> keys(kRows);
  for (std::size_t i = 0; i < kRows; ++i) keys[i] = i % 16384 < 2048 ? 1u : static_cast<std::uint32_t>(i);
  const auto values = values_for<std::uint32_t>(test_seed(), kRows);
  for (Aggregation op : {Aggregation::kSum, Aggregation::kMax})
    EXPECT_TRUE(identical(reference::groupby(keys, values, op), parallel_groupby(keys, values, op, 2)))
        << reference::to_string(op);
}

TEST(ParallelGroupByInputs, FloatSumOfManyRowsPerGroupRoundsLikeReference) {
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  const auto keys = gen::generate_keys_host(gen::KeySpec::uniform(7), seed, 300000);
  const auto values = gen::generate_values_host<float>(seed + 1, -1e7f, 1e7f, keys.size());
  for (Aggregation op : {Aggregation::kSum, Aggregation::kMean})
    for (unsigned threads : {2u, 3u, 8u})
      EXPECT_TRUE(identical(reference::groupby(keys, values, op), parallel_groupby(keys, values, op, threads)))
          << reference::to_string(op) << " threads=" << threads;
}

TEST(ParallelGroupByInputs, MinAndMaxSkipNaNLikeReference) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::uint32_t> keys;
  std::vector<double> values;
  for (std::size_t i = 0; i < 100000; ++i) {  // NaNs at the start of some threads' chunks
    keys.push_back(static_cast<std::uint32_t>(i % 5));
    values.push_back(i % 7 == 0 || i % 33333 < 10 ? nan : static_cast<double>(i % 1000));
  }
  for (Aggregation op : {Aggregation::kMin, Aggregation::kMax})
    for (unsigned threads : {1u, 3u, 8u})
      EXPECT_TRUE(identical(reference::groupby(keys, values, op), parallel_groupby(keys, values, op, threads)))
          << reference::to_string(op) << " threads=" << threads;
}

TEST(ParallelGroupByInputs, DefaultThreadCountEqualsReference) {
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  const auto keys = gen::generate_keys_host(gen::KeySpec::uniform(1000), seed, 50000);
  const auto values = values_for<double>(seed + 1, keys.size());
  EXPECT_TRUE(identical(reference::groupby(keys, values, Aggregation::kSum),
                        parallel_groupby(keys, values, Aggregation::kSum)));
  EXPECT_GE(default_threads(), 1u);
}

TEST(ParallelGroupByInputs, KeysAndValuesOfDifferentLengthsAreRejected) {
  EXPECT_THROW(parallel_groupby(std::vector<std::uint32_t>{1, 2}, std::vector<float>{1.0f}, Aggregation::kSum),
               std::invalid_argument);
}

// ---- joins ------------------------------------------------------------------------------------

/// Keys with repeats from a small domain, so that two tables drawn with different seeds share keys.
std::vector<std::uint32_t> keys_with_repeats(std::uint64_t seed, std::size_t n) {
  const std::uint64_t distinct = n / 3 + 1;
  return gen::generate_keys_host(gen::KeySpec::uniform(distinct, /*domain=*/distinct + n / 2 + 1), seed, n);
}

class ParallelJoin : public ::testing::TestWithParam<SizeAndThreads> {};

TEST_P(ParallelJoin, CountEqualsReference) {
  const auto [n, threads] = GetParam();
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  const auto r = keys_with_repeats(seed, n);
  const auto s = keys_with_repeats(seed + 1, n + n / 3);
  EXPECT_EQ(parallel_join_count(r, s, threads), reference::inner_join_count(r, s));
  EXPECT_EQ(parallel_join_count(s, r, threads), reference::inner_join_count(s, r));
}

TEST_P(ParallelJoin, PairsEqualReference) {
  const auto [n, threads] = GetParam();
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  const auto r = keys_with_repeats(seed, n);
  const auto s = keys_with_repeats(seed + 1, n + n / 3);
  EXPECT_EQ(parallel_join(r, s, threads), reference::inner_join(r, s));
  EXPECT_EQ(parallel_join(s, r, threads), reference::inner_join(s, r));
}

TEST_P(ParallelJoin, UniqueKeysEqualReference) {
  const auto [n, threads] = GetParam();
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  gen::PkPkSpec spec;
  spec.r_rows = n;
  spec.s_rows = n;
  spec.match_rate = 0.5;
  std::vector<std::uint32_t> r, s;
  gen::generate_pkpk_host(spec, seed, r, s);
  EXPECT_EQ(parallel_join_count(r, s, threads), spec.matches());
  EXPECT_EQ(parallel_join(r, s, threads), reference::inner_join(r, s));
}

TEST_P(ParallelJoin, OneKeyRepeatedOnBothSidesEqualsReference) {
  const auto [n, threads] = GetParam();
  const std::size_t rows = std::min<std::size_t>(n, 300);  // rows^2 pairs
  const std::vector<std::uint32_t> r(rows, 42u);
  const std::vector<std::uint32_t> s(rows + 1, 42u);
  EXPECT_EQ(parallel_join_count(r, s, threads), rows * (rows + 1));
  EXPECT_EQ(parallel_join(r, s, threads), reference::inner_join(r, s));
}

INSTANTIATE_TEST_SUITE_P(SizesAndThreads, ParallelJoin,
                         ::testing::Combine(::testing::Values<std::size_t>(0, 1, 7, 1000, 100000),
                                            ::testing::Values(1u, 2u, 3u, 8u)),
                         size_and_threads_name);

TEST(ParallelJoinInputs, SmallBuildSideAndLargeProbeSideEqualReference) {
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  const auto r = keys_with_repeats(seed, 100);
  auto s = gen::generate_keys_host(gen::KeySpec::uniform(80, /*domain=*/200), seed + 1, 200000);
  for (unsigned threads : {1u, 2u, 8u}) {
    EXPECT_EQ(parallel_join_count(r, s, threads), reference::inner_join_count(r, s)) << "threads=" << threads;
    EXPECT_EQ(parallel_join(r, s, threads), reference::inner_join(r, s)) << "threads=" << threads;
  }
}

TEST(ParallelJoinInputs, SkewedProbeSideEqualsReference) {
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  const auto r = gen::generate_keys_host(gen::KeySpec::unique(200000), seed, 100000);
  const auto s = gen::generate_keys_host(gen::KeySpec::zipf(200000, 1.5, 200000), seed + 1, 150000);
  EXPECT_EQ(parallel_join_count(r, s, 4), reference::inner_join_count(r, s));
  EXPECT_EQ(parallel_join(r, s, 4), reference::inner_join(r, s));
}

TEST(ParallelJoinInputs, ReservedKeyJoinsLikeAnyOther) {
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  auto r = keys_with_repeats(seed, 50000);
  auto s = keys_with_repeats(seed + 1, 60000);
  for (std::size_t i = 0; i < r.size(); i += 1000) r[i] = 0xffffffffu;
  for (std::size_t j = 0; j < s.size(); j += 777) s[j] = 0xffffffffu;
  for (unsigned threads : {1u, 3u}) {
    EXPECT_EQ(parallel_join_count(r, s, threads), reference::inner_join_count(r, s));
    EXPECT_EQ(parallel_join(r, s, threads), reference::inner_join(r, s));
  }
  const std::vector<std::uint32_t> tiny = {0xffffffffu, 0xffffffffu};
  EXPECT_EQ(parallel_join_count(tiny, tiny, 2), 4u);
  EXPECT_EQ(parallel_join(tiny, tiny, 2), reference::inner_join(tiny, tiny));
}

TEST(ParallelJoinInputs, DefaultThreadCountEqualsReference) {
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  const auto r = keys_with_repeats(seed, 30000);
  const auto s = keys_with_repeats(seed + 1, 30000);
  EXPECT_EQ(parallel_join_count(r, s), reference::inner_join_count(r, s));
  EXPECT_EQ(parallel_join(r, s), reference::inner_join(r, s));
}

}  // namespace
}  // namespace hashlab::cpu
