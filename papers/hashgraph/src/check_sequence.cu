// The whole-table check of a table built from the sequence 0..n-1 (section 4's largest input), on
// the device: the answer is known in closed form (key k at row k), so billions of entries need no
// copy to the host. Two passes, each a grid-stride loop:
//   lists: every vertex's list lies in [0, n), the lists tile [0, n) in order, and every entry of
//          vertex v is (k, k) with k < n and vertex_of(k) == v;
//   keys:  every key k < n occurs exactly once in its vertex's list.
// Together: n entries, each a valid (k, k) in k's vertex, each k present once -- the multimap
// {k -> k}, which is what check_against_input establishes on the host for any input.
#include <string>

#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/launch.cuh"
#include "hashlab/common/memory.hpp"
#include "hashlab/hashgraph/hashgraph.hpp"

namespace hashlab::hashgraph {
namespace {

constexpr unsigned long long kNone = ~0ull;  // no problem found (atomicMin keeps the first bad index)

__global__ void check_sequence_lists(const std::uint32_t* __restrict__ offsets, const Entry* __restrict__ entries,
                                     std::uint32_t range, std::uint64_t n,
                                     unsigned long long* __restrict__ first_bad_vertex) {
  for (const std::uint64_t v : grid_stride(range)) {
    const std::uint32_t begin = offsets[v];
    const std::uint32_t end = offsets[v + 1];
    bool ok = begin <= end && end <= n;
    if (v == 0) ok = ok && begin == 0;
    if (v + 1 == range) ok = ok && end == n;
    for (std::uint32_t e = begin; ok && e < end; ++e) {
      const Entry entry = entries[e];
      ok = entry.key == entry.index && entry.index < n &&
           vertex_of(entry.key, range) == static_cast<std::uint32_t>(v);
    }
    if (!ok) atomicMin(first_bad_vertex, static_cast<unsigned long long>(v));
  }
}

// Runs only after check_sequence_lists passed: every list is then within [0, n).
__global__ void check_sequence_keys(const std::uint32_t* __restrict__ offsets, const Entry* __restrict__ entries,
                                    std::uint32_t range, std::uint64_t n,
                                    unsigned long long* __restrict__ first_bad_key) {
  for (const std::uint64_t k : grid_stride(n)) {
    const auto key = static_cast<std::uint32_t>(k);
    const std::uint32_t v = vertex_of(key, range);
    std::uint32_t found = 0;
    for (std::uint32_t e = offsets[v]; e < offsets[v + 1]; ++e) found += entries[e].key == key ? 1u : 0u;
    if (found != 1) atomicMin(first_bad_key, static_cast<unsigned long long>(k));
  }
}

// The first bad index the pass found, or kNone (synchronises `stream`).
unsigned long long first_bad(DeviceBuffer<unsigned long long>& flag, cudaStream_t stream) {
  unsigned long long host = 0;
  HASHLAB_CUDA_CHECK(cudaMemcpyAsync(&host, flag.data(), sizeof(host), cudaMemcpyDeviceToHost, stream));
  HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host;
}

}  // namespace

std::string check_sequence_table(const HashGraph& graph, cudaStream_t stream) {
  const std::uint64_t n = graph.size();
  const std::uint32_t range = graph.range();  // >= 1 (the constructor refuses 0)
  DeviceBuffer<unsigned long long> flag(1, stream);
  flag.fill_bytes(0xff, stream);  // kNone
  check_sequence_lists<<<grid_for(range), kDefaultBlock, 0, stream>>>(graph.offsets(), graph.entries(), range, n,
                                                                      flag.data());
  HASHLAB_CHECK_LAUNCH();
  if (const auto v = first_bad(flag, stream); v != kNone)
    return "the list of vertex " + std::to_string(v) +
           " is wrong: an offset out of order or beyond n, or an entry that is not (k, k) of this vertex";
  if (n == 0) return "";
  flag.fill_bytes(0xff, stream);
  check_sequence_keys<<<grid_for(n), kDefaultBlock, 0, stream>>>(graph.offsets(), graph.entries(), range, n,
                                                                 flag.data());
  HASHLAB_CHECK_LAUNCH();
  if (const auto k = first_bad(flag, stream); k != kNone)
    return "key " + std::to_string(k) + " does not occur exactly once in the list of its vertex";
  return "";
}

}  // namespace hashlab::hashgraph
