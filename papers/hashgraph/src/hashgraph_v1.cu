// HashGraph-V1 (section 3.2, Alg. 1): five parallel for-loops and one prefix sum, one kernel
// (or one memset) per loop, as the paper builds it.
#include "detail.hpp"
#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/launch.cuh"
#include "hashlab/common/primitives.hpp"
#include "hashlab/hashgraph/hashgraph.hpp"

namespace hashlab::hashgraph {
namespace {

// Alg. 1 loop 1 (section 3.2 step 1): hash every key into the range; sequential, cache friendly.
__global__ void hashgraph_v1_hash(const std::uint32_t* __restrict__ keys, std::uint64_t n, std::uint32_t range,
                                  std::uint32_t* __restrict__ hashes) {
  for (const std::uint64_t i : grid_stride(n))
    hashes[i] = vertex_of(keys[i], range);
}

// Alg. 1 loop 3 (step 3): count the keys of every vertex with atomics (random writes).
__global__ void hashgraph_v1_count(const std::uint32_t* __restrict__ hashes, std::uint64_t n,
                                   std::uint32_t* __restrict__ counters) {
  for (const std::uint64_t i : grid_stride(n))
    atomicAdd(&counters[hashes[i]], 1u);
}

// Alg. 1 loop 5 (step 6): place each key at its vertex's offset plus its atomic position.
__global__ void hashgraph_v1_place(const std::uint32_t* __restrict__ keys, const std::uint32_t* __restrict__ hashes,
                                   std::uint64_t n, const std::uint32_t* __restrict__ offsets,
                                   std::uint32_t* __restrict__ counters, Entry* __restrict__ entries) {
  for (const std::uint64_t i : grid_stride(n)) {
    const std::uint32_t v = hashes[i];
    const std::uint32_t position = offsets[v] + atomicAdd(&counters[v], 1u);
    entries[position] = Entry{keys[i], static_cast<std::uint32_t>(i)};
  }
}

}  // namespace

void HashGraph::build_v1(const std::uint32_t* keys, std::uint64_t n, cudaStream_t stream, PhaseTimer* phases) {
  const unsigned grid = grid_for(n);
  const std::size_t vertices = std::size_t{range_} + 1;  // the extra counter stays 0: offsets[range] = n
  timed_phase(phases, "hash", stream, n, "keys", [&] {
    hashgraph_v1_hash<<<grid, kDefaultBlock, 0, stream>>>(keys, n, range_, hashes_.data());
    HASHLAB_CHECK_LAUNCH();
  });
  // Alg. 1 loop 2 (step 2): zero the counters.
  timed_phase(phases, "zero", stream, vertices, "vertices", [&] { counters_.fill_bytes(0, stream); });
  timed_phase(phases, "count", stream, n, "keys", [&] {
    hashgraph_v1_count<<<grid, kDefaultBlock, 0, stream>>>(hashes_.data(), n, counters_.data());
    HASHLAB_CHECK_LAUNCH();
  });
  // Step 4: the prefix sum of the counters is the CSR offsets.
  timed_phase(phases, "prefix_sum", stream, vertices, "vertices",
              [&] { prim::exclusive_scan(counters_.data(), offsets_.data(), vertices, stream); });
  // Alg. 1 loop 4 (step 5): reset the counters.
  timed_phase(phases, "reset", stream, vertices, "vertices", [&] { counters_.fill_bytes(0, stream); });
  timed_phase(phases, "place", stream, n, "keys", [&] {
    hashgraph_v1_place<<<grid, kDefaultBlock, 0, stream>>>(keys, hashes_.data(), n, offsets_.data(),
                                                           counters_.data(), entries_.data());
    HASHLAB_CHECK_LAUNCH();
  });
}

}  // namespace hashlab::hashgraph
