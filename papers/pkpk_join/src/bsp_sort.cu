// Steps 1-8 of the report: the BSP (sample) sort of both tables' keys in one array, then step 9
// through detail::join_sorted. One kernel per step, each named as the report names it.
#include <curand_kernel.h>

#include <algorithm>
#include <cmath>
#include <cub/block/block_discontinuity.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>
#include <stdexcept>
#include <string>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "detail.cuh"
#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/launch.cuh"
#include "hashlab/common/primitives.hpp"

namespace hashlab::pkpk {
namespace {

/// The tile of the block-wise sort, as CUB policies are written: compile-time constants.
template <int BLOCK_THREADS_, int ITEMS_PER_THREAD_>
struct TilePolicy {
  static constexpr int BLOCK_THREADS = BLOCK_THREADS_;
  static constexpr int ITEMS_PER_THREAD = ITEMS_PER_THREAD_;
  static constexpr int TILE_ITEMS = BLOCK_THREADS * ITEMS_PER_THREAD;
  // Warp-transposed loads need whole warps; the teaching tile of 4 threads transposes through
  // shared memory instead.
  static constexpr cub::BlockLoadAlgorithm LOAD =
      BLOCK_THREADS % 32 == 0 ? cub::BLOCK_LOAD_WARP_TRANSPOSE : cub::BLOCK_LOAD_TRANSPOSE;
  static constexpr cub::BlockStoreAlgorithm STORE =
      BLOCK_THREADS % 32 == 0 ? cub::BLOCK_STORE_WARP_TRANSPOSE : cub::BLOCK_STORE_TRANSPOSE;
};
using StandardTile = TilePolicy<256, 16>;
using TeachingTile = TilePolicy<4, 1>;

using detail::PackElement;  // step 1 (Input Data), detail.cuh

/// Valid elements of tile t (the last one may be short).
HASHLAB_HD unsigned valid_in_tile(std::size_t n, std::size_t t, unsigned tile_items) {
  const std::size_t begin = t * tile_items;
  return static_cast<unsigned>(n - begin < tile_items ? n - begin : tile_items);
}

// Steps 2-3 (Data Partitioning, Radix Sort), report "SortDataBlockWise": each block loads one
// tile of the array (BlockLoad; the tail tile padded with kPadding), sorts it on (key, table)
// with cub::BlockRadixSort in shared memory and stores its valid items. The padding's sort bits
// tie only with S's key 0xffffffff; the sort is stable and the padding comes last in the
// blocked order, so the valid items are still the first `valid` ones after the sort.
template <class Tile>
__global__ void __launch_bounds__(Tile::BLOCK_THREADS)
    block_sort(PackElement input, std::size_t n, std::uint64_t* tiles) {
  using BlockLoadT = cub::BlockLoad<std::uint64_t, Tile::BLOCK_THREADS, Tile::ITEMS_PER_THREAD, Tile::LOAD>;
  using BlockRadixSortT = cub::BlockRadixSort<std::uint64_t, Tile::BLOCK_THREADS, Tile::ITEMS_PER_THREAD>;
  using BlockStoreT = cub::BlockStore<std::uint64_t, Tile::BLOCK_THREADS, Tile::ITEMS_PER_THREAD, Tile::STORE>;
  __shared__ union {
    typename BlockLoadT::TempStorage load;
    typename BlockRadixSortT::TempStorage sort;
    typename BlockStoreT::TempStorage store;
  } temp;

  const std::size_t tile_begin = std::size_t{blockIdx.x} * Tile::TILE_ITEMS;
  const int valid = static_cast<int>(valid_in_tile(n, blockIdx.x, Tile::TILE_ITEMS));
  auto elements = thrust::make_transform_iterator(thrust::counting_iterator<std::size_t>(tile_begin), input);

  std::uint64_t items[Tile::ITEMS_PER_THREAD];
  BlockLoadT(temp.load).Load(elements, items, valid, kPadding);
  __syncthreads();  // the union's storage is reused
  BlockRadixSortT(temp.sort).Sort(items, kSortBeginBit, kSortEndBit);
  __syncthreads();
  BlockStoreT(temp.store).Store(tiles + tile_begin, items, valid);
}

// Step 5 (Evaluate Split values), report "sampleElements": log2(p) keys drawn from each sorted
// tile at positions from cuRAND (Philox, one subsequence per sample). `tiles[g]` is element g:
// the block-sorted array here; the servers' join (servers_join.cu) samples its two key columns
// (detail::TableElements), whose tiles are unsorted: a random position of a tile draws the same
// key whether the tile is sorted or not.
template <class Tiles>
__global__ void sample_elements(Tiles tiles, std::size_t n, unsigned tile_items, std::size_t num_tiles,
                                unsigned samples_per_tile, std::uint64_t seed, std::uint32_t* samples) {
  const std::size_t total = num_tiles * samples_per_tile;
  for (const std::size_t i : grid_stride(total)) {
    const std::size_t t = i / samples_per_tile;
    curandStatePhilox4_32_10_t state;
    curand_init(seed, i, 0, &state);
    const unsigned at = curand(&state) % valid_in_tile(n, t, tile_items);
    samples[i] = key_of(tiles[t * tile_items + at]);
  }
}

// Step 5, report "Splitterss": the p - 1 equi-spaced values of the sorted samples.
__global__ void find_splitters(const std::uint32_t* sorted_samples, std::size_t num_samples, unsigned p,
                               std::uint32_t* splitters) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 < p) splitters[i] = sorted_samples[splitter_sample(i, num_samples, p)];
}

