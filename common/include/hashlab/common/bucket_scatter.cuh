// The stable bucket scatter on the GPU (cpu::scatter_by_bucket's pass, scatter.hpp, on the device):
// rows [0, n) move to `buckets` contiguous runs, each bucket's rows in input order, in two reads of
// what bucket_of reads and one read and one write of what move moves:
//   1. count: each tile of rows counts its rows per bucket (one block a tile, warp-aggregated
//      shared-memory counters), written bucket-major: counts[b * tiles + t];
//   2. scan: an exclusive prefix sum of those counts gives each tile its first row in each bucket;
//   3. scatter: each tile walks its rows a block's width at a time; a row's place in its bucket is
//      the tile's cursor for the bucket, plus the rows of the bucket in earlier warps of this step,
//      plus its rank among the lanes of its warp with the same bucket (a ballot per bit of the
//      bucket number: two or three for the servers of one host).
// A radix sort of the bucket ids carrying the rows reads and writes every row two more times (its
// histogram and its scatter, after a pass that writes the ids), and a gather by the sorted row
// numbers reads a sector for every row it keeps: the servers' partitioning moves each row once.
//
//   const BucketScatter plan = plan_bucket_scatter(n, p, server_of_row, stream);
//   scatter_buckets(plan, server_of_row, [=] __device__(std::size_t i, std::uint64_t to) { out[to] = in[i]; },
//                   stream);   // bucket b: out[plan.offsets[b], plan.offsets[b + 1])
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/launch.cuh"
#include "hashlab/common/memory.hpp"
#include "hashlab/common/primitives.hpp"

