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
  // 1% of the rows, rounded up; the small epsilon keeps whole percentages whole (0.01 is not
  // exact in binary: 0.01 * 700 is 7.000000000000001, which would round up to 8).
  const auto share =
      static_cast<std::uint64_t>(std::ceil(kSampleFraction * static_cast<double>(rows) * (1 - 1e-12)));
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

/// log C(n, k) p^k (1-p)^(n-k).
double log_binomial_pmf(double n, double k, double p) {
  return std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1) + k * std::log(p) + (n - k) * std::log1p(-p);
}

void check_law_input(double n_unique, std::uint64_t rows) {
  if (!(n_unique >= 1) || n_unique > std::max(1.0, static_cast<double>(rows)))
    throw std::invalid_argument("rapids estimator law: " + std::to_string(n_unique) + " unique keys for " +
                                std::to_string(rows) + " rows; need 1 <= unique <= rows");
}

/// Appends an outcome with its estimate clamped as the estimators clamp it.
void add(EstimateDistribution& d, double probability, double estimate, std::uint64_t rows, bool seen = true) {
  if (!(probability > 0)) return;
  d.outcomes.push_back({clamp_estimate(estimate, rows), probability, seen});
}

/// The outcomes of an equal-pair count C ~ Binomial(pairs, p) for c < c_end with N^ = numerator / C
/// (C = 0: `rows`), summed over the window where the terms are not negligible.
void add_binomial_counts(EstimateDistribution& d, double pairs, double p, double numerator, double c_end,
                         std::uint64_t rows) {
  const double mu = pairs * p;
  const double spread = std::sqrt(mu * (1 - p));
  const double c0 = std::max(0.0, std::floor(mu - 40 * spread - 40));
  const double c1 = std::min({pairs, c_end - 1, std::ceil(mu + 40 * spread + 40)});
  if (c0 > 0) add(d, std::exp(pairs * std::log1p(-p)), static_cast<double>(rows), rows, false);
  for (double c = c0; c <= c1; ++c)
    add(d, std::exp(log_binomial_pmf(pairs, c, p)), c == 0 ? static_cast<double>(rows) : numerator / c, rows, c > 0);
}

}  // namespace

double EstimateDistribution::probability(const std::function<bool(double)>& event) const {
  double total = 0;
  for (const EstimateOutcome& o : outcomes)
    if (event(o.estimate)) total += o.probability;
  return total;
}

EstimateDistribution pair_estimate_distribution(double n_unique, std::uint64_t rows, std::uint64_t budget_pairs,
                                                std::uint64_t stop_after) {
  check_law_input(n_unique, rows);
  EstimateDistribution d;
  const double p = 1.0 / n_unique;
  const auto budget = static_cast<double>(budget_pairs);
  const auto r = static_cast<double>(stop_after);
  if (budget == 0) {  // 0 or 1 row: nothing to sample, the estimate is `rows`
    add(d, 1.0, static_cast<double>(rows), rows, false);
    return d;
  }
  if (p >= 1.0) {  // one key: every pair is equal, N^ = T / E = 1 however the sampling stops
    add(d, 1.0, 1.0, rows);
    d.expected_equal_pairs = stop_after > 0 ? std::min(budget, r) : budget;
    return d;
  }
  if (stop_after == 0) {  // never stopped early: E ~ Binomial(budget, p), N^ = budget / E
    add_binomial_counts(d, budget, p, budget, budget + 1, rows);
    d.expected_equal_pairs = budget * p;
    return d;
  }
  // Stopped by the r-th equal pair at trial t (r <= t <= budget): P(t) = C(t-1, r-1) p^r (1-p)^(t-r),
  // stepped by P(t+1) = P(t) t / (t - r + 1) (1 - p), from the log at the first term that matters.
  if (budget >= r) {
    const double mode = std::max(r, std::floor((r - 1) / p) + 1);
    const double spread = std::sqrt(r * (1 - p)) / p;
    const double t0 = std::max(r, std::floor(mode - 40 * spread));
    const double t1 = std::min(budget, std::ceil(mode + 40 * spread));
    double pt = std::exp(std::lgamma(t0) - std::lgamma(r) - std::lgamma(t0 - r + 1) + r * std::log(p) +
                         (t0 - r) * std::log1p(-p));
    for (double t = t0; t <= t1; ++t) {
      add(d, pt, t / r, rows);
      pt *= t / (t - r + 1) * (1 - p);
    }
  }
  // Stopped by the budget with e < r equal pairs: E ~ Binomial(budget, p); e = 0 gives `rows`.
  for (double e = 0; e < r && e <= budget; ++e)
    add(d, std::exp(log_binomial_pmf(budget, e, p)), e == 0 ? static_cast<double>(rows) : budget / e, rows, e > 0);
  d.expected_equal_pairs = std::min(budget * p, r);
  return d;
}