// Step 6 (Distribution in Blocks), report "findSplitsKernel": each element's bucket by binary
// search, the number of splitters <= its key (the splitters are staged in shared memory).
// Splitters compare keys only, so both rows of a key always land in the same bucket.
__global__ void partition_ids(const std::uint64_t* tiles, std::size_t n, const std::uint32_t* splitters,
                              unsigned num_splitters, std::uint32_t* bucket) {
  extern __shared__ std::uint32_t shared_splitters[];
  for (unsigned i = threadIdx.x; i < num_splitters; i += blockDim.x) shared_splitters[i] = splitters[i];
  __syncthreads();
  for (const std::size_t i : grid_stride(n))
    bucket[i] = detail::bucket_of(key_of(tiles[i]), shared_splitters, num_splitters);
}

// Step 7, report "countSplits": how many elements of each tile go to each bucket, counted with
// shared-memory atomics by the tile's block; counts[bucket * tiles + tile] (bucket-major, so
// that the exclusive scan gives each (bucket, tile) run its place in the global order).
template <class Tile>
__global__ void __launch_bounds__(Tile::BLOCK_THREADS)
    count_splits(const std::uint32_t* bucket, std::size_t n, unsigned p, std::size_t num_tiles,
                 std::uint32_t* counts) {
  extern __shared__ std::uint32_t shared_counts[];
  for (unsigned b = threadIdx.x; b < p; b += Tile::BLOCK_THREADS) shared_counts[b] = 0;
  __syncthreads();
  const std::size_t tile_begin = std::size_t{blockIdx.x} * Tile::TILE_ITEMS;
  const unsigned valid = valid_in_tile(n, blockIdx.x, Tile::TILE_ITEMS);
  for (unsigned i = threadIdx.x; i < valid; i += Tile::BLOCK_THREADS) atomicAdd(&shared_counts[bucket[tile_begin + i]], 1u);
  __syncthreads();
  for (unsigned b = threadIdx.x; b < p; b += Tile::BLOCK_THREADS)
    counts[std::size_t{b} * num_tiles + blockIdx.x] = shared_counts[b];
}

/// A run of one bucket starts where the bucket id changes.
struct BucketChanges {
  HASHLAB_HD bool operator()(std::uint32_t a, std::uint32_t b) const { return a != b; }
};

/// A segmented sum: a head flag restarts the sum.
struct FlaggedCount {
  std::uint32_t head;
  std::uint32_t count;
};
struct SegmentedSum {
  HASHLAB_HD FlaggedCount operator()(const FlaggedCount& a, const FlaggedCount& b) const {
    return {a.head | b.head, b.head ? b.count : a.count + b.count};
  }
};

