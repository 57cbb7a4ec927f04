// HashGraph-V2 (section 3.3, Alg. 2): the input is first binned by ranges of vertices (phases 1
// and 2), so that phase 3 builds the CSR one bin at a time with a working set that fits in
// on-chip memory: here one thread block per bin counts, scans and places in shared memory.
#include <cub/block/block_scan.cuh>

#include <mutex>

#include "detail.hpp"
#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/launch.cuh"
#include "hashlab/common/primitives.hpp"
#include "hashlab/hashgraph/hashgraph.hpp"

namespace hashlab::hashgraph {
namespace {

// Phase 1 (bin counting): count the keys whose vertex falls in each bin's slice of the range.
// The bin counters are few (32K by default), so their atomics stay in L2.
__global__ void hashgraph_v2_bin_count(const std::uint32_t* __restrict__ keys, std::uint64_t n, std::uint32_t range,
                                       std::uint32_t bin_size, std::uint32_t* __restrict__ bin_counts) {
  for (const std::uint64_t i : grid_stride(n))
    atomicAdd(&bin_counts[vertex_of(keys[i], range) / bin_size], 1u);
}

// Phase 2 (bin placement and data reorganization): write every (key, row) tuple into its bin's
// part of the reorganized array, at the bin's offset plus an atomic position.
__global__ void hashgraph_v2_reorganize(const std::uint32_t* __restrict__ keys, std::uint64_t n, std::uint32_t range,
                                        std::uint32_t bin_size, const std::uint32_t* __restrict__ bin_offsets,
                                        std::uint32_t* __restrict__ bin_counts, Entry* __restrict__ tuples) {
  for (const std::uint64_t i : grid_stride(n)) {
    const std::uint32_t key = keys[i];
    const std::uint32_t bin = vertex_of(key, range) / bin_size;
    tuples[bin_offsets[bin] + atomicAdd(&bin_counts[bin], 1u)] = Entry{key, static_cast<std::uint32_t>(i)};
  }
}

// Phase 3 (HashGraph creation), one block per bin: count the bin's tuples per vertex, scan the
// counts into the bin's part of the offsets and place the tuples, all in shared memory. The bin's
// tuples are contiguous (phase 2), so global memory sees sequential reads and writes only.
__global__ void __launch_bounds__(detail::kPhase3Block)
    hashgraph_v2_build_bins(const Entry* __restrict__ tuples, const std::uint32_t* __restrict__ bin_offsets,
                            std::uint32_t bins, std::uint32_t bin_size, std::uint32_t range, std::uint64_t n,
                            std::uint32_t* __restrict__ offsets, Entry* __restrict__ entries) {
  using BlockScan = cub::BlockScan<std::uint32_t, detail::kPhase3Block>;
  __shared__ typename BlockScan::TempStorage scan_storage;
  extern __shared__ std::uint32_t counters[];  // bin_size per-vertex counters, then cursors

  for (std::uint32_t bin = blockIdx.x; bin < bins; bin += gridDim.x) {
    const std::uint32_t first_vertex = bin * bin_size;  // < range: bins = ceil(range / bin_size)
    const std::uint32_t vertices = min(bin_size, range - first_vertex);
    const std::uint32_t begin = bin_offsets[bin];
    const std::uint32_t end = bin_offsets[bin + 1];

    for (std::uint32_t v = threadIdx.x; v < vertices; v += blockDim.x) counters[v] = 0;
    __syncthreads();
    for (std::uint32_t p = begin + threadIdx.x; p < end; p += blockDim.x)
      atomicAdd(&counters[vertex_of(tuples[p].key, range) - first_vertex], 1u);
    __syncthreads();

    // Exclusive scan of the counters: each thread scans a run of consecutive vertices.
    const std::uint32_t per_thread = (vertices + blockDim.x - 1) / blockDim.x;
    const std::uint32_t run_begin = min(vertices, threadIdx.x * per_thread);
    const std::uint32_t run_end = min(vertices, run_begin + per_thread);
    std::uint32_t run_sum = 0;
    for (std::uint32_t v = run_begin; v < run_end; ++v) run_sum += counters[v];
    std::uint32_t run_offset = 0;
    BlockScan(scan_storage).ExclusiveSum(run_sum, run_offset);
    for (std::uint32_t v = run_begin; v < run_end; ++v) {
      const std::uint32_t count = counters[v];
      counters[v] = run_offset;  // now the vertex's cursor, relative to the bin
      offsets[first_vertex + v] = begin + run_offset;
      run_offset += count;
    }
    if (bin == bins - 1 && threadIdx.x == 0) offsets[range] = static_cast<std::uint32_t>(n);
    __syncthreads();

    for (std::uint32_t p = begin + threadIdx.x; p < end; p += blockDim.x) {
      const Entry tuple = tuples[p];
      entries[begin + atomicAdd(&counters[vertex_of(tuple.key, range) - first_vertex], 1u)] = tuple;
    }
    __syncthreads();  // the counters are reused by the block's next bin
  }
}

// Phase 3 fallback, when a bin's slice of the range does not fit in shared memory: the count and
// place loops of V1 over the reorganized tuples (still far more local than over the input).
__global__ void hashgraph_v2_count_global(const Entry* __restrict__ tuples, std::uint64_t n, std::uint32_t range,
                                          std::uint32_t* __restrict__ counters) {
  for (const std::uint64_t p : grid_stride(n))
    atomicAdd(&counters[vertex_of(tuples[p].key, range)], 1u);
}

__global__ void hashgraph_v2_place_global(const Entry* __restrict__ tuples, std::uint64_t n, std::uint32_t range,
                                          const std::uint32_t* __restrict__ offsets,
                                          std::uint32_t* __restrict__ counters, Entry* __restrict__ entries) {
  for (const std::uint64_t p : grid_stride(n)) {
    const Entry tuple = tuples[p];
    const std::uint32_t v = vertex_of(tuple.key, range);
    entries[offsets[v] + atomicAdd(&counters[v], 1u)] = tuple;
  }
}

// Shared memory the phase-3 kernel may use for its counters: the device's opt-in maximum per
// block, less the kernel's static shared memory (the scan's temporary storage).
std::size_t phase3_dynamic_shared_limit() {
  int device = 0;
  HASHLAB_CUDA_CHECK(cudaGetDevice(&device));
  int optin = 0;
  HASHLAB_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  cudaFuncAttributes attributes{};
  HASHLAB_CUDA_CHECK(cudaFuncGetAttributes(&attributes, hashgraph_v2_build_bins));
  const std::size_t limit = static_cast<std::size_t>(optin) - attributes.sharedSizeBytes;
  HASHLAB_CUDA_CHECK(cudaFuncSetAttribute(hashgraph_v2_build_bins, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(limit)));
  return limit;
}

}  // namespace

namespace detail {
std::uint32_t phase3_max_shared_vertices() {
  static std::once_flag once;
  static std::size_t limit = 0;
  std::call_once(once, [] { limit = phase3_dynamic_shared_limit(); });
  return static_cast<std::uint32_t>(limit / sizeof(std::uint32_t));
}
}  // namespace detail

// The steps marked on `phases`: zero_bins, bin_count, bin_prefix_sum (phase 1); reset_bins,
// reorganize (phase 2); build_bins (phase 3 in shared memory) or, in the global fallback,
// phase3_zero, phase3_count, phase3_prefix_sum, phase3_reset, phase3_place.
void HashGraph::build_v2(const std::uint32_t* keys, std::uint64_t n, cudaStream_t stream, PhaseTimer* phases) {
  const unsigned grid = grid_for(n);
  const std::size_t bins = bins_used_;

  // Phase 1: bin counting, then the prefix over the bins (bin_counts[bins] stays 0, so
  // bin_offsets[bins] = n).
  timed_phase(phases, "zero_bins", stream, bins + 1, "bins", [&] { bin_counts_.fill_bytes(0, stream); });
  timed_phase(phases, "bin_count", stream, n, "keys", [&] {
    hashgraph_v2_bin_count<<<grid, kDefaultBlock, 0, stream>>>(keys, n, range_, bin_size_, bin_counts_.data());
    HASHLAB_CHECK_LAUNCH();
  });
  timed_phase(phases, "bin_prefix_sum", stream, bins + 1, "bins",
              [&] { prim::exclusive_scan(bin_counts_.data(), bin_offsets_.data(), bins + 1, stream); });

  // Phase 2: reorganize the input bin by bin (the bin counters, reset, become cursors).
  timed_phase(phases, "reset_bins", stream, bins + 1, "bins", [&] { bin_counts_.fill_bytes(0, stream); });
  timed_phase(phases, "reorganize", stream, n, "keys", [&] {
    hashgraph_v2_reorganize<<<grid, kDefaultBlock, 0, stream>>>(keys, n, range_, bin_size_, bin_offsets_.data(),
                                                                bin_counts_.data(), tuples_.data());
    HASHLAB_CHECK_LAUNCH();
  });

  // Phase 3: the CSR from the reorganized tuples.
  if (shared_phase3_) {
    const std::size_t shared = std::size_t{bin_size_} * sizeof(std::uint32_t);
    const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>(bins, 1u << 30));
    timed_phase(phases, "build_bins", stream, n, "keys", [&] {
      hashgraph_v2_build_bins<<<blocks, detail::kPhase3Block, shared, stream>>>(
          tuples_.data(), bin_offsets_.data(), bins_used_, bin_size_, range_, n, offsets_.data(), entries_.data());
      HASHLAB_CHECK_LAUNCH();
    });
    return;
  }
  const std::size_t vertices = std::size_t{range_} + 1;
  timed_phase(phases, "phase3_zero", stream, vertices, "vertices", [&] { counters_.fill_bytes(0, stream); });
  timed_phase(phases, "phase3_count", stream, n, "keys", [&] {
    hashgraph_v2_count_global<<<grid, kDefaultBlock, 0, stream>>>(tuples_.data(), n, range_, counters_.data());
    HASHLAB_CHECK_LAUNCH();
  });
  timed_phase(phases, "phase3_prefix_sum", stream, vertices, "vertices",
              [&] { prim::exclusive_scan(counters_.data(), offsets_.data(), vertices, stream); });
  timed_phase(phases, "phase3_reset", stream, vertices, "vertices", [&] { counters_.fill_bytes(0, stream); });
  timed_phase(phases, "phase3_place", stream, n, "keys", [&] {
    hashgraph_v2_place_global<<<grid, kDefaultBlock, 0, stream>>>(tuples_.data(), n, range_, offsets_.data(),
                                                                  counters_.data(), entries_.data());
    HASHLAB_CHECK_LAUNCH();
  });
}

}  // namespace hashlab::hashgraph