EstimateDistribution triple_estimate_distribution(double n_unique, std::uint64_t rows, std::uint64_t trials) {
  check_law_input(n_unique, rows);
  EstimateDistribution d;
  const double p = 1.0 / n_unique;
  if (rows < 3 || trials == 0) {
    add(d, 1.0, static_cast<double>(rows), rows, false);
    return d;
  }
  const double pairs = 3.0 * static_cast<double>(trials);
  d.expected_equal_pairs = pairs * p;
  if (p >= 1.0) {  // one key: every pair is equal, N^ = 3T / 3T = 1
    add(d, 1.0, 1.0, rows);
    return d;
  }
  add_binomial_counts(d, pairs, p, pairs, pairs + 1, rows);
  return d;
}

EstimatorLaw law_of(const EstimateDistribution& d, double n_unique, double relaunch_load) {
  double mass = 0, first = 0, second = 0, relaunch = 0, none = 0;
  double seen_mass = 0, seen_first = 0, seen_second = 0;
  for (const EstimateOutcome& o : d.outcomes) {
    mass += o.probability;
    first += o.probability * o.estimate;
    second += o.probability * o.estimate * o.estimate;
    if (o.seen) {
      seen_mass += o.probability;
      seen_first += o.probability * o.estimate;
      seen_second += o.probability * o.estimate * o.estimate;
    } else {
      none += o.probability;
    }
    const double size = static_cast<double>(table_size_for(o.estimate));
    if (n_unique > std::floor(relaunch_load * size)) relaunch += o.probability;
  }
  EstimatorLaw out;
  if (!(mass > 0)) return out;
  out.mean = first / mass;
  out.sd = std::sqrt(std::max(0.0, second / mass - out.mean * out.mean));
  if (seen_mass > 0) {
    out.mean_seen = seen_first / seen_mass;
    out.sd_seen = std::sqrt(std::max(0.0, seen_second / seen_mass - out.mean_seen * out.mean_seen));
  }
  out.expected_equal_pairs = d.expected_equal_pairs;
  out.p_no_equal_pair = none / mass;
  out.p_relaunch = relaunch / mass;
  return out;
}

EstimatorLaw pair_estimator_law(double n_unique, std::uint64_t rows, double relaunch_load) {
  return law_of(pair_estimate_distribution(n_unique, rows, cpu_pair_budget(rows)), n_unique, relaunch_load);
}

EstimatorLaw triple_estimator_law(double n_unique, std::uint64_t rows, std::uint64_t trials, double relaunch_load) {
  return law_of(triple_estimate_distribution(n_unique, rows, trials), n_unique, relaunch_load);
}

std::uint64_t cpu_pair_budget(std::uint64_t rows, std::uint64_t floor) { return budget(rows, floor); }
std::uint64_t gpu_triple_budget(std::uint64_t rows, std::uint64_t floor) { return rows < 3 ? 0 : budget(rows, floor); }

SampleCounts sample_pairs_cpu(std::uint64_t rows, std::uint64_t seed,
                              const std::function<bool(std::uint64_t, std::uint64_t)>& rows_equal) {
  return sample_pairs_cpu(rows, seed, rows_equal, cpu_pair_budget(rows));
}

SampleCounts sample_pairs_cpu(std::uint64_t rows, std::uint64_t seed,
                              const std::function<bool(std::uint64_t, std::uint64_t)>& rows_equal,
                              std::uint64_t limit, std::uint64_t stop_after) {
  check_rows(rows);
  SampleCounts counts;
  if (rows < 2) return counts;
  std::mt19937 rng(static_cast<std::mt19937::result_type>(hash::splitmix64(seed)));
  while (counts.trials < limit) {
    std::uint32_t a = 0, b = 0;
    const std::uint32_t w0 = rng(), w1 = rng();
    detail::distinct_pair(w0, w1, static_cast<std::uint32_t>(rows), a, b);
    ++counts.trials;
    if (rows_equal(a, b) && ++counts.equal_pairs == stop_after) {
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
