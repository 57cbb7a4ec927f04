// The host-side check of a HashGraph against its input (the multimap key -> rows, as arrays).
#include <string>
#include <vector>

#include "hashlab/hashgraph/hashgraph.hpp"

namespace hashlab::hashgraph {

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
  std::vector<bool> seen(n, false);
  for (std::uint32_t v = 0; v < graph.range; ++v) {
    const std::uint32_t begin = graph.offsets[v];
    const std::uint32_t end = graph.offsets[v + 1];
    if (end < begin) return "offsets decrease at vertex " + std::to_string(v);
    for (std::uint32_t p = begin; p < end; ++p) {
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
      if (seen[e.index]) return where() + ": the row appears twice";
      seen[e.index] = true;
    }
  }
  // n entries, each row at most once: every row appears exactly once.
  return "";
}

}  // namespace hashlab::hashgraph
