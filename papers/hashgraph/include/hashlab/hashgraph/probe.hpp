// Probing a HashGraph with a second input (section 3.4): every (table row, query row) pair with
// equal keys, not only the first match.
//
//   probe-standard: each query hashes to its vertex and walks that vertex's list in the table
//                   (the open-addressing way, over a list that holds only the vertex's keys).
//   probe-new (Alg. 3): build a second HashGraph over the queries with the same hash range, then
//                   intersect the two lists of every vertex. Queries of one vertex are adjacent,
//                   so the table's list is fetched once and reused from cache.
//
// Two modes: count() gives the number of matching pairs (what the paper times, section 5.4:
// "the lists with the results of the intersection are not instantiated"); join() writes them.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>

#include "hashlab/common/memory.hpp"
#include "hashlab/hashgraph/hashgraph.hpp"
#include "hashlab/reference/join.hpp"

namespace hashlab::hashgraph {

enum class ProbeMethod { kStandard, kNew };
const char* to_string(ProbeMethod method);

class Prober {
 public:
  /// A prober of `table` for up to `max_queries` queries. probe-new allocates its HashGraph over
  /// the queries here (the table's range, built with `query_build`); `table` must outlive it.
  Prober(const HashGraph& table, ProbeMethod method, std::uint64_t max_queries, cudaStream_t stream,
         BuildOptions query_build = {});

  /// *d_count = the number of pairs (i, j) with table key i == queries[j] (a device counter).
  /// probe-new's time includes building the queries' HashGraph, as in the paper (section 5.2).
  void count(const std::uint32_t* queries, std::uint64_t m, std::uint64_t* d_count, cudaStream_t stream);

  /// Every pair (r_index = table row, s_index = query row), in no particular order. Counts,
  /// scans and writes; synchronises `stream` once to size the output.
  DeviceBuffer<reference::JoinPair> join(const std::uint32_t* queries, std::uint64_t m, cudaStream_t stream);

  ProbeMethod method() const { return method_; }
  /// probe-new's HashGraph over the last queries (nullptr for probe-standard).
  const HashGraph* query_graph() const { return query_graph_.get(); }

 private:
  void check_queries(const std::uint32_t* queries, std::uint64_t m) const;

  const HashGraph& table_;
  ProbeMethod method_;
  std::uint64_t max_queries_;
  std::unique_ptr<HashGraph> query_graph_;
  DeviceBuffer<std::uint64_t> match_counts_;  // join(): matches per query (or per query entry)
};

}  // namespace hashlab::hashgraph
