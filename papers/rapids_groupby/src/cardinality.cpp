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

namespace {

/// Accumulates the moments of N^ and the relaunch probability over weighted outcomes.
struct LawSum {
  double n_unique, rows, relaunch_load;
  double mass = 0, first = 0, second = 0, relaunch = 0;
  double seen_mass = 0, seen_first = 0, seen_second = 0;  // outcomes with at least one equal pair
  void add(double probability, double estimate, bool seen = true) {
    if (!(probability > 0)) return;
    estimate = clamp_estimate(estimate, static_cast<std::uint64_t>(rows));
    mass += probability;
    first += probability * estimate;
    second += probability * estimate * estimate;
    if (seen) {
      seen_mass += probability;
      seen_first += probability * estimate;
      seen_second += probability * estimate * estimate;
    }
    const double size = static_cast<double>(table_size_for(estimate));
    if (n_unique > std::floor(relaunch_load * size)) relaunch += probability;
  }
  EstimatorLaw law(double expected_equal_pairs, double p_none) const {
    EstimatorLaw out;
    out.mean = first / mass;
    out.sd = std::sqrt(std::max(0.0, second / mass - out.mean * out.mean));
    if (seen_mass > 0) {
      out.mean_seen = seen_first / seen_mass;
      out.sd_seen = std::sqrt(std::max(0.0, seen_second / seen_mass - out.mean_seen * out.mean_seen));
    }
    out.expected_equal_pairs = expected_equal_pairs;
    out.p_no_equal_pair = p_none;
    out.p_relaunch = relaunch / mass;
    return out;
  }
};

/// log C(n, k) p^k (1-p)^(n-k).
double log_binomial_pmf(double n, double k, double p) {
  return std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1) + k * std::log(p) + (n - k) * std::log1p(-p);
}

void check_law_input(double n_unique, std::uint64_t rows) {
  if (!(n_unique >= 1) || n_unique > std::max(1.0, static_cast<double>(rows)))
    throw std::invalid_argument("rapids estimator law: " + std::to_string(n_unique) + " unique keys for " +
                                std::to_string(rows) + " rows; need 1 <= unique <= rows");
}

}  // namespace

EstimatorLaw pair_estimator_law(double n_unique, std::uint64_t rows, double relaunch_load) {
  check_law_input(n_unique, rows);
  const double p = 1.0 / n_unique;
  const auto budget = static_cast<double>(cpu_pair_budget(rows));
  const auto r = static_cast<double>(kCpuEqualPairs);
  LawSum sum{n_unique, static_cast<double>(rows), relaunch_load};
  if (budget == 0) {  // 0 or 1 row: nothing to sample, the estimate is `rows`
    sum.add(1.0, static_cast<double>(rows), false);
    return sum.law(0, 1);
  }
  if (p >= 1.0) {  // one key: every pair is equal, N^ = T / E = 1 however the sampling stops
    sum.add(1.0, 1.0);
    return sum.law(std::min(budget, r), 0);
  }
  // Stopped by the 10th equal pair at trial t (r <= t <= budget): P(t) = C(t-1, r-1) p^r (1-p)^(t-r),
  // stepped by P(t+1) = P(t) t / (t - r + 1) (1 - p), from the log at the first term that matters.
  if (budget >= r) {
    const double mode = std::max(r, std::floor((r - 1) / p) + 1);
    const double spread = std::sqrt(r * (1 - p)) / p;
    const double t0 = std::max(r, std::floor(mode - 40 * spread));
    const double t1 = std::min(budget, std::ceil(mode + 40 * spread));
    double log_pt = std::lgamma(t0) - std::lgamma(r) - std::lgamma(t0 - r + 1) + r * std::log(p) +
                    (t0 - r) * std::log1p(-p);
    double pt = std::exp(log_pt);
    for (double t = t0; t <= t1; ++t) {
      sum.add(pt, t / r);
      pt *= t / (t - r + 1) * (1 - p);
    }
  }
  // Stopped by the budget with e < r equal pairs: E ~ Binomial(budget, p); e = 0 gives `rows`.
  const double p_none = std::exp(budget * std::log1p(-p));
  for (double e = 0; e < r && e <= budget; ++e)
    sum.add(std::exp(log_binomial_pmf(budget, e, p)), e == 0 ? static_cast<double>(rows) : budget / e, e > 0);
  return sum.law(std::min(budget * p, r), p_none);
}

EstimatorLaw triple_estimator_law(double n_unique, std::uint64_t rows, std::uint64_t trials, double relaunch_load) {
  check_law_input(n_unique, rows);
  const double p = 1.0 / n_unique;
  LawSum sum{n_unique, static_cast<double>(rows), relaunch_load};
  if (rows < 3 || trials == 0) {
    sum.add(1.0, static_cast<double>(rows), false);
    return sum.law(0, 1);
  }
  const double pairs = 3.0 * static_cast<double>(trials);
  if (p >= 1.0) {  // one key: every pair is equal, N^ = 3T / 3T = 1
    sum.add(1.0, 1.0);
    return sum.law(pairs, 0);
  }
  const double mu = pairs * p;
  const double spread = std::sqrt(mu * (1 - p));
  const double c0 = std::max(0.0, std::floor(mu - 40 * spread - 40));
  const double c1 = std::min(pairs, std::ceil(mu + 40 * spread + 40));
  for (double c = c0; c <= c1; ++c)
    sum.add(std::exp(log_binomial_pmf(pairs, c, p)), c == 0 ? static_cast<double>(rows) : pairs / c, c > 0);
  return sum.law(mu, std::exp(pairs * std::log1p(-p)));
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
