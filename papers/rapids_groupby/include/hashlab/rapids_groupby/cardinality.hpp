// Cardinality estimation by random sampling (RAPIDS group-by report, section 3), and the table
// size it implies. Pure host code: the estimators are tested numerically on the CPU.
//
// The report's Markov chain: sampling rows one at a time, the number M of distinct keys seen
// moves M -> M with probability M/N and M -> M+1 with probability (N-M)/N, for N unique keys
// spread uniformly over the rows. Two steps from M = 0 end in M = 1 (the two keys are equal)
// with probability P01^2 = 1/N; three steps end in M = 2 with probability P02^3 = 3(N-1)/N^2
// and in M = 1 with probability 1/N^2.
//
// CPU, pairs: draw pairs of distinct rows until `kCpuEqualPairs` equal pairs are seen or the
// trial budget is spent. Each pair is equal with probability p = 1/N (exactly, in expectation,
// for distinct rows of uniformly assigned keys). The estimate is N = T / E for E equal pairs in
// T trials. When the 10th equal pair ends the sampling, T is negative-binomial with
// E[T] = r/p, so T/r is unbiased for N, with Var(T/r) = (1-p)/(r p^2): relative sd
// sqrt((1-p)/r) ~ 1/sqrt(10) ~ 0.32. When the budget of T trials ends first, E is binomial
// (T, p) and T/E is the moment estimator, relative sd ~ sqrt((1-p)/(T p)) = sqrt((N-1)/T).
//
// GPU, triples: draw T triples of distinct rows. A triple holds three pairs, equal with
// probability 1/N each, and for uniform keys the three events are pairwise independent
// (P(a=b and a=c) = 1/N^2 = P(a=b) P(a=c)). Counting equal pairs per triple (0 when the three
// keys differ, 1 when two are equal -- the report's M = 2 state, probability 3(N-1)/N^2 -- and
// 3 when all three are equal, probability 1/N^2) gives E[pairs] = 3(N-1)/N^2 + 3/N^2 = 3/N, so
// N = 3T / (equal pairs), with the variance of 3T independent pairs: relative sd
// ~ sqrt(N / (3T)). Three reads give three pairs where a pair sampler needs six reads, which is
// why the report found the triple sampler's deviation smaller for the same number of draws.
//
// Both estimates are clamped to [1, rows] (there cannot be more groups than rows); with no
// equal pair at all the estimate is `rows` (the safe side). Non-uniform keys (skew) make equal
// pairs likelier, so the estimate falls short of N; the relaunch covers that.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace hashlab::rapids {

constexpr double kTableFactor = 2.6;            // section 3: table = 2.6 x predicted N
constexpr double kSampleFraction = 0.01;        // section 3: sample 1% of the rows
constexpr std::uint64_t kCpuEqualPairs = 10;    // section 3: stop after 10 equal pairs
// Our floor on the number of samples (pairs on the CPU, triples on the GPU): 1% of a small
// input says nothing (1% of 100K rows is 1000 draws, about 0.1 equal pairs for 10K keys), and
// 64K triples cost the GPU microseconds. See README "Deviations and choices".
constexpr std::uint64_t kMinCpuPairs = 1u << 14;
constexpr std::uint64_t kMinGpuTriples = 1u << 16;

/// What a sampler saw: `trials` pairs (or triples) drawn, `equal_pairs` equal key pairs among them.
struct SampleCounts {
  std::uint64_t trials = 0;
  std::uint64_t equal_pairs = 0;
  bool stopped_at_target = false;  // pairs only: the 10th equal pair ended the sampling
};

/// The N the pair sampler's counts imply (see the derivation above), clamped to [1, rows].
double estimate_from_pairs(const SampleCounts& counts, std::uint64_t rows);
/// The N the triple sampler's counts imply: 3 T / equal pairs, clamped to [1, rows].
double estimate_from_triples(const SampleCounts& counts, std::uint64_t rows);

/// Large-count approximations of the estimators' relative sd(N^)/N (the delta method above):
/// pairs with a budget of `trials` (stopping at 10 equal pairs), triples with `trials` drawn.
/// Valid only when many equal pairs are expected (trials / N >> 1); they ignore the runs with no
/// equal pair (N^ = rows). Use the laws below for the sd of the estimators as implemented.
double pair_estimator_relative_sd(double n_unique, std::uint64_t trials);
double triple_estimator_relative_sd(double n_unique, std::uint64_t trials);

