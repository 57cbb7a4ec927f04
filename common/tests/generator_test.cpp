// The shared data generator, through its host functions (no GPU needed): determinism, the
// promised key distributions, value ranges, pk-pk tables and the reasons validate() gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "hashlab/common/generator.hpp"
#include "hashlab/testing/gpu_test.hpp"
#include "hashlab/testing/errors.hpp"

namespace hashlab::gen {
namespace {

using hashlab::testing::error_of;
using hashlab::testing::mentions;

using hashlab::testing::test_seed;

std::size_t count_distinct(const std::vector<std::uint32_t>& keys) {
  return std::unordered_set<std::uint32_t>(keys.begin(), keys.end()).size();
}

// ---- determinism ------------------------------------------------------------------------------

TEST(Generator, SameSeedGivesSameKeysForEveryDistribution) {
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  for (const KeySpec& spec : {KeySpec::sequence(), KeySpec::shuffled_sequence(), KeySpec::unique(),
                              KeySpec::uniform(100), KeySpec::zipf(1000, 1.1)}) {
    SCOPED_TRACE(spec.describe());
    EXPECT_EQ(generate_keys_host(spec, seed, 5000), generate_keys_host(spec, seed, 5000));
  }
}

TEST(Generator, DifferentSeedsGiveDifferentKeys) {
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  for (const KeySpec& spec :
       {KeySpec::shuffled_sequence(), KeySpec::unique(), KeySpec::uniform(100), KeySpec::zipf(1000, 1.1)}) {
    SCOPED_TRACE(spec.describe());
    EXPECT_NE(generate_keys_host(spec, seed, 5000), generate_keys_host(spec, seed + 1, 5000));
  }
}

TEST(Generator, SameSeedGivesSameValuesAndDifferentSeedsDiffer) {
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  const auto a = generate_values_host<double>(seed, -1.0, 1.0, 5000);
  EXPECT_EQ(a, generate_values_host<double>(seed, -1.0, 1.0, 5000));
  EXPECT_NE(a, generate_values_host<double>(seed + 1, -1.0, 1.0, 5000));
  const auto b = generate_values_host<std::uint32_t>(seed, 0u, 1000000u, 5000);
  EXPECT_EQ(b, generate_values_host<std::uint32_t>(seed, 0u, 1000000u, 5000));
  EXPECT_NE(b, generate_values_host<std::uint32_t>(seed + 1, 0u, 1000000u, 5000));
}

TEST(Generator, ALongerColumnStartsWithTheShorterOne) {
  // Row i's value depends on (seed, i) only, so a prefix of a dataset is a smaller dataset.
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  const auto shorter = generate_values_host<std::uint32_t>(seed, 0u, 0xffffffffu, 1001);
  const auto longer = generate_values_host<std::uint32_t>(seed, 0u, 0xffffffffu, 4000);
  EXPECT_TRUE(std::equal(shorter.begin(), shorter.end(), longer.begin()));
}

TEST(Generator, ZeroRowsGiveEmptyColumns) {
  EXPECT_TRUE(generate_keys_host(KeySpec::uniform(10), test_seed(), 0).empty());
  EXPECT_TRUE(generate_values_host<float>(test_seed(), 0.0f, 1.0f, 0).empty());
  EXPECT_TRUE(generate_key_columns_host(KeySpec::uniform(10), test_seed(), 3, 0).empty());
}

// ---- key distributions ------------------------------------------------------------------------

TEST(Generator, SequenceIsZeroToNMinusOneInOrder) {
  const auto keys = generate_keys_host(KeySpec::sequence(), test_seed(), 1000);
  std::vector<std::uint32_t> expected(1000);
  std::iota(expected.begin(), expected.end(), 0u);
  EXPECT_EQ(keys, expected);
}

TEST(Generator, ShuffledSequenceIsAPermutationOfZeroToNMinusOne) {
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  for (std::size_t n : {1u, 2u, 7u, 100u, 1000u, 65537u}) {
    auto keys = generate_keys_host(KeySpec::shuffled_sequence(), seed, n);
    std::sort(keys.begin(), keys.end());
    std::vector<std::uint32_t> expected(n);
    std::iota(expected.begin(), expected.end(), 0u);
    EXPECT_EQ(keys, expected) << "n=" << n;
  }
}

TEST(Generator, ShuffledSequenceIsNotTheIdentity) {
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  for (std::size_t n : {100u, 1000u, 100000u}) {
    const auto keys = generate_keys_host(KeySpec::shuffled_sequence(), seed, n);
    std::size_t fixed_points = 0;
    for (std::size_t i = 0; i < n; ++i) fixed_points += keys[i] == i;
    EXPECT_LT(fixed_points, n / 10) << "n=" << n;  // a random permutation has about 1
  }
}

TEST(Generator, UniqueKeysAreDistinctBelowTheDomainAndNeverReserved) {
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  const auto keys = generate_keys_host(KeySpec::unique(), seed, 200000);
  EXPECT_EQ(count_distinct(keys), keys.size());
  EXPECT_EQ(std::count(keys.begin(), keys.end(), kEmptyKey), 0);

  const auto small = generate_keys_host(KeySpec::unique(5000), seed, 4000);
  EXPECT_EQ(count_distinct(small), small.size());
  EXPECT_LT(*std::max_element(small.begin(), small.end()), 5000u);
}

TEST(Generator, UniqueKeysCanFillTheWholeDomain) {
  auto keys = generate_keys_host(KeySpec::unique(777), test_seed(), 777);
  std::sort(keys.begin(), keys.end());
  std::vector<std::uint32_t> expected(777);
  std::iota(expected.begin(), expected.end(), 0u);
  EXPECT_EQ(keys, expected);
}

TEST(Generator, UniformHasExactlyMinOfRowsAndDistinctKeys) {
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  struct Case {
    std::size_t n;
    std::uint64_t k;
  };
  for (const Case c : {Case{1000, 10}, Case{1000, 1}, Case{100, 1000}, Case{1000, 1000}, Case{12345, 777},
                       Case{1, 5}, Case{50000, 49999}}) {
    const KeySpec spec = KeySpec::uniform(c.k);
    const auto keys = generate_keys_host(spec, seed, c.n);
    EXPECT_EQ(count_distinct(keys), std::min<std::uint64_t>(c.n, c.k)) << "n=" << c.n << " k=" << c.k;
    EXPECT_EQ(spec.distinct_keys(c.n), std::min<std::uint64_t>(c.n, c.k));
    EXPECT_EQ(std::count(keys.begin(), keys.end(), kEmptyKey), 0);
  }
}

TEST(Generator, UniformKeysStayInsideASmallDomain) {
  const auto keys = generate_keys_host(KeySpec::uniform(50, /*domain=*/64), test_seed(), 10000);
  EXPECT_EQ(count_distinct(keys), 50u);
  EXPECT_LT(*std::max_element(keys.begin(), keys.end()), 64u);
}

TEST(Generator, MultiplicityGivesCeilingOfRowsOverMultiplicityDistinctKeys) {
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  struct Case {
    std::size_t n;
    double m;
    std::uint64_t distinct;
  };
  for (const Case c : {Case{1000, 3.0, 334}, Case{1000, 1.0, 1000}, Case{1000, 1000.0, 1}, Case{1000, 5000.0, 1},
                       Case{999, 2.5, 400}}) {
    const KeySpec spec = KeySpec::multiplicity(c.n, c.m);
    EXPECT_EQ(spec.distinct, c.distinct) << "n=" << c.n << " m=" << c.m;
    EXPECT_EQ(count_distinct(generate_keys_host(spec, seed, c.n)), c.distinct) << "n=" << c.n << " m=" << c.m;
  }
}

TEST(Generator, MultiplicityBelowOneIsRejected) {
  EXPECT_THROW(KeySpec::multiplicity(1000, 0.5), std::invalid_argument);
}

TEST(Generator, ZipfMostFrequentKeyHasItsShareOfRows) {
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  constexpr std::size_t kRows = 1000000;
  constexpr std::uint64_t kKeys = 1000;
  const auto keys = generate_keys_host(KeySpec::zipf(kKeys, 1.0), seed, kRows);
  std::unordered_map<std::uint32_t, std::size_t> counts;
  for (std::uint32_t k : keys) ++counts[k];
  std::vector<std::size_t> sorted;
  for (const auto& entry : counts) sorted.push_back(entry.second);
  std::sort(sorted.rbegin(), sorted.rend());

  double harmonic = 0;  // H(k, s) = sum over ranks r of 1 / r^s
  for (std::uint64_t r = 1; r <= kKeys; ++r) harmonic += 1.0 / static_cast<double>(r);
  for (int rank = 1; rank <= 3; ++rank) {
    const double p = 1.0 / (rank * harmonic);
    const double expected = kRows * p;
    const double sigma = std::sqrt(kRows * p * (1 - p));
    EXPECT_NEAR(static_cast<double>(sorted[rank - 1]), expected, 5 * sigma) << "rank " << rank;
  }
  EXPECT_LE(counts.size(), kKeys);
}

TEST(Generator, ZipfWithExponentZeroIsRoughlyUniform) {
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  constexpr std::size_t kRows = 100000;
  constexpr std::uint64_t kKeys = 100;
  const auto keys = generate_keys_host(KeySpec::zipf(kKeys, 0.0), seed, kRows);
  std::unordered_map<std::uint32_t, std::size_t> counts;
  for (std::uint32_t k : keys) ++counts[k];
  EXPECT_EQ(counts.size(), kKeys);
  const double expected = static_cast<double>(kRows) / kKeys;
  const double sigma = std::sqrt(expected * (1 - 1.0 / kKeys));
  for (const auto& entry : counts) EXPECT_NEAR(static_cast<double>(entry.second), expected, 5 * sigma);
}

TEST(Generator, MultiColumnTuplesAreDistinctPerGroupWhileColumnsRepeat) {
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  constexpr std::size_t kRows = 50000;
  constexpr std::uint64_t kGroups = 10000;
  const auto keys = generate_key_columns_host(KeySpec::uniform(kGroups), seed, 2, kRows);
  ASSERT_EQ(keys.size(), 2 * kRows);
  std::set<std::pair<std::uint32_t, std::uint32_t>> tuples;
  std::set<std::uint32_t> first, second;
  for (std::size_t i = 0; i < kRows; ++i) {
    tuples.insert({keys[i], keys[kRows + i]});
    first.insert(keys[i]);
    second.insert(keys[kRows + i]);
  }
  EXPECT_EQ(tuples.size(), kGroups);
  EXPECT_LT(first.size(), kGroups);
  EXPECT_LT(second.size(), kGroups);
  EXPECT_EQ(first.count(kEmptyKey) + second.count(kEmptyKey), 0u);
}

TEST(Generator, OneKeyColumnEqualsGenerateKeys) {
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  EXPECT_EQ(generate_key_columns_host(KeySpec::uniform(300), seed, 1, 2000),
            generate_keys_host(KeySpec::uniform(300), seed, 2000));
}

TEST(Generator, ParsesEveryDistributionNameAndRejectsOthers) {
  for (auto d : {KeyDistribution::kSequence, KeyDistribution::kShuffledSequence, KeyDistribution::kUniqueRandom,
                 KeyDistribution::kUniform, KeyDistribution::kZipf})
    EXPECT_EQ(parse_key_distribution(to_string(d)), d);
  EXPECT_TRUE(mentions(error_of([] { parse_key_distribution("gaussian"); }), "gaussian"));
}

// ---- values -----------------------------------------------------------------------------------

template <class T>
class GeneratorValues : public ::testing::Test {};

using ValueTypes = ::testing::Types<std::uint32_t, std::int32_t, std::int64_t, float, double>;
TYPED_TEST_SUITE(GeneratorValues, ValueTypes);

/// A range of each type that stresses it: negative and positive, or beyond 32 bits.
template <class T>
std::pair<T, T> stress_range() {
  if constexpr (std::is_same_v<T, std::uint32_t>) return {10u, 4000000000u};
  else if constexpr (std::is_same_v<T, std::int32_t>) return {-500, 500};
  else if constexpr (std::is_same_v<T, std::int64_t>) return {1000000000000ll, 1000000000000ll + 4000000000ll};
  else if constexpr (std::is_same_v<T, float>) return {-1.5f, 2.5f};
  else return {-1e6, 1e6};
}

TYPED_TEST(GeneratorValues, LieWithinTheClosedRange) {
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  const auto [lo, hi] = stress_range<TypeParam>();
  const auto values = generate_values_host<TypeParam>(seed, lo, hi, 100000);
  ASSERT_EQ(values.size(), 100000u);
  const auto [min, max] = std::minmax_element(values.begin(), values.end());
  EXPECT_GE(*min, lo);
  EXPECT_LE(*max, hi);
  // Uniform over the range: the extremes come close to the ends.
  const double span = static_cast<double>(hi) - static_cast<double>(lo);
  EXPECT_LT(static_cast<double>(*min) - static_cast<double>(lo), span / 1000);
  EXPECT_LT(static_cast<double>(hi) - static_cast<double>(*max), span / 1000);
}

TYPED_TEST(GeneratorValues, EqualBoundsGiveAConstantColumn) {
  const TypeParam v = stress_range<TypeParam>().second;
  const auto values = generate_values_host<TypeParam>(test_seed(), v, v, 1000);
  EXPECT_TRUE(std::all_of(values.begin(), values.end(), [&](TypeParam x) { return x == v; }));
}

TYPED_TEST(GeneratorValues, LowAboveHighIsRejected) {
  const auto [lo, hi] = stress_range<TypeParam>();
  EXPECT_THROW(generate_values_host<TypeParam>(test_seed(), hi, lo, 10), std::invalid_argument);
}

TEST(Generator, FullUint32RangeIsAllowedButWiderIntegerRangesAreNot) {
  const auto values = generate_values_host<std::uint32_t>(test_seed(), 0u, 0xffffffffu, 1000);
  EXPECT_EQ(values.size(), 1000u);
  EXPECT_THROW(generate_values_host<std::int64_t>(test_seed(), 0, std::int64_t{1} << 33, 10), std::invalid_argument);
}

// ---- pk-pk tables -----------------------------------------------------------------------------

TEST(Generator, PkPkTablesHaveUniqueKeysAndExactlyTheRequestedMatches) {
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  for (double rate : {0.0, 0.3, 1.0}) {
    PkPkSpec spec;
    spec.r_rows = 1500;
    spec.s_rows = 1000;
    spec.key_domain = 10000;
    spec.match_rate = rate;
    std::vector<std::uint32_t> r, s;
    generate_pkpk_host(spec, seed, r, s);
    ASSERT_EQ(r.size(), spec.r_rows);
    ASSERT_EQ(s.size(), spec.s_rows);
    const std::unordered_set<std::uint32_t> r_set(r.begin(), r.end()), s_set(s.begin(), s.end());
    EXPECT_EQ(r_set.size(), r.size()) << "rate " << rate;
    EXPECT_EQ(s_set.size(), s.size()) << "rate " << rate;
    std::size_t common = 0;
    for (std::uint32_t key : s) common += r_set.count(key);
    EXPECT_EQ(common, spec.matches()) << "rate " << rate;
    EXPECT_LT(*std::max_element(r.begin(), r.end()), spec.key_domain);
    EXPECT_LT(*std::max_element(s.begin(), s.end()), spec.key_domain);
  }
}

TEST(Generator, PkPkMatchesRoundsTheRateTimesRows) {
  PkPkSpec spec;
  spec.s_rows = 1000;
  spec.r_rows = 1000;
  spec.match_rate = 0.3;
  EXPECT_EQ(spec.matches(), 300u);
  spec.match_rate = 0.0;
  EXPECT_EQ(spec.matches(), 0u);
  spec.match_rate = 1.0;
  EXPECT_EQ(spec.matches(), 1000u);
}

TEST(Generator, PkPkIsDeterministicBySeed) {
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  PkPkSpec spec;
  spec.r_rows = 500;
  spec.s_rows = 700;
  spec.match_rate = 0.5;
  std::vector<std::uint32_t> r1, s1, r2, s2, r3, s3;
  generate_pkpk_host(spec, seed, r1, s1);
  generate_pkpk_host(spec, seed, r2, s2);
  generate_pkpk_host(spec, seed + 1, r3, s3);
  EXPECT_EQ(r1, r2);
  EXPECT_EQ(s1, s2);
  EXPECT_NE(r1, r3);
}

// ---- validate() -------------------------------------------------------------------------------

TEST(GeneratorValidate, RejectsMoreDistinctKeysThanTheDomainHolds) {
  const std::string why = error_of([] { validate(KeySpec::uniform(1000, /*domain=*/100), 5000); });
  EXPECT_TRUE(mentions(why, "domain holds only 100"));
  EXPECT_TRUE(mentions(error_of([] { validate(KeySpec::unique(10), 11); }), "domain holds only 10"));
  EXPECT_THROW(generate_keys_host(KeySpec::unique(10), test_seed(), 11), std::invalid_argument);
}

TEST(GeneratorValidate, RejectsAZipfTableTooLarge) {
  EXPECT_TRUE(mentions(error_of([] { validate(KeySpec::zipf(kMaxZipfKeys + 1, 1.0), 1000); }),
                  "Zipf keys are limited"));
}

TEST(GeneratorValidate, RejectsANegativeZipfExponent) {
  EXPECT_TRUE(mentions(error_of([] { validate(KeySpec::zipf(100, -1.0), 1000); }), "exponent"));
}

TEST(GeneratorValidate, RejectsKeyColumnCountsOutsideOneToEight) {
  for (int columns : {0, 9}) {
    const std::string why = error_of([&] { validate(KeySpec::uniform(10), 100, columns); });
    EXPECT_TRUE(mentions(why, "key columns must be between 1 and 8"));
  }
  EXPECT_NO_THROW(validate(KeySpec::uniform(10), 100, 8));
}

TEST(GeneratorValidate, RejectsAMatchRateAboveOne) {
  PkPkSpec spec;
  spec.r_rows = 100;
  spec.s_rows = 100;
  spec.match_rate = 1.5;
  EXPECT_TRUE(mentions(error_of([&] { validate(spec); }), "match rate must lie in [0, 1]"));
}

TEST(GeneratorValidate, RejectsAPkPkDomainTooSmallForBothTables) {
  PkPkSpec spec;
  spec.r_rows = 100;
  spec.s_rows = 100;
  spec.key_domain = 150;
  spec.match_rate = 0.0;  // needs 200 distinct keys
  EXPECT_TRUE(mentions(error_of([&] { validate(spec); }), "domain holds only 150"));
  std::vector<std::uint32_t> r, s;
  EXPECT_THROW(generate_pkpk_host(spec, test_seed(), r, s), std::invalid_argument);
}

TEST(GeneratorValidate, RejectsAMatchRateNeedingMoreKeysThanRHas) {
  PkPkSpec spec;
  spec.r_rows = 10;
  spec.s_rows = 100;
  spec.match_rate = 0.5;  // 50 matches, R has 10 keys
  EXPECT_TRUE(mentions(error_of([&] { validate(spec); }), "which has 10"));
}

}  // namespace
}  // namespace hashlab::gen
