// Theorem 1 (EGA 4.2.1) and Algorithm 1 / Theorem 2 (EGA 4.2.3).
#include "hashlab/ega/partition_plan.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <stdexcept>
#include <string>
#include <utility>

namespace hashlab::ega {

double theorem1_failure_bound(std::uint64_t n, std::uint64_t m, std::uint64_t k) {
  if (k < 2 || m < 1) throw std::invalid_argument("Theorem 1: needs k >= 2 and m >= 1");
  if (n < k) return 0.0;  // no bin can get k balls
  const double nd = static_cast<double>(n), kd = static_cast<double>(k), md = static_cast<double>(m);
  const double log_binomial = std::lgamma(nd + 1) - std::lgamma(kd + 1) - std::lgamma(nd - kd + 1);
  const double log_bound = std::log(md) + log_binomial - kd * std::log(md);
  return log_bound >= 0 ? 1.0 : std::exp(log_bound);
}

std::uint64_t theorem1_partitions(std::uint64_t n, std::uint64_t k, double p) {
  if (k < 2) throw std::invalid_argument("Theorem 1: k (groups per partition) must be >= 2, got " + std::to_string(k));
  if (!(p > 0.0 && p < 1.0))
    throw std::invalid_argument("Theorem 1: failure probability p must lie in (0, 1), got " + std::to_string(p));
  if (n < k) return 1;
  const double e = std::exp(1.0);
  const double nd = static_cast<double>(n), kd = static_cast<double>(k);
  const double pi = std::acos(-1.0);
  // log of lambda, so that large n / k cannot overflow.
  const double log_lambda = (std::log(e * nd / kd) - std::log(p) - 0.5 * std::log(2 * pi * kd)) / (kd - 1);
  const double m = e * nd / kd * std::exp(std::max(0.0, log_lambda));
  if (!(m < 1e18)) throw std::invalid_argument("Theorem 1: partition count overflows for n = " + std::to_string(n));
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(m)));
}

std::vector<std::vector<std::size_t>> greedy_merge(const std::vector<std::uint64_t>& sizes, std::uint64_t k) {
  struct Merged {
    std::uint64_t size;
    std::vector<std::size_t> parts;
  };
  std::vector<std::vector<std::size_t>> result;
  // The heap holds indices into `pool`, smallest size on top.
  std::vector<Merged> pool;
  auto larger = [&](std::size_t a, std::size_t b) { return pool[a].size > pool[b].size; };
  std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(larger)> heap(larger);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] > k) {
      result.push_back({i});  // too large to merge: processed alone (feedback load)
      continue;
    }
    pool.push_back({sizes[i], {i}});
    heap.push(pool.size() - 1);
  }
  while (heap.size() >= 2) {
    const std::size_t a = heap.top();
    heap.pop();
    const std::size_t b = heap.top();
    if (pool[a].size + pool[b].size > k) {  // the two smallest do not fit together: done
      heap.push(a);
      break;
    }
    heap.pop();
    Merged merged{pool[a].size + pool[b].size, std::move(pool[a].parts)};
    merged.parts.insert(merged.parts.end(), pool[b].parts.begin(), pool[b].parts.end());
    while (!heap.empty() && merged.size + pool[heap.top()].size <= k) {
      const std::size_t c = heap.top();
      heap.pop();
      merged.size += pool[c].size;
      merged.parts.insert(merged.parts.end(), pool[c].parts.begin(), pool[c].parts.end());
    }
    pool.push_back(std::move(merged));
    heap.push(pool.size() - 1);
  }
  while (!heap.empty()) {
    result.push_back(std::move(pool[heap.top()].parts));
    heap.pop();
  }
  return result;
}

std::size_t optimal_merge_count(const std::vector<std::uint64_t>& sizes, std::uint64_t k) {
  const std::size_t n = sizes.size();
  if (n > 16) throw std::invalid_argument("optimal_merge_count: at most 16 partitions");
  for (auto s : sizes)
    if (s > k) throw std::invalid_argument("optimal_merge_count: a partition is larger than k");
  if (n == 0) return 0;
  // best[mask] = (groups used, fill of the last group) for the items in mask, lexicographically least.
  const std::size_t masks = std::size_t{1} << n;
  std::vector<std::pair<std::size_t, std::uint64_t>> best(masks, {std::numeric_limits<std::size_t>::max(), 0});
  best[0] = {1, 0};
  for (std::size_t mask = 0; mask < masks; ++mask) {
    if (best[mask].first == std::numeric_limits<std::size_t>::max()) continue;
    for (std::size_t i = 0; i < n; ++i) {
      if (mask & (std::size_t{1} << i)) continue;
      auto [groups, fill] = best[mask];
      if (fill + sizes[i] <= k) fill += sizes[i]; else { ++groups; fill = sizes[i]; }
      auto& next = best[mask | (std::size_t{1} << i)];
      if (std::make_pair(groups, fill) < next) next = {groups, fill};
    }
  }
  return best[masks - 1].first;
}

}  // namespace hashlab::ega
