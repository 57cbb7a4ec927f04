// The stable bucket scatter on the GPU (cpu::scatter_by_bucket's pass, scatter.hpp, on the device):
// rows [0, n) move to `buckets` contiguous runs, each bucket's rows in input order, in two reads of
// what bucket_of reads and one read and one write of what move moves:
//   1. count: each tile of rows counts its rows per bucket (one block a tile, warp-aggregated
//      shared-memory counters), written bucket-major: counts[b * tiles + t];
//   2. scan: an exclusive prefix sum of those counts gives each tile its first row in each bucket;
//   3. scatter: each tile walks its rows kScatterStepRows (4 a thread) at a time, and each step
//      first reads all its rows (their buckets, and their payloads through move.load), so that a
//      thread has 4 rows' reads in flight, not one, when it first waits on memory. A warp's rows
//      of a step are consecutive (warp w of the step holds its rows [128 w, 128 w + 128), in 4
//      sub-steps of 32, lane l taking row 32 k + l of sub-step k), so a warp ranks its 128 rows
//      with ballots alone (one per bit of `buckets` and sub-step: 8 at 2 servers), and a row's
//      place in its bucket is the tile's cursor for the bucket, plus the rows of the bucket in
//      earlier warps of this step (one count a warp and bucket in shared memory, two barriers a
//      step), plus its place among its warp's rows of the bucket (earlier sub-steps, then earlier
//      lanes). The other orders cost more: sub-steps outermost (every warp's sub-step 0, then
//      sub-step 1, ...) needs a count for each warp and sub-step, 4 times the shared memory (then
//      no longer room for 4096 buckets), or two barriers a sub-step; a thread owning 4 consecutive
//      rows makes each load instruction of a warp span 4 times the sectors.
// A radix sort of the bucket ids carrying the rows reads and writes every row two more times (its
// histogram and its scatter, after a pass that writes the ids), and a gather by the sorted row
// numbers reads a sector for every row it keeps: the servers' partitioning moves each row once.
//
// A move is read and written apart, so that the reads of a step's rows go out together:
//   struct MoveRow {
//     const std::uint32_t* in; std::uint32_t* out;
//     __device__ std::uint32_t load(std::size_t i) const { return in[i]; }           // reads only
//     __device__ void store(std::uint64_t to, std::uint32_t v) const { out[to] = v; }
//   };
//   const BucketScatter plan = plan_bucket_scatter(n, p, server_of_row, stream);
//   scatter_buckets(plan, server_of_row, MoveRow{in, out}, stream);  // bucket b: out[plan.offsets[b], plan.offsets[b + 1])
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
/// Rows a thread of scatter_tile_buckets reads at once (a step's). With one row a thread, each
/// step of 256 rows waited a memory latency for its moves' reads (issued after its first barrier);
/// with 4, a step of 1024 rows waits one. At ptxas's 48 registers a thread for the join's hash
/// partition (CUDA 13.0, sm_90), 5 blocks fit an SM: 5120 rows' reads in flight, about 60 KB,
/// over the ~22 KB an H200's bandwidth needs at its latency (4.8 TB/s * ~0.6 us over 132 SMs).
/// More rows would hold more registers (a shuffle pass's payload is 8 columns, 16 registers a
/// row: 128 a thread at 4) for no more bandwidth, and a warp's rows of a bucket in a step must fit
/// warp_counts' 8 bits.
constexpr int kScatterRowsPerThread = 4;
constexpr unsigned kScatterWarpRows = 32 * kScatterRowsPerThread;                 // a warp's, a step
constexpr std::size_t kScatterStepRows = std::size_t{kScatterWarpRows} * kScatterWarps;  // a block's, a step
static_assert(kScatterWarpRows < 256, "warp_counts holds a warp's rows of a bucket in a step in 8 bits");
/// Tiles hold at least this many rows; more where buckets * tiles would pass kMaxScatterCounts.
constexpr std::size_t kMinScatterTile = 4096;
constexpr std::size_t kMaxScatterCounts = std::size_t{1} << 23;
static_assert(kMinScatterTile % kScatterStepRows == 0, "a tile is whole steps (it only grows by doubling)");

