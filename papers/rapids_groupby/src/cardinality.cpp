// Cardinality estimators of section 3 (derivations in cardinality.hpp and README.md).
#include "hashlab/rapids_groupby/cardinality.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

#include "sampling.hpp"

namespace hashlab::rapids {
namespace {

double clamp_estimate(double estimate, std::uint64_t rows) {
  return std::clamp(estimate, 1.0, std::max(1.0, static_cast<double>(rows)));
}

std::uint64_t budget(std::uint64_t rows, std::uint64_t floor) {
  if (rows < 2) return 0;
  const auto share = static_cast<std::uint64_t>(std::ceil(kSampleFraction * static_cast<double>(rows)));
  return std::max(share, floor);
}

void check_rows(std::uint64_t rows) {
  if (rows > 0xffffffffull)
    throw std::invalid_argument("rapids cardinality sampling: " + std::to_string(rows) +
                                " rows exceed the sampler's 32-bit row numbers");
}

}  // namespace

double estimate_from_pairs(const SampleCounts& counts, std::uint64_t rows) {
  if (counts.equal_pairs == 0) return clamp_estimate(static_cast<double>(rows), rows);
  return clamp_estimate(static_cast<double>(counts.trials) / static_cast<double>(counts.equal_pairs), rows);
}

double estimate_from_triples(const SampleCounts& counts, std::uint64_t rows) {
  if (counts.equal_pairs == 0) return clamp_estimate(static_cast<double>(rows), rows);
  return clamp_estimate(3.0 * static_cast<double>(counts.trials) / static_cast<double>(counts.equal_pairs), rows);
}

double pair_estimator_relative_sd(double n_unique, std::uint64_t trials) {
  const double p = 1.0 / n_unique;
  const double expected_equal = static_cast<double>(trials) * p;
  // Stopping at the 10th equal pair caps the number of successes the estimate rests on.
  return std::sqrt((1.0 - p) / std::min(expected_equal, static_cast<double>(kCpuEqualPairs)));
}

double triple_estimator_relative_sd(double n_unique, std::uint64_t trials) {
  const double p = 1.0 / n_unique;
  return std::sqrt((1.0 - p) / (3.0 * static_cast<double>(trials) * p));
}

std::uint64_t cpu_pair_budget(std::uint64_t rows) { return budget(rows, kMinCpuPairs); }
std::uint64_t gpu_triple_budget(std::uint64_t rows) { return rows < 3 ? 0 : budget(rows, kMinGpuTriples); }

SampleCounts sample_pairs_cpu(std::uint64_t rows, std::uint64_t seed,
                              const std::function<bool(std::uint64_t, std::uint64_t)>& rows_equal) {
  check_rows(rows);
  SampleCounts counts;
  const std::uint64_t limit = cpu_pair_budget(rows);
  std::mt19937 rng(static_cast<std::mt19937::result_type>(hash::splitmix64(seed)));
  while (counts.trials < limit) {
    std::uint32_t a = 0, b = 0;
    const std::uint32_t w0 = rng(), w1 = rng();
    detail::distinct_pair(w0, w1, static_cast<std::uint32_t>(rows), a, b);
    ++counts.trials;
    if (rows_equal(a, b) && ++counts.equal_pairs == kCpuEqualPairs) {
      counts.stopped_at_target = true;
      break;
    }
  }
  return counts;
}

SampleCounts sample_triples_cpu(std::uint64_t rows, std::uint64_t trials, std::uint64_t seed,
                                const std::function<bool(std::uint64_t, std::uint64_t)>& rows_equal) {
  check_rows(rows);
  SampleCounts counts;
  if (rows < 3) return counts;
  std::mt19937 rng(static_cast<std::mt19937::result_type>(hash::splitmix64(seed)));
  for (; counts.trials < trials; ++counts.trials) {
    std::uint32_t a = 0, b = 0, c = 0;
    const std::uint32_t w0 = rng(), w1 = rng(), w2 = rng();
    detail::distinct_triple(w0, w1, w2, static_cast<std::uint32_t>(rows), a, b, c);
    counts.equal_pairs += rows_equal(a, b) + rows_equal(a, c) + rows_equal(b, c);
  }
  return counts;
}

std::uint64_t table_size_for(double predicted, double factor) {
  if (!(predicted >= 1.0) || !(factor >= 1.0))
    throw std::invalid_argument("rapids table size: predicted cardinality " + std::to_string(predicted) +
                                " and factor " + std::to_string(factor) + " must both be >= 1");
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(factor * predicted)));
}

}  // namespace hashlab::rapids