/// The distribution of an estimate N^ for true cardinality N (uniform keys), summed exactly over
/// the sampler's outcomes rather than approximated:
/// - pairs: the 10th equal pair at trial t <= budget (negative binomial) gives t / 10; fewer than
///   10 equal pairs, E ~ Binomial(budget, 1/N), give budget / E, and E = 0 gives `rows`; with
///   `stop_after` = 0 (no early stop) every outcome is budget / E;
/// - triples: the equal-pair count C over T triples has mean 3T/N and variance 3T (1/N)(1 - 1/N)
///   (pairwise independent pairs); it is summed as Binomial(3T, 1/N), which has that mean and
///   variance (the count differs only by the all-equal triples, T/N^2 of them, which matter only
///   when C is large); C = 0 gives `rows`.
/// Every estimate is clamped to [1, rows] as the estimators do. When budget / N is small, the
/// no-equal-pair runs (N^ = rows) dominate the spread: at 1M rows and 10K keys the CPU sampler's
/// 16,384 pairs see no equal pair in e^-1.64 = 19% of the runs, and sd(N^) / N is about 40, where
/// the delta method says 0.78. Because N^ = rows is a huge value of small probability (7.5e-8
/// at 1K keys, where it still raises the relative sd from 0.35 to 0.44), the spread seen in a few dozen runs
/// is compared with `sd_seen`, the sd over the outcomes with at least one equal pair, and the
/// count of no-equal-pair runs with `p_no_equal_pair`.
struct EstimateOutcome {
  double estimate = 0;     // N^, clamped to [1, rows]
  double probability = 0;
  bool seen = true;        // at least one equal pair (false: N^ = rows, the fallback)
};
struct EstimateDistribution {
  std::vector<EstimateOutcome> outcomes;  // probabilities sum to 1 (up to terms below ~1e-300)
  double expected_equal_pairs = 0;
  /// P(event(N^)), summed over the outcomes (e.g. [](double e) { return e <= n; }).
  double probability(const std::function<bool(double)>& event) const;
};
/// The pair sampler with `budget` trials, stopped by the `stop_after`-th equal pair (0: never).
EstimateDistribution pair_estimate_distribution(double n_unique, std::uint64_t rows, std::uint64_t budget,
                                                std::uint64_t stop_after = kCpuEqualPairs);
/// The triple sampler with `trials` triples.
EstimateDistribution triple_estimate_distribution(double n_unique, std::uint64_t rows, std::uint64_t trials);

struct EstimatorLaw {
  double mean = 0;              // E[N^]
  double sd = 0;                // sd(N^)
  double mean_seen = 0;         // E[N^ | at least one equal pair]
  double sd_seen = 0;           // sd(N^ | at least one equal pair)
  double expected_equal_pairs = 0;
  double p_no_equal_pair = 0;   // P(no equal pair seen): N^ = rows
  double p_relaunch = 0;        // P(N > floor(relaunch_load * table_size_for(N^))): the first table is too small
};
/// The moments of a distribution and its relaunch probability for N true groups.
EstimatorLaw law_of(const EstimateDistribution& distribution, double n_unique, double relaunch_load = 0.75);
/// The samplers as the group-by runs them (our floors on the budgets; see the budgets below).
EstimatorLaw pair_estimator_law(double n_unique, std::uint64_t rows, double relaunch_load = 0.75);
EstimatorLaw triple_estimator_law(double n_unique, std::uint64_t rows, std::uint64_t trials,
                                  double relaunch_load = 0.75);

/// The number of pairs (CPU) and triples (GPU) drawn for `rows` rows: 1% of the rows (section 3),
/// at least `floor` (by default our floors above; 0 gives the report's 1% exactly), and for tiny
/// inputs never a meaningless count: 0 rows or 1 row draw no pair, fewer than 3 rows no triple.
std::uint64_t cpu_pair_budget(std::uint64_t rows, std::uint64_t floor = kMinCpuPairs);
std::uint64_t gpu_triple_budget(std::uint64_t rows, std::uint64_t floor = kMinGpuTriples);

/// The CPU sampler of section 3: pairs of distinct rows drawn with a seeded generator until
/// kCpuEqualPairs equal pairs or `cpu_pair_budget(rows)` trials. `rows_equal(a, b)` compares
/// the key tuples of rows a and b.
SampleCounts sample_pairs_cpu(std::uint64_t rows, std::uint64_t seed,
                              const std::function<bool(std::uint64_t, std::uint64_t)>& rows_equal);
/// The same with `budget` trials, stopped by the `stop_after`-th equal pair (0: never stopped
/// early, as for comparing pairs with triples at the same number of trials).
SampleCounts sample_pairs_cpu(std::uint64_t rows, std::uint64_t seed,
                              const std::function<bool(std::uint64_t, std::uint64_t)>& rows_equal,
                              std::uint64_t budget, std::uint64_t stop_after = kCpuEqualPairs);

/// The GPU sampler's arithmetic on the CPU (for tests and the demo): `trials` triples of
/// distinct rows, the same draw as the kernel (Philox is replaced by a host generator).
SampleCounts sample_triples_cpu(std::uint64_t rows, std::uint64_t trials, std::uint64_t seed,
                                const std::function<bool(std::uint64_t, std::uint64_t)>& rows_equal);

/// The table size for a predicted cardinality: ceil(factor * predicted), at least 1 slot.
std::uint64_t table_size_for(double predicted, double factor = kTableFactor);

}  // namespace hashlab::rapids