// Step 7, report "segmentedPrefixSum": each element's rank among the elements of its tile that
// go to the same bucket (a segmented inclusive scan of ones, segments starting where the bucket
// id changes: cub::BlockDiscontinuity for the heads, cub::BlockScan for the sum).
template <class Tile>
__global__ void __launch_bounds__(Tile::BLOCK_THREADS)
    segmented_prefix_sum(const std::uint32_t* bucket, std::size_t n, std::uint32_t* rank) {
  using BlockLoadT = cub::BlockLoad<std::uint32_t, Tile::BLOCK_THREADS, Tile::ITEMS_PER_THREAD, Tile::LOAD>;
  using BlockDiscontinuityT = cub::BlockDiscontinuity<std::uint32_t, Tile::BLOCK_THREADS>;
  using BlockScanT = cub::BlockScan<FlaggedCount, Tile::BLOCK_THREADS>;
  using BlockStoreT = cub::BlockStore<std::uint32_t, Tile::BLOCK_THREADS, Tile::ITEMS_PER_THREAD, Tile::STORE>;
  __shared__ union {
    typename BlockLoadT::TempStorage load;
    typename BlockDiscontinuityT::TempStorage heads;
    typename BlockScanT::TempStorage scan;
    typename BlockStoreT::TempStorage store;
  } temp;

  const std::size_t tile_begin = std::size_t{blockIdx.x} * Tile::TILE_ITEMS;
  const int valid = static_cast<int>(valid_in_tile(n, blockIdx.x, Tile::TILE_ITEMS));
  std::uint32_t ids[Tile::ITEMS_PER_THREAD];
  BlockLoadT(temp.load).Load(bucket + tile_begin, ids, valid, ~0u);
  __syncthreads();
  int heads[Tile::ITEMS_PER_THREAD];
  BlockDiscontinuityT(temp.heads).FlagHeads(heads, ids, BucketChanges());
  __syncthreads();
  FlaggedCount ones[Tile::ITEMS_PER_THREAD], sums[Tile::ITEMS_PER_THREAD];
  for (int k = 0; k < Tile::ITEMS_PER_THREAD; ++k) ones[k] = {static_cast<std::uint32_t>(heads[k]), 1u};
  BlockScanT(temp.scan).InclusiveScan(ones, sums, SegmentedSum());
  __syncthreads();
  std::uint32_t ranks[Tile::ITEMS_PER_THREAD];
  for (int k = 0; k < Tile::ITEMS_PER_THREAD; ++k) ranks[k] = sums[k].count - 1;
  BlockStoreT(temp.store).Store(rank + tile_begin, ranks, valid);
}

// Step 8 (Assigning to Blocks), report "Assign": each element goes to the start of its
// (bucket, tile) run, from the scanned counts, plus its rank in the run.
__global__ void assign(const std::uint64_t* tiles, std::size_t n, unsigned tile_items, std::size_t num_tiles,
                       const std::uint32_t* bucket, const std::uint32_t* rank, const std::uint32_t* offsets,
                       std::uint64_t* assigned) {
  for (const std::size_t i : grid_stride(n)) {
    const std::size_t run = std::size_t{bucket[i]} * num_tiles + i / tile_items;
    assigned[std::size_t{offsets[run]} + rank[i]] = tiles[i];
  }
}

// Steps 7-8 as the report's rejected alternative (BspOptions::atomic_scatter): each element
// takes the next free slot of its bucket with a global atomicAdd on the bucket's cursor (which
// starts at the bucket's first slot). A permutation within each bucket; the local sort orders it.
__global__ void assign_atomic(const std::uint64_t* tiles, std::size_t n, const std::uint32_t* bucket,
                              std::uint32_t* cursor, std::uint64_t* assigned) {
  for (const std::size_t i : grid_stride(n))
    assigned[atomicAdd(&cursor[bucket[i]], 1u)] = tiles[i];
}

// Each bucket's bounds for the local sort: bucket b starts where its tile-0 run starts.
__global__ void bucket_bounds(const std::uint32_t* offsets, unsigned p, std::size_t num_tiles, std::size_t n,
                              std::uint32_t* bounds) {
  const unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b <= p) bounds[b] = b < p ? offsets[std::size_t{b} * num_tiles] : static_cast<std::uint32_t>(n);
}

