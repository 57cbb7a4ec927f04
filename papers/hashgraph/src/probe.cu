// Probing (section 3.4): probe-standard walks each query's vertex list in the table; probe-new
// (Alg. 3) builds a HashGraph over the queries and intersects the lists vertex by vertex.
#include <limits>
#include <stdexcept>
#include <string>

#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/launch.cuh"
#include "hashlab/common/memory.hpp"
#include "hashlab/common/primitives.hpp"
#include "hashlab/common/reduce.cuh"
#include "hashlab/hashgraph/probe.hpp"

namespace hashlab::hashgraph {
namespace {

// Where the probing side's keys come from. probe-standard: the queries in input order.
struct QueriesInOrder {
  const std::uint32_t* keys;
  __device__ Entry operator[](std::uint64_t j) const { return Entry{keys[j], static_cast<std::uint32_t>(j)}; }
};
// probe-new: the entries of the queries' HashGraph, i.e. the queries grouped by vertex, so that
// neighbouring threads intersect the same table list (fetched once, then served from cache).
struct QueriesByVertex {
  const Entry* entries;
  __device__ Entry operator[](std::uint64_t p) const { return entries[p]; }
};

// The table's list of the query's vertex: offsets[v] .. offsets[v + 1].
struct TableView {
  const std::uint32_t* offsets;
  const Entry* entries;
  std::uint32_t range;
  template <class OnMatch>
  __device__ void for_each_match(std::uint32_t key, OnMatch on_match) const {
    const std::uint32_t v = vertex_of(key, range);
    const std::uint32_t end = offsets[v + 1];
    for (std::uint32_t e = offsets[v]; e < end; ++e) {
      const Entry entry = entries[e];
      if (entry.key == key) on_match(entry.index);
    }
  }
};

constexpr int kBlock = 256;

// Count-only probe (section 5.2's timed operation): the number of matching pairs, summed per
// block, then one atomic per block.
template <class Queries>
__global__ void __launch_bounds__(kBlock)
    hashgraph_probe_count(TableView table, Queries queries, std::uint64_t m, unsigned long long* total) {
  unsigned long long matches = 0;
  for (const std::uint64_t j : grid_stride(m))
    table.for_each_match(queries[j].key, [&](std::uint32_t) { ++matches; });
  atomic_add_block_sum<kBlock>(total, matches);
}

// Materializing probe, pass 1: the number of matches of every query (or query entry).
template <class Queries>
__global__ void hashgraph_probe_count_each(TableView table, Queries queries, std::uint64_t m,
                                           std::uint64_t* __restrict__ counts) {
  for (const std::uint64_t j : grid_stride(m)) {
    std::uint64_t matches = 0;
    table.for_each_match(queries[j].key, [&](std::uint32_t) { ++matches; });
    counts[j] = matches;
  }
}

// Materializing probe, pass 2 (after the scan of the counts): write the pairs.
template <class Queries>
__global__ void hashgraph_probe_write(TableView table, Queries queries, std::uint64_t m,
                                      const std::uint64_t* __restrict__ out_offsets,
                                      reference::JoinPair* __restrict__ pairs) {
  for (const std::uint64_t j : grid_stride(m)) {
    const Entry query = queries[j];
    std::uint64_t out = out_offsets[j];
    table.for_each_match(query.key, [&](std::uint32_t row) { pairs[out++] = reference::JoinPair{row, query.index}; });
  }
}

}  // namespace

const char* to_string(ProbeMethod method) { return method == ProbeMethod::kStandard ? "probe_standard" : "probe_new"; }

Prober::Prober(const HashGraph& table, ProbeMethod method, std::uint64_t max_queries, cudaStream_t stream,
               BuildOptions query_build)
    : table_(table), method_(method), max_queries_(max_queries) {
  if (max_queries > kMaxKeys)
    throw std::invalid_argument("HashGraph probe: " + std::to_string(max_queries) +
                                " queries exceed the 32-bit rows (at most 2^32 - 1)");
  if (method == ProbeMethod::kNew)
    query_graph_ = std::make_unique<HashGraph>(max_queries, table.range(), query_build, stream);
}

void Prober::check_queries(const std::uint32_t* queries, std::uint64_t m) const {
  if (m > max_queries_)
    throw std::invalid_argument("HashGraph probe: " + std::to_string(m) + " queries exceed the prober's " +
                                std::to_string(max_queries_));
  if (m > 0 && queries == nullptr) throw std::invalid_argument("HashGraph probe: queries is null");
}

void Prober::count(const std::uint32_t* queries, std::uint64_t m, std::uint64_t* d_count, cudaStream_t stream) {
  check_queries(queries, m);
  HASHLAB_CUDA_CHECK(cudaMemsetAsync(d_count, 0, sizeof(std::uint64_t), stream));
  if (m == 0) return;
  const TableView table{table_.offsets(), table_.entries(), table_.range()};
  auto* total = reinterpret_cast<unsigned long long*>(d_count);
  static_assert(sizeof(unsigned long long) == sizeof(std::uint64_t));
  const unsigned grid = grid_for(m, kBlock);
  if (method_ == ProbeMethod::kStandard) {
    hashgraph_probe_count<<<grid, kBlock, 0, stream>>>(table, QueriesInOrder{queries}, m, total);
  } else {
    query_graph_->build(queries, m, stream);  // Alg. 3: the second HashGraph, same range
    hashgraph_probe_count<<<grid, kBlock, 0, stream>>>(table, QueriesByVertex{query_graph_->entries()}, m, total);
  }
  HASHLAB_CHECK_LAUNCH();
}

DeviceBuffer<reference::JoinPair> Prober::join(const std::uint32_t* queries, std::uint64_t m, cudaStream_t stream) {
  check_queries(queries, m);
  if (m == 0) return {};
  if (match_counts_.size() < m + 1) match_counts_ = DeviceBuffer<std::uint64_t>(m + 1, stream);
  const TableView table{table_.offsets(), table_.entries(), table_.range()};
  const unsigned grid = grid_for(m, kBlock);
  std::uint64_t* counts = match_counts_.data();
  HASHLAB_CUDA_CHECK(cudaMemsetAsync(counts + m, 0, sizeof(std::uint64_t), stream));  // scans to the total
  const QueriesInOrder in_order{queries};
  QueriesByVertex by_vertex{nullptr};
  if (method_ == ProbeMethod::kNew) {
    query_graph_->build(queries, m, stream);
    by_vertex.entries = query_graph_->entries();
  }
  if (method_ == ProbeMethod::kStandard)
    hashgraph_probe_count_each<<<grid, kBlock, 0, stream>>>(table, in_order, m, counts);
  else
    hashgraph_probe_count_each<<<grid, kBlock, 0, stream>>>(table, by_vertex, m, counts);
  HASHLAB_CHECK_LAUNCH();
  prim::exclusive_scan(counts, counts, m + 1, stream);
  const std::uint64_t total = read_device_value(counts + m, stream);
  // Skewed joins can ask for more pairs than any memory holds (one key n times on both sides
  // gives n^2): refuse before the byte count wraps.
  if (total > std::numeric_limits<std::size_t>::max() / sizeof(reference::JoinPair))
    throw OutOfDeviceMemory("HashGraph join: " + std::to_string(total) + " matching pairs cannot be materialised");
  DeviceBuffer<reference::JoinPair> pairs(total, stream);
  if (total == 0) return pairs;
  if (method_ == ProbeMethod::kStandard)
    hashgraph_probe_write<<<grid, kBlock, 0, stream>>>(table, in_order, m, counts, pairs.data());
  else
    hashgraph_probe_write<<<grid, kBlock, 0, stream>>>(table, by_vertex, m, counts, pairs.data());
  HASHLAB_CHECK_LAUNCH();
  return pairs;
}

}  // namespace hashlab::hashgraph
