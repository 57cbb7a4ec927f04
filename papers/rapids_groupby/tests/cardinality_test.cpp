// The section 3 estimators, checked numerically on the CPU against known cardinalities, with
// tolerances from their derived standard deviations.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "hashlab/common/generator.hpp"
#include "hashlab/rapids_groupby/cardinality.hpp"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab::rapids {
namespace {

/// Rows whose key is uniform among `unique` keys (the report's assumption).
std::vector<std::uint32_t> uniform_keys(std::uint64_t rows, std::uint64_t unique, std::uint64_t seed) {
  return gen::generate_keys_host(gen::KeySpec::uniform(unique), seed, rows);
}

auto equal_in(const std::vector<std::uint32_t>& keys) {
  return [&keys](std::uint64_t a, std::uint64_t b) { return keys[a] == keys[b]; };
}

TEST(RapidsCardinality, PairEstimateWithinFourSigmaOfKnownN) {
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  for (std::uint64_t unique : {10u, 100u, 1000u, 10000u}) {
    const auto keys = uniform_keys(1000000, unique, seed + unique);
    const SampleCounts counts = sample_pairs_cpu(keys.size(), seed, equal_in(keys));
    const double estimate = estimate_from_pairs(counts, keys.size());
    const double sd = pair_estimator_relative_sd(static_cast<double>(unique), counts.trials);
    SCOPED_TRACE("unique=" + std::to_string(unique) + " estimate=" + std::to_string(estimate));
    EXPECT_LE(counts.equal_pairs, kCpuEqualPairs);
    EXPECT_NEAR(estimate / static_cast<double>(unique), 1.0, 4.0 * sd);
  }
}

TEST(RapidsCardinality, PairSamplerStopsAtTenEqualPairs) {
  const auto keys = uniform_keys(100000, 10, 7);
  const SampleCounts counts = sample_pairs_cpu(keys.size(), 7, equal_in(keys));
  EXPECT_TRUE(counts.stopped_at_target);
  EXPECT_EQ(counts.equal_pairs, kCpuEqualPairs);
  EXPECT_LT(counts.trials, cpu_pair_budget(keys.size()));
}

TEST(RapidsCardinality, PairSamplerStopsAtTheBudgetForManyKeys) {
  const auto keys = uniform_keys(100000, 100000, 9);
  const SampleCounts counts = sample_pairs_cpu(keys.size(), 9, equal_in(keys));
  EXPECT_EQ(counts.trials, cpu_pair_budget(keys.size()));
  EXPECT_FALSE(counts.stopped_at_target);
}

TEST(RapidsCardinality, PairEstimatorIsUnbiasedOverManyRuns) {
  // Mean of 200 independent estimates: its sd is the single-run sd / sqrt(200).
  const std::uint64_t unique = 500;
  const auto keys = uniform_keys(1000000, unique, 11);
  double sum = 0;
  const int runs = 200;
  std::uint64_t trials = 0;
  for (int r = 0; r < runs; ++r) {
    const SampleCounts counts = sample_pairs_cpu(keys.size(), 1000 + r, equal_in(keys));
    sum += estimate_from_pairs(counts, keys.size());
    trials = counts.trials;
  }
  const double sd = pair_estimator_relative_sd(unique, trials) / std::sqrt(runs);
  EXPECT_NEAR(sum / runs / unique, 1.0, 4.0 * sd);
}

TEST(RapidsCardinality, TripleEstimateWithinFourSigmaOfKnownN) {
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  for (std::uint64_t unique : {10u, 100u, 1000u, 10000u}) {
    const auto keys = uniform_keys(1000000, unique, seed + unique);
    const std::uint64_t trials = gpu_triple_budget(keys.size());
    const SampleCounts counts = sample_triples_cpu(keys.size(), trials, seed, equal_in(keys));
    const double estimate = estimate_from_triples(counts, keys.size());
    const double sd = triple_estimator_relative_sd(static_cast<double>(unique), trials);
    SCOPED_TRACE("unique=" + std::to_string(unique) + " estimate=" + std::to_string(estimate));
    EXPECT_NEAR(estimate / static_cast<double>(unique), 1.0, 4.0 * sd);
  }
}

TEST(RapidsCardinality, TripleSpreadMatchesTheDerivedVariance) {
  // The sample sd of 100 estimates against the derived sd (3T independent pairs): within 30%.
  const std::uint64_t unique = 2000, trials = 20000;
  const auto keys = uniform_keys(1000000, unique, 13);
  std::vector<double> estimates;
  for (int r = 0; r < 100; ++r)
    estimates.push_back(estimate_from_triples(sample_triples_cpu(keys.size(), trials, 500 + r, equal_in(keys)), keys.size()));
  double mean = 0, var = 0;
  for (double e : estimates) mean += e / estimates.size();
  for (double e : estimates) var += (e - mean) * (e - mean) / (estimates.size() - 1);
  const double measured = std::sqrt(var) / unique;
  const double derived = triple_estimator_relative_sd(unique, trials);
  EXPECT_NEAR(measured / derived, 1.0, 0.3);
  EXPECT_LT(derived, pair_estimator_relative_sd(unique, trials));  // the report's argument for triples
}

TEST(RapidsCardinality, AllDistinctRowsEstimateTheRowCount) {
  std::vector<std::uint32_t> keys(50000);
  for (std::uint32_t i = 0; i < keys.size(); ++i) keys[i] = i;
  EXPECT_EQ(estimate_from_pairs(sample_pairs_cpu(keys.size(), 1, equal_in(keys)), keys.size()), 50000.0);
  EXPECT_EQ(estimate_from_triples(sample_triples_cpu(keys.size(), 1000, 1, equal_in(keys)), keys.size()), 50000.0);
}

TEST(RapidsCardinality, TinyInputsNeedNoSamples) {
  std::vector<std::uint32_t> keys{5};
  EXPECT_EQ(cpu_pair_budget(0), 0u);
  EXPECT_EQ(cpu_pair_budget(1), 0u);
  EXPECT_EQ(gpu_triple_budget(2), 0u);
  EXPECT_EQ(estimate_from_pairs(sample_pairs_cpu(1, 1, equal_in(keys)), 1), 1.0);
  EXPECT_EQ(estimate_from_triples(SampleCounts{}, 0), 1.0);
}

TEST(RapidsCardinality, TableSizeIsTwoPointSixTimesThePrediction) {
  EXPECT_EQ(table_size_for(10000), 26000u);
  EXPECT_EQ(table_size_for(1), 3u);
  EXPECT_EQ(table_size_for(100, 1.3), 130u);
  EXPECT_THROW(table_size_for(0.5), std::invalid_argument);
  EXPECT_THROW(table_size_for(10, 0.5), std::invalid_argument);
}

}  // namespace
}  // namespace hashlab::rapids