template <class Tile>
JoinedRows run_bsp_join(const TableView& r, const TableView& s, cudaStream_t stream, const BspOptions& options,
                        BspTrace* trace, PhaseTimer* phases) {
  const std::size_t n = r.rows + s.rows;
  const std::size_t num_tiles = div_up<std::size_t>(n, Tile::TILE_ITEMS);
  const unsigned p = options.partitions != 0 ? options.partitions : default_partitions(n, options.tile);
  if (p > kMaxPartitions)
    throw std::invalid_argument("pkpk_join: p = " + std::to_string(p) + " partitions; at most " +
                                std::to_string(kMaxPartitions) + " fit the count kernel's shared memory");
  if (std::size_t{p} * num_tiles > (std::size_t{1} << 31))
    throw std::invalid_argument("pkpk_join: p = " + std::to_string(p) + " partitions x " + std::to_string(num_tiles) +
                                " tiles: the counts matrix would exceed 2^31 entries; choose fewer partitions");
  const unsigned per_tile = samples_per_tile(p);  // log2(p), the report's log(p)
  const std::size_t num_samples = num_tiles * per_tile;
  const std::size_t num_counts = std::size_t{p} * num_tiles;

  DeviceBuffer<std::uint64_t> tiles(n, stream);
  DeviceBuffer<std::uint64_t> assigned(n, stream);
  DeviceBuffer<std::uint32_t> samples(num_samples, stream);
  DeviceBuffer<std::uint32_t> splitters(std::max(1u, p - 1), stream);
  DeviceBuffer<std::uint32_t> bucket(n, stream);
  DeviceBuffer<std::uint32_t> rank(options.atomic_scatter ? 0 : n, stream);  // the segmented prefix sum
  DeviceBuffer<std::uint32_t> counts(num_counts, stream);
  DeviceBuffer<std::uint32_t> offsets(num_counts, stream);
  DeviceBuffer<std::uint32_t> bounds(std::size_t{p} + 1, stream);
  const unsigned grid_tiles = static_cast<unsigned>(num_tiles);

  const double rows = static_cast<double>(n);
  timed_phase(phases, "block_sort", stream, rows, "rows", [&] {
    block_sort<Tile><<<grid_tiles, Tile::BLOCK_THREADS, 0, stream>>>(PackElement{r.keys, s.keys, r.rows}, n,
                                                                     tiles.data());
    HASHLAB_CHECK_LAUNCH();
  });
  // With capture_arrays: what the later steps overwrite, copied as it is made (synchronises).
  const bool capture = trace != nullptr && trace->capture_arrays;
  struct {
    std::vector<std::uint64_t> block_sorted;
    std::vector<std::uint32_t> samples;
    std::vector<std::uint64_t> assigned;
  } captured;
  if (capture) captured.block_sorted = tiles.to_host(stream);
  timed_phase(phases, "sample", stream, static_cast<double>(num_samples), "samples", [&] {
    sample_elements<<<grid_for(num_samples), kDefaultBlock, 0, stream>>>(
        tiles.data(), n, Tile::TILE_ITEMS, num_tiles, per_tile, options.seed, samples.data());
    HASHLAB_CHECK_LAUNCH();
  });
  if (capture) captured.samples = samples.to_host(stream);
  timed_phase(phases, "sort_samples", stream, static_cast<double>(num_samples), "samples",
              [&] { prim::sort_keys(samples.data(), num_samples, stream); });
  timed_phase(phases, "splitters", stream, p - 1.0, "splitters", [&] {
    find_splitters<<<div_up(p, 256u), 256, 0, stream>>>(samples.data(), num_samples, p, splitters.data());
    HASHLAB_CHECK_LAUNCH();
  });
  timed_phase(phases, "partition_ids", stream, rows, "rows", [&] {
    // Fewer, longer-lived blocks than usual: each block first stages all p - 1 splitters.
    partition_ids<<<grid_for(n, kDefaultBlock, 4096), kDefaultBlock, (p - 1) * sizeof(std::uint32_t), stream>>>(
        tiles.data(), n, splitters.data(), p - 1, bucket.data());
    HASHLAB_CHECK_LAUNCH();
  });
  timed_phase(phases, "count_splits", stream, rows, "rows", [&] {
    count_splits<Tile><<<grid_tiles, Tile::BLOCK_THREADS, p * sizeof(std::uint32_t), stream>>>(bucket.data(), n, p,
                                                                                              num_tiles, counts.data());
    HASHLAB_CHECK_LAUNCH();
  });
  timed_phase(phases, "prefix_sum", stream, static_cast<double>(num_counts), "counts",
              [&] { prim::exclusive_scan(counts.data(), offsets.data(), num_counts, stream); });
  auto compute_bounds = [&] {
    bucket_bounds<<<div_up(p + 1, 256u), 256, 0, stream>>>(offsets.data(), p, num_tiles, n, bounds.data());
    HASHLAB_CHECK_LAUNCH();
  };
  if (!options.atomic_scatter) {
    timed_phase(phases, "segmented_prefix_sum", stream, rows, "rows", [&] {
      segmented_prefix_sum<Tile><<<grid_tiles, Tile::BLOCK_THREADS, 0, stream>>>(bucket.data(), n, rank.data());
      HASHLAB_CHECK_LAUNCH();
    });
    timed_phase(phases, "assign", stream, rows, "rows", [&] {
      assign<<<grid_for(n), kDefaultBlock, 0, stream>>>(tiles.data(), n, Tile::TILE_ITEMS, num_tiles, bucket.data(),
                                                        rank.data(), offsets.data(), assigned.data());
      HASHLAB_CHECK_LAUNCH();
    });
  } else {
    DeviceBuffer<std::uint32_t> cursor(p, stream);
    timed_phase(phases, "assign_atomic", stream, rows, "rows", [&] {
      compute_bounds();
      HASHLAB_CUDA_CHECK(cudaMemcpyAsync(cursor.data(), bounds.data(), std::size_t{p} * sizeof(std::uint32_t),
                                         cudaMemcpyDeviceToDevice, stream));
      assign_atomic<<<grid_for(n), kDefaultBlock, 0, stream>>>(tiles.data(), n, bucket.data(), cursor.data(),
                                                               assigned.data());
      HASHLAB_CHECK_LAUNCH();
    });
  }
  if (capture) captured.assigned = assigned.to_host(stream);
  // The local sort the report's text leaves out: after step 8 each bucket holds its keys as one
  // sorted run per tile, so it is sorted per bucket with cub::DeviceSegmentedRadixSort (one
  // block per bucket, on the same (key, table) bits). It ping-pongs between `assigned` and
  // `tiles` (no longer needed), and `sorted` is wherever it ended.
  cub::DoubleBuffer<std::uint64_t> buckets(assigned.data(), tiles.data());
  timed_phase(phases, "bucket_sort", stream, rows, "rows", [&] {
    if (!options.atomic_scatter) compute_bounds();  // the atomic scatter computed them already
    std::size_t bytes = 0;
    HASHLAB_CUDA_CHECK(cub::DeviceSegmentedRadixSort::SortKeys(nullptr, bytes, buckets, static_cast<std::int64_t>(n),
                                                               p, bounds.data(), bounds.data() + 1, kSortBeginBit,
                                                               kSortEndBit, stream));
    DeviceBuffer<unsigned char> temp(bytes, stream);
    HASHLAB_CUDA_CHECK(cub::DeviceSegmentedRadixSort::SortKeys(temp.data(), bytes, buckets,
                                                               static_cast<std::int64_t>(n), p, bounds.data(),
                                                               bounds.data() + 1, kSortBeginBit, kSortEndBit, stream));
  });
  const std::uint64_t* sorted = buckets.Current();

  if (trace != nullptr) {
    trace->tiles = num_tiles;
    trace->partitions = p;
    trace->samples_per_tile = per_tile;
    const auto b = bounds.to_host(stream);
    trace->bucket_sizes.assign(p, 0);
    trace->max_bucket = 0;
    for (unsigned i = 0; i < p; ++i) {
      trace->bucket_sizes[i] = b[i + 1] - b[i];
      trace->max_bucket = std::max(trace->max_bucket, trace->bucket_sizes[i]);
    }
    trace->mean_bucket = static_cast<double>(n) / p;
    if (trace->capture_arrays) {
      trace->samples = std::move(captured.samples);
      trace->block_sorted = std::move(captured.block_sorted);
      trace->sorted_samples = samples.to_host(stream);
      trace->splitters = splitters.to_host(stream, p - 1);
      trace->partition_ids = bucket.to_host(stream);
      trace->counts = counts.to_host(stream);
      trace->offsets = offsets.to_host(stream);
      trace->ranks = rank.to_host(stream);
      trace->assigned = std::move(captured.assigned);
      trace->sorted.resize(n);
      HASHLAB_CUDA_CHECK(cudaMemcpyAsync(trace->sorted.data(), sorted, n * sizeof(std::uint64_t),
                                         cudaMemcpyDeviceToHost, stream));
      HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
  }

  return detail::join_sorted(sorted, n, r, s, stream, phases);
}

}  // namespace

