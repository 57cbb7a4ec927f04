// MP-EGA's kernels (EGA section 4.2.5): the first and third of the three partitioning kernels of
// a GPU tile (the second is CUB's prefix sum between them), and the gather that loads a merged
// partition's pieces over PCIe (MergeCopy::kGpuGather, ours). Their host side is in
// mp_ega_detail.hpp; mp_generate.cpp and mp_process.cpp call it.
#include <cstddef>
#include <cstdint>

#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/launch.cuh"
#include "hashlab/common/primitives.hpp"
#include "mp_ega_detail.hpp"

namespace hashlab::ega::detail {
namespace {

constexpr int kPartitionBlock = 256;
constexpr int kPartitionItems = 4;  // pairs per thread of the in-block index kernel

// 4.2.5, first partitioning kernel: the index of each pair within its partition. Block-local
// counters (shared memory atomics) give the index within the block; one atomic per partition and
// block on the global counters gives the block's place in the partition.
__global__ void partition_index_in_block(const std::uint32_t* keys, std::size_t n, std::uint32_t partitions,
                                         std::uint32_t* global_counts, std::uint32_t* index_in_partition) {
  extern __shared__ std::uint32_t block_counts[];
  for (std::uint32_t p = threadIdx.x; p < partitions; p += blockDim.x) block_counts[p] = 0;
  __syncthreads();
  const std::size_t base = blockIdx.x * std::size_t{kPartitionBlock * kPartitionItems};
  std::uint32_t part[kPartitionItems];
  std::uint32_t local[kPartitionItems];
  for (int j = 0; j < kPartitionItems; ++j) {
    const std::size_t i = base + std::size_t(j) * blockDim.x + threadIdx.x;
    if (i < n) {
      part[j] = partition_of(keys[i], partitions);
      local[j] = atomicAdd(block_counts + part[j], 1u);
    }
  }
  __syncthreads();
  for (std::uint32_t p = threadIdx.x; p < partitions; p += blockDim.x) {
    const std::uint32_t count = block_counts[p];
    if (count > 0) block_counts[p] = atomicAdd(global_counts + p, count);
  }
  __syncthreads();
  for (int j = 0; j < kPartitionItems; ++j) {
    const std::size_t i = base + std::size_t(j) * blockDim.x + threadIdx.x;
    if (i < n) index_in_partition[i] = block_counts[part[j]] + local[j];
  }
}

// 4.2.5, third partitioning kernel: final index = the partition's start (the second kernel, a
// prefix sum of the global counters) + the index within the partition; scatter the pair there.
__global__ void partition_scatter(const std::uint32_t* keys, const std::uint64_t* values, std::size_t n,
                                  std::uint32_t partitions, const std::uint32_t* index_in_partition,
                                  const std::uint32_t* partition_begin, std::uint32_t* out_keys,
                                  std::uint64_t* out_values) {
  for (const std::size_t i : grid_stride(n)) {
    const std::uint32_t key = keys[i];
    const std::size_t at = std::size_t{partition_begin[partition_of(key, partitions)]} + index_in_partition[i];
    out_keys[at] = key;
    out_values[at] = values[i];
  }
}

// Rows [first, first + rows) of a column in pinned host memory to out[0, rows), by the calling
// block. The reads are aligned 16-byte vectors, so that each warp's request is whole 128-byte
// lines over PCIe; a vector's items outside the range are dropped.
template <typename T>
__device__ void gather_range(const T* column, std::size_t first, std::size_t rows, T* out) {
  constexpr std::size_t kPerVector = sizeof(uint4) / sizeof(T);
  const auto* vectors = reinterpret_cast<const uint4*>(column);
  const std::size_t end = first + rows;
  for (std::size_t v = first / kPerVector + threadIdx.x; v * kPerVector < end; v += blockDim.x) {
    const uint4 word = vectors[v];
    const T* items = reinterpret_cast<const T*>(&word);
#pragma unroll
    for (std::size_t k = 0; k < kPerVector; ++k) {
      const std::size_t row = v * kPerVector + k;
      if (row >= first && row < end) out[row - first] = items[k];
    }
  }
}

// MergeCopy::kGpuGather: a load's rows [0, count), read over PCIe from the tiles' output in pinned
// host memory (zero-copy), one block per piece. Piece q is the load's rows [starts[q], starts[q +
// 1]) (the last one up to count) and begins at row sources[q] of the tiles' output.
__global__ void gather_pieces(const std::uint32_t* tile_keys, const std::uint64_t* tile_values,
                              const std::uint32_t* starts, const std::uint64_t* sources, std::uint32_t pieces,
                              std::size_t count, std::uint32_t* keys, std::uint64_t* values) {
  const std::uint32_t q = blockIdx.x;
  const std::size_t at = starts[q];
  const std::size_t rows = (q + 1 < pieces ? starts[q + 1] : count) - at;
  gather_range(tile_keys, sources[q], rows, keys + at);
  gather_range(tile_values, sources[q], rows, values + at);
}

}  // namespace

void partition_on_gpu(const Groups& g, std::uint32_t partitions, DeviceBuffer<std::uint32_t>& counts,
                      std::uint32_t* index_in_partition, std::uint32_t* out_keys, std::uint64_t* out_values,
                      cudaStream_t stream) {
  counts.fill_bytes(0, stream);
  if (g.count > 0) {
    const auto blocks = static_cast<unsigned>(div_up<std::size_t>(g.count, kPartitionBlock * kPartitionItems));
    partition_index_in_block<<<blocks, kPartitionBlock, partitions * sizeof(std::uint32_t), stream>>>(
        g.keys, g.count, partitions, counts.data(), index_in_partition);
    HASHLAB_CHECK_LAUNCH();
  }
  prim::exclusive_scan(counts.data(), counts.data(), partitions, stream);
  if (g.count > 0) {
    partition_scatter<<<grid_for(g.count), kDefaultBlock, 0, stream>>>(g.keys, g.aggregates, g.count, partitions,
                                                                        index_in_partition, counts.data(), out_keys,
                                                                        out_values);
    HASHLAB_CHECK_LAUNCH();
  }
}

void gather_pieces_on_gpu(const std::uint32_t* tile_keys, const std::uint64_t* tile_values,
                          const std::uint32_t* starts, const std::uint64_t* sources, std::uint32_t pieces,
                          std::size_t count, std::uint32_t* keys, std::uint64_t* values, cudaStream_t stream) {
  gather_pieces<<<pieces, kDefaultBlock, 0, stream>>>(tile_keys, tile_values, starts, sources, pieces, count, keys,
                                                      values);
  HASHLAB_CHECK_LAUNCH();
}

}  // namespace hashlab::ega::detail