/// The row that lane `lane` of warp `warp` takes in sub-step k of the scatter's step at `chunk`.
HASHLAB_HD std::size_t scatter_row(std::size_t chunk, unsigned warp, int k, unsigned lane) {
  return chunk + std::size_t{warp} * kScatterWarpRows + static_cast<unsigned>(k) * 32u + lane;
}

/// `peers` (lanes) narrowed to those whose bit `bit` of the bucket is bucket b's: `set` is the
/// ballot of that bit over the warp's lanes.
HASHLAB_HD unsigned same_bit(unsigned peers, unsigned b, int bit, unsigned set) {
  return peers & (((b >> bit) & 1u) != 0 ? set : ~set);
}

/// warp_counts' word: the step it was written in (a stale word is not this step's: nothing to
/// clear between steps) and the warp's rows of the bucket in it.
HASHLAB_HD unsigned warp_count_word(unsigned step, unsigned rows) { return (step << 8) | rows; }
HASHLAB_HD unsigned warp_count_step(unsigned word) { return word >> 8; }
HASHLAB_HD unsigned warp_count_rows(unsigned word) { return word & 0xffu; }

/// The lanes of this warp whose bucket is this lane's: one ballot per bit of a bucket number
/// (`bits` of them, enough to write `buckets` itself, the bucket of a lane without a row).
__device__ __forceinline__ unsigned lanes_of_my_bucket(unsigned b, int bits) {
  unsigned peers = 0xffffffffu;
  for (int k = 0; k < bits; ++k) peers = same_bit(peers, b, k, __ballot_sync(0xffffffffu, (b >> k) & 1u));
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
static_assert(kMinScatterTile % (std::size_t{kCountRowsPerThread} * kScatterBlock) == 0,
              "the count's chunks and the scatter's steps cover the same tile");

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
    // A row past the tile's end reads the tile's last row, unused (as in the scatter): a branch
    // around bucket_of made each row's read wait for the bucket of the row before it.
    unsigned b[kCountRowsPerThread];
#pragma unroll
    for (int k = 0; k < kCountRowsPerThread; ++k) {
      const std::size_t i = chunk + std::size_t{blockDim.x} * k + threadIdx.x;
      const auto read = static_cast<unsigned>(bucket_of(i < end ? i : end - 1));
      b[k] = i < end ? read : buckets;
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

// Step 3 (the header comment's layout). Each step: (a) every read of its rows, payloads first, then
// buckets (a bucket_of that computes on what it read waits for it; the payloads are out by then);
// (b) each row's place among its warp's rows of its bucket, from ballots; (c) the warp's count of
// each bucket, written once (by the warp's first row of it); barrier; (d) each row's place, and its
// store; barrier (every cursor read before it moves on); (e) the last warp with rows of a bucket
// moves its cursor past this step's rows of it.
template <class BucketOf, class Move>
__global__ void __launch_bounds__(kScatterBlock)
    scatter_tile_buckets(std::size_t n, std::size_t tile, std::size_t tiles, unsigned buckets, int bits,
                         BucketOf bucket_of, Move move, const std::uint64_t* tile_offsets) {
  constexpr int kRows = kScatterRowsPerThread;
  using Payload = decltype(move.load(std::size_t{0}));
  extern __shared__ std::uint64_t scatter_shared[];
  std::uint64_t* cursor = scatter_shared;                                // [buckets]: the tile's next row of b
  auto* warp_counts = reinterpret_cast<unsigned*>(cursor + buckets);  // [warp * buckets + b]: warp_count_word
  const std::size_t t = blockIdx.x, begin = t * tile, end = std::min(n, begin + tile);
  for (unsigned b = threadIdx.x; b < buckets; b += blockDim.x) cursor[b] = tile_offsets[b * tiles + t];
  for (unsigned k = threadIdx.x; k < kScatterWarps * buckets; k += blockDim.x) warp_counts[k] = 0;  // step 0: none
  __syncthreads();
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32, lanes_before = (1u << lane) - 1u;
  unsigned step = 0;
  for (std::size_t chunk = begin; chunk < end; chunk += kScatterStepRows) {  // the same steps in every thread
    ++step;
    // (a) A row past the tile's end reads the tile's last row, unused, and has the bucket
    // `buckets`, which no row has: no branch around the reads, so that none waits for the one
    // before it (a branch around a row's load made ptxas copy the loaded registers at its end,
    // waiting for the load, before the next row's load went out).
    Payload row[kRows];
    unsigned b[kRows];
#pragma unroll
    for (int k = 0; k < kRows; ++k) {
      const std::size_t i = scatter_row(chunk, warp, k, lane);
      row[k] = move.load(i < end ? i : end - 1);
    }
#pragma unroll
    for (int k = 0; k < kRows; ++k) {
      const std::size_t i = scatter_row(chunk, warp, k, lane);
      const auto read = static_cast<unsigned>(bucket_of(i < end ? i : end - 1));
      b[k] = i < end ? read : buckets;
    }
    // (b) Sub-step s's ballots, matched against each of this lane's buckets: `within` counts the
    // warp's rows of b[k] before row k (in earlier sub-steps, then in earlier lanes of its own),
    // `total` all the warp's rows of b[k] in this step.
    unsigned within[kRows], total[kRows];
#pragma unroll
    for (int k = 0; k < kRows; ++k) within[k] = 0, total[k] = 0;
#pragma unroll
    for (int s = 0; s < kRows; ++s) {
      unsigned peers[kRows];
#pragma unroll
      for (int k = 0; k < kRows; ++k) peers[k] = 0xffffffffu;
      for (int bit = 0; bit < bits; ++bit) {
        const unsigned set = __ballot_sync(0xffffffffu, (b[s] >> bit) & 1u);
#pragma unroll
        for (int k = 0; k < kRows; ++k) peers[k] = same_bit(peers[k], b[k], bit, set);
      }
#pragma unroll
      for (int k = 0; k < kRows; ++k) {
        total[k] += static_cast<unsigned>(__popc(peers[k]));
        if (s < k) within[k] += static_cast<unsigned>(__popc(peers[k]));
        if (s == k) within[k] += static_cast<unsigned>(__popc(peers[k] & lanes_before));
      }
    }
    // (c)
#pragma unroll
    for (int k = 0; k < kRows; ++k)
      if (b[k] < buckets && within[k] == 0) warp_counts[warp * buckets + b[k]] = warp_count_word(step, total[k]);
    __syncthreads();
    // (d) `last`: no later warp of this step has rows of b[k].
    unsigned before[kRows];
    bool last[kRows];
#pragma unroll
    for (int k = 0; k < kRows; ++k) {
      before[k] = 0, last[k] = true;
      if (b[k] < buckets) {
        for (unsigned w = 0; w < kScatterWarps; ++w) {
          const unsigned c = warp_counts[w * buckets + b[k]];
          if (warp_count_step(c) != step) continue;
          if (w < warp) before[k] += warp_count_rows(c);
          if (w > warp) last[k] = false;
        }
        move.store(cursor[b[k]] + before[k] + within[k], row[k]);
      }
    }
    __syncthreads();
    // (e)
#pragma unroll
    for (int k = 0; k < kRows; ++k)
      if (b[k] < buckets && within[k] == 0 && last[k]) cursor[b[k]] += before[k] + total[k];
  }
}

/// The plan's rows per tile: kMinScatterTile, doubled while buckets * tiles would pass
/// kMaxScatterCounts (a whole number of both kernels' steps).
inline std::size_t scatter_tile(std::size_t n, unsigned buckets) {
  std::size_t tile = kMinScatterTile;
  const std::size_t max_tiles = std::max<std::size_t>(1, kMaxScatterCounts / buckets);
  while (div_up(n, tile) > max_tiles) tile *= 2;
  return tile;
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
  plan.tile = detail::scatter_tile(n, buckets);
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

/// Step 3: move.store(to, move.load(i)) for every row i < plan.rows, `to` its place: bucket b's
/// rows at [plan.offsets[b], plan.offsets[b + 1]), in input order. A Move has two const device
/// members: `Payload load(std::size_t i)`, the row's reads only (the payload in registers; a step
/// issues its rows' loads before it uses any; a tile's last row may be loaded more than once, for
/// the lanes past its end), and `void store(std::uint64_t to, const Payload&)`, once a row.
/// bucket_of must be the plan's, and move must not write what bucket_of or move.load read (the
/// blocks run at once).
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
