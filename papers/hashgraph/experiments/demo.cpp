// `hashlab demo hashgraph`: ten keys through V1 and V2, then both probes.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "experiments.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/hashgraph/hashgraph.hpp"
#include "hashlab/hashgraph/probe.hpp"
#include "hashlab/reference/join.hpp"
#include "inputs.cuh"

namespace hashlab::hashgraph::experiments {
namespace {

int run_demo(const RunOptions&) {
  Stream stream;  // before the buffers: they are freed on it
  const std::vector<std::uint32_t> keys = {42, 7, 19, 42, 3, 88, 7, 61, 42, 25};
  const std::uint32_t range = 4;  // load factor 10 / 4 = 2.5: fewer vertices than keys is fine
  auto d_keys = to_device(keys, stream);
  std::printf("HashGraph demo (Green et al.): %zu keys hashed into a range of %u vertices (load %.1f)\n\n",
              keys.size(), range, keys.size() / static_cast<double>(range));
  std::printf("Section 3.1: the table is a CSR graph. Vertices are hash values, edges point back to the input.\n\n");
  HashGraph graph(keys.size(), range, {Version::kV1}, stream);
  graph.build(d_keys.data(), keys.size(), stream);
  const HostGraph v1 = graph.to_host(stream);

  std::printf("Alg. 1 (V1), step 1 - hash every key into the range (Murmur3 finaliser, reduced to [0, %u)):\n", range);
  for (std::size_t i = 0; i < keys.size(); ++i)
    std::printf("  input[%zu] = %2u  ->  vertex %u\n", i, keys[i], vertex_of(keys[i], range));
  std::printf("\nSteps 2-3 - zero one counter per vertex, then count each vertex's keys with atomic adds.\n"
              "The counts the GPU found (offsets[v + 1] - offsets[v]):\n  counters = [");
  for (std::uint32_t v = 0; v < range; ++v) std::printf("%s%u", v ? ", " : "", v1.offsets[v + 1] - v1.offsets[v]);
  std::printf("]\n\n");
  std::printf("Step 4 - the prefix sum of the counters is the CSR offset array (range + 1 values):\n  offsets  = [");
  for (std::size_t v = 0; v < v1.offsets.size(); ++v) std::printf("%s%u", v ? ", " : "", v1.offsets[v]);
  std::printf("]\n\n");
  std::printf("Steps 5-6 - reset the counters, then place each key at offsets[vertex] + its atomic position.\n");
  std::printf("The edges (key, row in the input), vertex by vertex, as the GPU placed them:\n");
  for (std::uint32_t v = 0; v < range; ++v) {
    std::printf("  vertex %u: entries [%u, %u) ", v, v1.offsets[v], v1.offsets[v + 1]);
    for (std::uint32_t e = v1.offsets[v]; e < v1.offsets[v + 1]; ++e)
      std::printf(" (key %u, row %u)", v1.entries[e].key, v1.entries[e].index);
    std::printf("\n");
  }
  const std::string v1_check = check_against_input(v1, keys);

  HashGraph graph2(keys.size(), range, {Version::kV2, 2}, stream);
  graph2.build(d_keys.data(), keys.size(), stream);
  const HostGraph v2 = graph2.to_host(stream);
  std::printf("\nAlg. 2 (V2) with 2 bins of %u vertices: phase 1 counts keys per bin, phase 2 reorganizes the\n"
              "input bin by bin, phase 3 builds each bin's part of the CSR in shared memory. Same offsets:\n  offsets  = [",
              graph2.bin_size());
  for (std::size_t v = 0; v < v2.offsets.size(); ++v) std::printf("%s%u", v ? ", " : "", v2.offsets[v]);
  std::printf("]  (%s)\n\n", v2.offsets == v1.offsets ? "equal to V1's" : "DIFFERENT from V1's");

  const std::vector<std::uint32_t> queries = {42, 5, 7};
  auto d_queries = to_device(queries, stream);
  std::printf("Section 3.4 - probing with queries [42, 5, 7]:\n");
  for (std::size_t j = 0; j < queries.size(); ++j) {
    const std::uint32_t v = vertex_of(queries[j], range);
    std::printf("  probe-standard: query %u hashes to vertex %u, walks entries [%u, %u):", queries[j], v,
                v1.offsets[v], v1.offsets[v + 1]);
    int found = 0;
    for (std::uint32_t e = v1.offsets[v]; e < v1.offsets[v + 1]; ++e)
      if (v1.entries[e].key == queries[j]) {
        std::printf(" match row %u", v1.entries[e].index);
        ++found;
      }
    std::printf("%s\n", found ? "" : " no match");
  }
  Prober prober(graph, ProbeMethod::kNew, queries.size(), stream);
  const auto pairs = prober.join(d_queries.data(), queries.size(), stream).to_host(stream);
  std::printf("  probe-new: builds a second HashGraph over the queries (same range) and intersects the two\n"
              "  lists of every vertex; on the GPU it found %zu pairs (table row, query row):", pairs.size());
  auto sorted = pairs;
  std::sort(sorted.begin(), sorted.end());
  for (const auto& pair : sorted) std::printf(" (%u, %u)", pair.r_index, pair.s_index);
  const bool probe_ok = sorted == reference::inner_join(keys, queries);
  std::printf("\n  CPU reference join: %s\n\n", probe_ok ? "the same pairs" : "DIFFERENT pairs");

  std::printf("Where to read the code (papers/hashgraph/):\n"
              "  include/hashlab/hashgraph/hashgraph.hpp  the table: vertex_of, HashGraph, BuildOptions\n"
              "  src/hashgraph_v1.cu                      Alg. 1, one kernel per loop\n"
              "  src/hashgraph_v2.cu                      Alg. 2: bin count, reorganize, per-bin build\n"
              "  src/probe.cu                             probe-standard and probe-new (Alg. 3)\n"
              "  experiments/                             Fig. 2-9 as experiments; README.md maps the paper\n");
  const bool ok = v1_check.empty() && check_against_input(v2, keys).empty() && v2.offsets == v1.offsets && probe_ok;
  if (!ok) std::printf("\nFAILED: %s\n", v1_check.empty() ? "V2 or the probe differs from the reference" : v1_check.c_str());
  return ok ? 0 : 1;
}

}  // namespace

harness::Demo demo() {
  return {kPaper, "ten keys through V1 and V2: counts, offsets, edges, then both probes", /*needs_gpu=*/true, run_demo};
}

}  // namespace hashlab::hashgraph::experiments
