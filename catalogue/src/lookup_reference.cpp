// The CPU reference of the tables' probes in array form (checks.hpp).
#include <algorithm>
#include <stdexcept>
#include <string>

#include "hashlab/common/host_memory.hpp"
#include "hashlab/common/radix_sort.hpp"
#include "hashlab/common/threads.hpp"
#include "hashlab/catalogue/checks.hpp"
#include "hashlab/reference/lookup.hpp"

namespace hashlab::catalogue {

namespace {

std::uint64_t pack(std::uint32_t high, std::uint32_t low) { return (std::uint64_t{high} << 32) | low; }
std::uint32_t high_of(std::uint64_t w) { return static_cast<std::uint32_t>(w >> 32); }
std::uint32_t low_of(std::uint64_t w) { return static_cast<std::uint32_t>(w & 0xffffffffu); }

}  // namespace

LookupReference make_lookup_reference(std::vector<std::uint32_t> keys, const std::vector<std::uint32_t>& values,
                                      const std::vector<std::uint32_t>& queries) {
  if (keys.size() != values.size())
    throw std::invalid_argument("make_lookup_reference: " + std::to_string(keys.size()) + " keys but " +
                                std::to_string(values.size()) + " values");
  if (queries.size() > 0xffffffffull) throw std::invalid_argument("make_lookup_reference: more than 2^32 queries");
  // The pairs in (key, value) order and the queries in (key, row) order, by stable radix sorts on
  // all cores: the pairs by value, then by key; the queries, whose rows ascend already, by key.
  // Every other pass is on all cores too (16M keys a table in compare/tables).
  const unsigned threads = cpu::threads_for_items(std::max(keys.size(), queries.size()));
  std::vector<std::uint64_t> pairs = cpu::zeroed_vector<std::uint64_t>(keys.size());
  cpu::parallel_for(keys.size(), threads, [&](std::size_t i) { pairs[i] = pack(keys[i], values[i]); });
  std::vector<std::uint64_t> order = cpu::zeroed_vector<std::uint64_t>(queries.size());
  cpu::parallel_for(queries.size(), threads,
                    [&](std::size_t j) { order[j] = pack(queries[j], static_cast<std::uint32_t>(j)); });
  cpu::radix_sort(pairs, [](std::uint64_t p) { return low_of(p); });
  cpu::radix_sort(pairs, [](std::uint64_t p) { return high_of(p); });
  cpu::radix_sort(order, [](std::uint64_t q) { return high_of(q); });

  LookupReference ref;
  ref.sorted_values = cpu::zeroed_vector<std::uint32_t>(pairs.size());
  cpu::parallel_for(pairs.size(), threads, [&](std::size_t i) { ref.sorted_values[i] = low_of(pairs[i]); });
  ref.key_begin.push_back(0);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    if (i == 0 || high_of(pairs[i]) != high_of(pairs[i - 1])) {
      if (i > 0) ref.key_begin.push_back(i);
      ref.unique_keys.push_back(high_of(pairs[i]));
    }
  }
  if (!pairs.empty()) ref.key_begin.push_back(pairs.size());
  ref.keys_unique = ref.unique_keys.size() == keys.size();

  // Merge the sorted queries with the unique keys: each thread a run of the queries, from the first
  // unique key not below its first query's (each query's row is written by one thread only).
  ref.query_count = cpu::zeroed_vector<std::uint32_t>(queries.size());
  ref.query_value = cpu::zeroed_vector<std::uint32_t>(queries.size());
  std::vector<std::uint64_t> matches(threads, 0);
  cpu::run_threads(threads, [&](unsigned t) {
    const std::size_t begin = cpu::chunk_begin(t, threads, order.size());
    const std::size_t end = cpu::chunk_begin(t + 1, threads, order.size());
    if (begin == end) return;
    auto u = static_cast<std::size_t>(
        std::lower_bound(ref.unique_keys.begin(), ref.unique_keys.end(), high_of(order[begin])) -
        ref.unique_keys.begin());
    for (std::size_t j = begin; j < end; ++j) {
      const std::uint32_t key = high_of(order[j]);
      const std::uint32_t row = low_of(order[j]);
      while (u < ref.unique_keys.size() && ref.unique_keys[u] < key) ++u;
      if (u < ref.unique_keys.size() && ref.unique_keys[u] == key) {
        const auto count = ref.key_begin[u + 1] - ref.key_begin[u];
        ref.query_count[row] = static_cast<std::uint32_t>(count);
        ref.query_value[row] = ref.sorted_values[ref.key_begin[u]];
        matches[t] += count;
      } else {
        ref.query_value[row] = reference::kNotFound;
      }
    }
  });
  for (const std::uint64_t m : matches) ref.total_matches += m;
  ref.keys = std::move(keys);
  return ref;
}

}  // namespace hashlab::catalogue
