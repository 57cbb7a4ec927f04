// The host-side check of a HashGraph against its input (the multimap key -> rows, as arrays).
//
// Every experiment point checks its whole table here, so the check runs on several host threads:
// the vertices are split into contiguous ranges of about equal entries, each thread checks its
// range, and a row seen twice is caught by an atomic bit per row.
#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "hashlab/common/threads.hpp"
#include "hashlab/hashgraph/hashgraph.hpp"

namespace hashlab::hashgraph {
namespace {

constexpr std::uint64_t kEntriesPerThread = std::uint64_t{1} << 20;  // below this, threads cost more than they save
constexpr unsigned kMaxThreads = 16;
// Entries ahead whose rows are prefetched: of 8, 16, 32, 64, 32 checked 32Mi keys fastest on a
// 2-core machine (about 250 ms, against 650 ms without prefetching).
constexpr std::uint32_t kPrefetchAhead = 32;

/// Checks the entries of vertices [first, last): "" or the first problem found in that range.
std::string check_vertices(const HostGraph& graph, const std::vector<std::uint32_t>& keys, std::uint32_t first,
                           std::uint32_t last, std::atomic<std::uint64_t>* seen) {
  const std::uint64_t n = keys.size();
  const std::uint32_t end = graph.offsets[last];  // the range's entries are [offsets[first], end)
  for (std::uint32_t v = first; v < last; ++v) {
    for (std::uint32_t p = graph.offsets[v]; p < graph.offsets[v + 1]; ++p) {
      // The two reads by row below miss the cache (rows in hash order); asking for a later
      // entry's rows now keeps many misses in flight.
      if (std::uint64_t{p} + kPrefetchAhead < end) {
        const std::uint32_t ahead = graph.entries[p + kPrefetchAhead].index;
        if (ahead < n) {
          __builtin_prefetch(&keys[ahead]);
          __builtin_prefetch(&seen[ahead >> 6], 1);
        }
      }
      const Entry e = graph.entries[p];
      // The message is built only on failure: this loop runs over every entry of 100M-key tables.
      const auto where = [&] {
        return "entry " + std::to_string(p) + " (key " + std::to_string(e.key) + ", row " + std::to_string(e.index) +
               ") in the list of vertex " + std::to_string(v);
      };
      if (e.index >= n) return where() + ": row out of range";
      if (keys[e.index] != e.key) return where() + ": the input's key at that row is " + std::to_string(keys[e.index]);
      if (vertex_of(e.key, graph.range) != v)
        return where() + ": the key hashes to vertex " + std::to_string(vertex_of(e.key, graph.range));
      const std::uint64_t bit = std::uint64_t{1} << (e.index & 63);
      if (seen[e.index >> 6].fetch_or(bit, std::memory_order_relaxed) & bit) return where() + ": the row appears twice";
    }
  }
  return "";
}

}  // namespace

std::string check_against_input(const HostGraph& graph, const std::vector<std::uint32_t>& keys) {
  const std::uint64_t n = keys.size();
  if (graph.offsets.size() != std::size_t{graph.range} + 1)
    return "offsets hold " + std::to_string(graph.offsets.size()) + " values, expected range + 1 = " +
           std::to_string(std::uint64_t{graph.range} + 1);
  if (graph.entries.size() != n)
    return "the table holds " + std::to_string(graph.entries.size()) + " entries for " + std::to_string(n) + " keys";
  if (graph.offsets.front() != 0) return "offsets[0] = " + std::to_string(graph.offsets.front()) + ", expected 0";
  if (graph.offsets.back() != n)
    return "offsets[range] = " + std::to_string(graph.offsets.back()) + ", expected n = " + std::to_string(n);
  // Monotone offsets from 0 to n: every list below lies inside the entries.
  const std::size_t decrease =
      cpu::first_index_where(graph.range, [&](std::size_t v) { return graph.offsets[v + 1] < graph.offsets[v]; });
  if (decrease < graph.range) return "offsets decrease at vertex " + std::to_string(decrease);

  const auto seen = std::make_unique<std::atomic<std::uint64_t>[]>((n + 63) / 64);  // value-initialised: zero
  const unsigned threads = std::min(kMaxThreads, cpu::threads_for_items(n, kEntriesPerThread));
  // Thread t checks the vertices whose lists start in entries [t n / threads, (t + 1) n / threads).
  std::vector<std::uint32_t> bounds(threads + 1, graph.range);
  bounds[0] = 0;
  for (unsigned t = 1; t < threads; ++t)
    bounds[t] = static_cast<std::uint32_t>(
        std::lower_bound(graph.offsets.begin(), graph.offsets.end() - 1, n * t / threads) - graph.offsets.begin());
  std::vector<std::string> problems(threads);
  cpu::run_threads(threads, [&](unsigned t) { problems[t] = check_vertices(graph, keys, bounds[t], bounds[t + 1], seen.get()); });
  for (const auto& problem : problems)
    if (!problem.empty()) return problem;
  // n entries, each row at most once: every row appears exactly once.
  return "";
}

}  // namespace hashlab::hashgraph