namespace hashlab {

/// The most buckets the scatter takes (its shared memory: 40 bytes a bucket in the scatter step).
constexpr unsigned kMaxScatterBuckets = 4096;

/// Where each tile's rows of each bucket go, from plan_bucket_scatter; scatter_buckets moves the
/// rows (as often as wanted, with different moves: one pass per group of columns).
struct BucketScatter {
  std::size_t rows = 0;
  unsigned buckets = 1;
  std::size_t tile = 1;   // rows per tile (a block's)
  std::size_t tiles = 0;  // ceil(rows / tile)
  DeviceBuffer<std::uint64_t> tile_offsets;  // [b * tiles + t]: tile t's first row of bucket b
  std::vector<std::uint64_t> offsets;        // bucket b holds rows [offsets[b], offsets[b + 1])
};

namespace detail {

constexpr int kScatterBlock = 256;
constexpr int kScatterWarps = kScatterBlock / 32;
/// Tiles hold at least this many rows; more where buckets * tiles would pass kMaxScatterCounts.
constexpr std::size_t kMinScatterTile = 4096;
constexpr std::size_t kMaxScatterCounts = std::size_t{1} << 23;

/// The lanes of this warp whose bucket is this lane's: one ballot per bit of a bucket number
/// (`bits` of them, enough to write `buckets` itself, the bucket of a lane without a row).
__device__ __forceinline__ unsigned lanes_of_my_bucket(unsigned b, int bits) {
  unsigned peers = 0xffffffffu;
  for (int k = 0; k < bits; ++k) {
    const unsigned set = __ballot_sync(0xffffffffu, (b >> k) & 1u);
    peers &= ((b >> k) & 1u) != 0 ? set : ~set;
  }
  return peers;
}

/// Bits of `buckets` (lanes_of_my_bucket's `bits`).
inline int bucket_bits(unsigned buckets) {
  int bits = 1;
  while ((buckets >> bits) != 0) ++bits;
  return bits;
}

/// Rows a thread of count_tile_buckets reads before it counts any: with one 4-byte read in flight
/// a thread, a full SM keeps 8 KB in flight, about a third of what an H200's memory bandwidth
/// needs at its latency (4.8 TB/s * ~0.6 us over 132 SMs).
constexpr int kCountRowsPerThread = 4;

template <class BucketOf>
__global__ void __launch_bounds__(kScatterBlock)
    count_tile_buckets(std::size_t n, std::size_t tile, std::size_t tiles, unsigned buckets, int bits,
                       BucketOf bucket_of, std::uint64_t* counts) {
  extern __shared__ unsigned tile_counts[];
  for (unsigned b = threadIdx.x; b < buckets; b += blockDim.x) tile_counts[b] = 0;
  __syncthreads();
  const std::size_t t = blockIdx.x, begin = t * tile, end = std::min(n, begin + tile);
  const unsigned lane = threadIdx.x % 32;
  // The same steps in every thread (the ballots take every lane).
  for (std::size_t chunk = begin; chunk < end; chunk += std::size_t{kCountRowsPerThread} * blockDim.x) {
    unsigned b[kCountRowsPerThread];
#pragma unroll
    for (int k = 0; k < kCountRowsPerThread; ++k) {
      const std::size_t i = chunk + std::size_t{blockDim.x} * k + threadIdx.x;
      b[k] = i < end ? static_cast<unsigned>(bucket_of(i)) : buckets;
    }
#pragma unroll
    for (int k = 0; k < kCountRowsPerThread; ++k) {
      const std::size_t i = chunk + std::size_t{blockDim.x} * k + threadIdx.x;
      const unsigned peers = lanes_of_my_bucket(b[k], bits);
      if (i < end && lane == static_cast<unsigned>(__ffs(peers) - 1))
        atomicAdd(&tile_counts[b[k]], static_cast<unsigned>(__popc(peers)));
    }
  }
  __syncthreads();
  for (unsigned b = threadIdx.x; b < buckets; b += blockDim.x) counts[b * tiles + t] = tile_counts[b];
}

// tile_offsets[b * tiles] for each bucket, and the rows: the buckets' offsets. (A template only so
// that the header may define it in every translation unit.)
template <int = 0>
__global__ void bucket_starts(const std::uint64_t* tile_offsets, std::size_t tiles, unsigned buckets, std::size_t rows,
                              std::uint64_t* starts) {
  for (unsigned b = blockIdx.x * blockDim.x + threadIdx.x; b <= buckets; b += gridDim.x * blockDim.x)
    starts[b] = b < buckets ? tile_offsets[b * tiles] : rows;
}

template <class BucketOf, class Move>
__global__ void __launch_bounds__(kScatterBlock)
    scatter_tile_buckets(std::size_t n, std::size_t tile, std::size_t tiles, unsigned buckets, int bits,
                         BucketOf bucket_of, Move move, const std::uint64_t* tile_offsets) {
  extern __shared__ std::uint64_t scatter_shared[];
  std::uint64_t* cursor = scatter_shared;                                // [buckets]: the tile's next row of b
  auto* warp_counts = reinterpret_cast<unsigned*>(cursor + buckets);  // [warp * buckets + b]: step << 8 | rows
  const std::size_t t = blockIdx.x, begin = t * tile, end = std::min(n, begin + tile);
  for (unsigned b = threadIdx.x; b < buckets; b += blockDim.x) cursor[b] = tile_offsets[b * tiles + t];
  for (unsigned k = threadIdx.x; k < kScatterWarps * buckets; k += blockDim.x) warp_counts[k] = 0;  // step 0: none
  __syncthreads();
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  unsigned step = 0;
  // Each step reads the next step's buckets before its barriers, so that the read is in flight
  // while this step's rows move.
  unsigned next = begin + threadIdx.x < end ? static_cast<unsigned>(bucket_of(begin + threadIdx.x)) : buckets;
  for (std::size_t chunk = begin; chunk < end; chunk += blockDim.x) {  // the same steps in every thread
    ++step;
    const std::size_t i = chunk + threadIdx.x;
    const bool here = i < end;
    const unsigned b = next;
    next = i + blockDim.x < end ? static_cast<unsigned>(bucket_of(i + blockDim.x)) : buckets;
    const unsigned peers = lanes_of_my_bucket(b, bits);
    const unsigned rank = __popc(peers & ((1u << lane) - 1u));
    if (here && rank == 0) warp_counts[warp * buckets + b] = (step << 8) | static_cast<unsigned>(__popc(peers));
    __syncthreads();
    unsigned before = 0;
    bool last = true;  // no later warp of this step has rows of b
    if (here) {
      for (unsigned w = 0; w < kScatterWarps; ++w) {
        const unsigned c = warp_counts[w * buckets + b];
        if ((c >> 8) != step) continue;
        if (w < warp) before += c & 0xffu;
        if (w > warp) last = false;
      }
      move(i, cursor[b] + before + rank);
    }
    __syncthreads();  // every cursor read before the last warp of each bucket moves it on
    if (here && rank == 0 && last) cursor[b] += before + static_cast<unsigned>(__popc(peers));
  }
}

inline std::size_t scatter_shared_bytes(unsigned buckets) {
  return buckets * (sizeof(std::uint64_t) + kScatterWarps * sizeof(unsigned));
}

}  // namespace detail

/// Steps 1 and 2: counts each tile's rows per bucket and where they go. bucket_of(i) (a device
/// callable) must give a bucket below `buckets` for every row i < n; it is called again by each
/// scatter_buckets. Throws std::invalid_argument for buckets outside 1..kMaxScatterBuckets.
template <class BucketOf>
BucketScatter plan_bucket_scatter(std::size_t n, unsigned buckets, BucketOf bucket_of, cudaStream_t stream) {
  if (buckets < 1 || buckets > kMaxScatterBuckets)
    throw std::invalid_argument("plan_bucket_scatter: " + std::to_string(buckets) + " buckets (1 to " +
                                std::to_string(kMaxScatterBuckets) + ")");
  BucketScatter plan;
  plan.rows = n;
  plan.buckets = buckets;
  plan.tile = detail::kMinScatterTile;
  const std::size_t max_tiles = std::max<std::size_t>(1, detail::kMaxScatterCounts / buckets);
  while (div_up(n, plan.tile) > max_tiles) plan.tile *= 2;
  plan.tiles = div_up(n, plan.tile);
  plan.offsets.assign(std::size_t{buckets} + 1, 0);
  if (n == 0) return plan;
  DeviceBuffer<std::uint64_t> counts(buckets * plan.tiles, stream);
  detail::count_tile_buckets<<<static_cast<unsigned>(plan.tiles), detail::kScatterBlock, buckets * sizeof(unsigned),
                               stream>>>(n, plan.tile, plan.tiles, buckets, detail::bucket_bits(buckets), bucket_of, counts.data());
  HASHLAB_CHECK_LAUNCH();
  plan.tile_offsets = DeviceBuffer<std::uint64_t>(counts.size(), stream);
  prim::exclusive_scan(counts.data(), plan.tile_offsets.data(), counts.size(), stream);
  DeviceBuffer<std::uint64_t> starts(std::size_t{buckets} + 1, stream);
  detail::bucket_starts<><<<grid_for(std::size_t{buckets} + 1), kDefaultBlock, 0, stream>>>(
      plan.tile_offsets.data(), plan.tiles, buckets, n, starts.data());
  HASHLAB_CHECK_LAUNCH();
  plan.offsets = starts.to_host(stream);
  return plan;
}

/// Step 3: move(i, to) for every row i < plan.rows (a device callable), `to` its place: bucket b's
/// rows at [plan.offsets[b], plan.offsets[b + 1]), in input order. bucket_of must be the plan's,
/// and move must not write what bucket_of reads (the blocks run at once).
template <class BucketOf, class Move>
void scatter_buckets(const BucketScatter& plan, BucketOf bucket_of, Move move, cudaStream_t stream) {
  if (plan.rows == 0) return;
  const std::size_t shared = detail::scatter_shared_bytes(plan.buckets);
  const auto kernel = detail::scatter_tile_buckets<BucketOf, Move>;
  if (shared > 48 * 1024)  // past the default limit of dynamic shared memory (many buckets)
    HASHLAB_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
  kernel<<<static_cast<unsigned>(plan.tiles), detail::kScatterBlock, shared, stream>>>(
      plan.rows, plan.tile, plan.tiles, plan.buckets, detail::bucket_bits(plan.buckets), bucket_of, move,
      plan.tile_offsets.data());
  HASHLAB_CHECK_LAUNCH();
}

}  // namespace hashlab