std::size_t tile_items(TileShape shape) {
  return shape == TileShape::kTeaching ? TeachingTile::TILE_ITEMS : StandardTile::TILE_ITEMS;
}

std::uint32_t samples_per_tile(std::uint32_t p) {
  return std::max(1u, static_cast<std::uint32_t>(std::ceil(std::log2(static_cast<double>(std::max(p, 1u))))));
}

std::uint32_t default_partitions(std::size_t n, TileShape shape) {
  const std::size_t tiles = div_up<std::size_t>(std::max<std::size_t>(n, 1), tile_items(shape));
  return static_cast<std::uint32_t>(std::min<std::size_t>(tiles, kDefaultMaxPartitions));
}

JoinedRows bsp_join(const TableView& r, const TableView& s, cudaStream_t stream, const BspOptions& options,
                    BspTrace* trace, PhaseTimer* phases) {
  validate(r, s);
  if (r.rows + s.rows > kMaxBspRows)
    throw std::invalid_argument("pkpk_join: |R| + |S| = " + std::to_string(r.rows + s.rows) + " rows; the BSP join " +
                                "sorts at most " + std::to_string(kMaxBspRows) +
                                " (the segmented sort's offsets are 32-bit signed)");
  if (r.rows == 0 || s.rows == 0) return {};  // nothing joins an empty table
  try {
    return options.tile == TileShape::kTeaching ? run_bsp_join<TeachingTile>(r, s, stream, options, trace, phases)
                                                : run_bsp_join<StandardTile>(r, s, stream, options, trace, phases);
  } catch (const OutOfDeviceMemory& e) {
    throw OutOfDeviceMemory("pkpk_join: |R| = " + std::to_string(r.rows) + ", |S| = " + std::to_string(s.rows) +
                            " needs about " + format_bytes((r.rows + s.rows) * 28) +
                            " of device scratch beside its inputs: " + e.what());
  }
}

namespace detail {

void sample_tables(const TableView& r, const TableView& s, unsigned stratum, unsigned per_stratum, std::uint64_t seed,
                   std::uint32_t* samples, cudaStream_t stream) {
  const std::size_t n = r.rows + s.rows;
  if (n == 0 || per_stratum == 0) return;
  const std::size_t strata = div_up<std::size_t>(n, stratum);
  const std::size_t total = strata * per_stratum;
  sample_elements<<<grid_for(total), kDefaultBlock, 0, stream>>>(TableElements{{r.keys, s.keys, r.rows}}, n, stratum,
                                                                 strata, per_stratum, seed, samples);
  HASHLAB_CHECK_LAUNCH();
}

void find_splitters(const std::uint32_t* sorted_samples, std::size_t num_samples, unsigned p, std::uint32_t* splitters,
                    cudaStream_t stream) {
  if (p < 2) return;
  pkpk::find_splitters<<<div_up(p, 256u), 256, 0, stream>>>(sorted_samples, num_samples, p, splitters);
  HASHLAB_CHECK_LAUNCH();
}

}  // namespace detail
}  // namespace hashlab::pkpk
