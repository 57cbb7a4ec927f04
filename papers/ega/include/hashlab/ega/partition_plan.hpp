// MP-EGA's planning (EGA sections 4.2.1 and 4.2.3), plain host code: how many partitions
// (Theorem 1, balls into bins) and which small partitions to merge (Algorithm 1, Theorem 2).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hashlab::ega {

// ---- Theorem 1 (4.2.1) ---------------------------------------------------------------------
// n balls (groups) thrown at random into m bins (partitions); C: "some bin gets at least k
// balls". By the union bound over bins and over the k-subsets of balls,
//   P(C) <= m * C(n, k) * m^-k,
// and with Stirling's k! >= sqrt(2 pi k) (k/e)^k, P(C) <= p as soon as
//   m >= (e n / k) * lambda,   lambda = (e n / (k p sqrt(2 pi k)))^(1 / (k - 1)).
// (The equations of the theorem are lost in our copy of the text; this is the bound its proof
// builds, see the README.) lambda tends to 1 as k grows: about e n / k partitions.

/// m * C(n, k) * m^-k, capped at 1: the bound on P(some bin has >= k balls). k >= 2, m >= 1.
double theorem1_failure_bound(std::uint64_t n, std::uint64_t m, std::uint64_t k);

/// The sufficient partition count of Theorem 1 for n groups, at most k - 1 groups per partition
/// wanted (k >= 2), failure probability p in (0, 1): ceil((e n / k) * lambda); 1 when n < k.
/// Throws std::invalid_argument on k < 2 or p outside (0, 1).
std::uint64_t theorem1_partitions(std::uint64_t n, std::uint64_t k, double p);

// ---- Algorithm 1 and Theorem 2 (4.2.3) -------------------------------------------------------

/// Greedy merge of small partitions (Algorithm 1): a min-heap on the sizes; while it holds two
/// partitions whose merged size is at most k, pop the two smallest, merge, keep merging the
/// merged one with the current smallest while the size stays at most k, push it back.
/// Partitions larger than k take no part (they stay alone). Returns the merged partitions as
/// lists of input indices; every index appears exactly once.
/// Theorem 2: the number of merged partitions of size <= k is at most twice the optimum.
std::vector<std::vector<std::size_t>> greedy_merge(const std::vector<std::uint64_t>& sizes, std::uint64_t k);

/// The optimum of the merge problem (minimal number of groups of total size <= k, bin packing)
/// by dynamic programming over subsets: for tests, at most 16 partitions, each of size <= k.
std::size_t optimal_merge_count(const std::vector<std::uint64_t>& sizes, std::uint64_t k);

}  // namespace hashlab::ega
