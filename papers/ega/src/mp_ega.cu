// MP-EGA (EGA section 4.2): partition-generating phase (GPU tiles on s streams with the three
// partitioning kernels, CPU tiles on t threads), CPU merge with Algorithm 1, and the
// partition-processing phase with the feedback load.
#include "hashlab/ega/mp_ega.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>

#include "hashlab/common/flat_map.hpp"
#include "hashlab/common/hash.hpp"
#include "hashlab/common/launch.cuh"
#include "hashlab/common/primitives.hpp"
#include "hashlab/common/scatter.hpp"
#include "hashlab/common/threads.hpp"
#include "hashlab/common/units.hpp"
#include "hashlab/ega/partition_plan.hpp"
#include "ega_device.cuh"

namespace hashlab::ega {
namespace {

constexpr std::size_t kMaxPartitions = 8192;          // block-local counters in 32 KiB of shared memory
constexpr std::size_t kReservePerStream = 256u << 10;  // counters (32 KiB), status, CUB scan storage (KiBs)
constexpr std::size_t kBytesPerTileRow = 32;          // 28 (three buffers) + 4 (the tile's values)
constexpr std::size_t kMinTileRows = 4096;
constexpr int kPartitionBlock = 256;
constexpr int kPartitionItems = 4;  // pairs per thread of the in-block index kernel

HASHLAB_HD std::uint32_t partition_of(std::uint32_t key, std::uint32_t partitions,
                                      std::uint32_t seed = kPartitionSeed) {
  return hash::reduce_range(hash::murmur3_32(key, seed), partitions);
}

// Theorem 1 by simulation (4.2.1): block b throws trial first_trial + b's n balls (the keys
// fmix32(i), i < n, all distinct) into `partitions` bins by the partition hash seeded
// kPartitionSeed + trial, and writes its largest bin. Each thread counts into its own column of
// shared memory (counts[bin * blockDim.x + thread]: no atomics, and a warp's 32 lanes hit 32
// banks), then thread b sums bin b.
__global__ void theorem1_trial_largest_bin(std::uint64_t n, std::uint32_t partitions, std::uint32_t first_trial,
                                           std::uint32_t* largest) {
  extern __shared__ std::uint32_t counts[];
  __shared__ std::uint32_t block_largest;
  for (std::uint32_t b = 0; b < partitions; ++b) counts[b * blockDim.x + threadIdx.x] = 0;
  if (threadIdx.x == 0) block_largest = 0;
  const std::uint32_t seed = kPartitionSeed + first_trial + blockIdx.x;
  for (std::uint64_t i = threadIdx.x; i < n; i += blockDim.x) {
    const std::uint32_t key = hash::fmix32(static_cast<std::uint32_t>(i));
    ++counts[partition_of(key, partitions, seed) * blockDim.x + threadIdx.x];
  }
  __syncthreads();
  for (std::uint32_t b = threadIdx.x; b < partitions; b += blockDim.x) {
    std::uint32_t total = 0;
    for (unsigned t = 0; t < blockDim.x; ++t) total += counts[b * blockDim.x + t];
    atomicMax(&block_largest, total);
  }
  __syncthreads();
  if (threadIdx.x == 0) largest[blockIdx.x] = block_largest;
}

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

std::uint64_t combine_host(Aggregation op, std::uint64_t a, std::uint64_t b) {
  switch (op) {
    case Aggregation::kMin: return std::min(a, b);
    case Aggregation::kMax: return std::max(a, b);
    default: return a + b;
  }
}

// 4.2.5, a CPU tile on t threads: common/'s stable bucket scatter (each thread counts its
// slice's pairs per partition in local counters, the counters are scanned partition-major, then
// by thread, into global positions, and each thread writes its pairs there). offsets[p]: start of
// partition p in the tile's output.
void partition_tile_on_cpu(const std::uint32_t* keys, const std::uint32_t* values, std::size_t rows, Aggregation op,
                           std::uint32_t partitions, unsigned threads, std::uint32_t* out_keys,
                           std::uint64_t* out_values, std::vector<std::size_t>& offsets) {
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(rows / 1024, 1)));
  const auto partition = [&](std::size_t i) {
    if (keys[i] == kEmptyKey)
      throw std::invalid_argument("MP-EGA: the input holds the key 0xffffffff, which marks empty slots");
    return partition_of(keys[i], partitions);
  };
  const cpu::Scatter scatter = cpu::scatter_by_bucket(rows, threads, partitions, partition,
                                                      [&](std::size_t i, std::size_t at) {
                                                        out_keys[at] = keys[i];
                                                        out_values[at] = op == Aggregation::kCount ? 1u : values[i];
                                                      });
  offsets = scatter.offsets;
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

// One stream's device state: declared stream first, so the buffers are freed before it.
struct MpEga::StreamContext {
  Stream stream;
  SpEga ega;
  DeviceBuffer<std::uint32_t> tile_values;  // the tile's value column before load_red widens it
  DeviceBuffer<std::uint32_t> counts;       // global partition counters, then (scanned) partition starts
  PinnedBuffer<std::uint32_t> begins;       // the partition starts, copied back (pinned: an asynchronous copy)
  std::vector<std::uint32_t> gather_starts;  // MergeCopy::kGpuGather: a load's table of pieces
  std::vector<std::uint64_t> gather_sources;
  StreamContext(std::size_t rows)
      : stream(), ega(rows, stream), tile_values(rows, stream), counts(kMaxPartitions, stream),
        begins(kMaxPartitions) {}
};

const char* to_string(MergeCopy copy) {
  switch (copy) {
    case MergeCopy::kHost: return "host_copy";
    case MergeCopy::kGpuGather: return "gpu_gather";
    case MergeCopy::kHostAndGather: return "host_and_gather";
    case MergeCopy::kPieceCopies: return "piece_copies";
  }
  return "?";
}

bool copies_merged_partitions(MergeCopy copy) { return copy == MergeCopy::kHost || copy == MergeCopy::kHostAndGather; }

void MpEgaConfig::validate() const {
  auto bad = [](const std::string& what) { throw std::invalid_argument("MP-EGA: " + what); };
  if (streams < 1 || streams > 64) bad("streams must lie in [1, 64], got " + std::to_string(streams));
  if (!(failure_probability > 0 && failure_probability < 1))
    bad("failure probability p must lie in (0, 1), got " + std::to_string(failure_probability));
  if (!(alpha_min > 0 && alpha_min <= alpha_max && alpha_max < 1))
    bad("need 0 < alpha_min <= alpha_max < 1, got alpha_min = " + std::to_string(alpha_min) +
        ", alpha_max = " + std::to_string(alpha_max));
  if (alpha_min > 1 - alpha_max + 1e-9)
    bad("alpha_min (" + std::to_string(alpha_min) + ") may not exceed 1 - alpha_max (" +
        std::to_string(1 - alpha_max) + "): a round must be able to load alpha_min L pairs");
  if (fixed_partitions > kMaxPartitions)
    bad("at most " + std::to_string(kMaxPartitions) + " partitions, got " + std::to_string(fixed_partitions));
}

reference::GroupByResult HostGroups::to_reference(Aggregation op) const {
  reference::GroupByResult result;
  result.keys.emplace_back(keys, keys + count);
  reference::AggregateColumn column;
  column.op = op;
  column.exact.assign(aggregates, aggregates + count);
  result.aggregates.push_back(std::move(column));
  result.sort_by_key();
  return result;
}

std::size_t MpEga::tile_rows_for(std::size_t budget, int streams) {
  if (streams < 1) return 0;
  const std::size_t per_stream = budget / static_cast<std::size_t>(streams);
  if (per_stream <= kReservePerStream) return 0;
  const std::size_t rows = std::min<std::size_t>((per_stream - kReservePerStream) / kBytesPerTileRow, 0xfffffffeu);
  return rows < kMinTileRows ? 0 : rows;
}

namespace {

// Pins `rows` elements when the buffer holds fewer; the old one is freed first, so that the two
// never hold host memory together.
template <class T>
void grow(PinnedBuffer<T>& buffer, std::size_t rows) {
  if (buffer.size() >= rows) return;
  buffer = PinnedBuffer<T>();
  buffer = PinnedBuffer<T>(rows);
}

}  // namespace

void MpEgaHostWorkspace::reserve(std::size_t tile_rows, std::size_t merged_rows, std::size_t result_rows) {
  grow(tile_keys, tile_rows);
  grow(tile_values, tile_rows);
  grow(merged_keys, merged_rows);
  grow(merged_values, merged_rows);
  grow(result_keys, result_rows);
  grow(result_values, result_rows);
}

MpEga::MpEga(const MpEgaConfig& config, std::size_t max_rows, MpEgaHostWorkspace* host)
    : config_(config), max_rows_(max_rows) {
  config_.validate();
  std::size_t free_bytes = 0, total_bytes = 0;
  HASHLAB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  std::size_t budget = config_.gpu_memory_budget;
  if (budget == 0) budget = free_bytes / 10 * 9;
  if (budget > free_bytes)
    throw std::invalid_argument("MP-EGA: GPU memory budget " + format_bytes(budget) + " exceeds the free device memory " +
                                format_bytes(free_bytes));
  tile_rows_ = tile_rows_for(budget, config_.streams);
  if (tile_rows_ == 0)
    throw std::invalid_argument("MP-EGA: GPU memory budget " + format_bytes(budget) + " cannot hold one tile per stream (" +
                                std::to_string(config_.streams) + " streams need at least " +
                                format_bytes(config_.streams * (kReservePerStream + kMinTileRows * kBytesPerTileRow)) +
                                ")");
  // No stream needs buffers longer than the input (a smaller input leaves the budget unused).
  tile_rows_ = std::min(tile_rows_, std::max(max_rows_, kMinTileRows));
  for (int s = 0; s < config_.streams; ++s) contexts_.push_back(std::make_unique<StreamContext>(tile_rows_));
  for (auto& c : contexts_) c->stream.synchronize();
  // Tile j writes at j * L, the last tile may be short; whole 16-byte vectors for the gather's reads.
  const std::size_t capacity = div_up<std::size_t>(max_rows_ + tile_rows_, 4) * 4;
  if (host == nullptr) {
    own_host_ = std::make_unique<MpEgaHostWorkspace>();
    host = own_host_.get();
  }
  host->reserve(capacity, copies_merged_partitions(config_.merge_copy) ? max_rows_ : 0, max_rows_);
  tile_keys_ = host->tile_keys.data();
  tile_values_ = host->tile_values.data();
  merged_keys_ = host->merged_keys.data();
  merged_values_ = host->merged_values.data();
  result_keys_ = host->result_keys.data();
  result_values_ = host->result_values.data();
  void* mapped = nullptr;  // the gather reads the tiles' output where it lies (unified addressing)
  HASHLAB_CUDA_CHECK(cudaHostGetDevicePointer(&mapped, tile_keys_, 0));
  tile_keys_device_ = static_cast<const std::uint32_t*>(mapped);
  HASHLAB_CUDA_CHECK(cudaHostGetDevicePointer(&mapped, tile_values_, 0));
  tile_values_device_ = static_cast<const std::uint64_t*>(mapped);
}

MpEga::~MpEga() = default;

const HostGroups& MpEga::run(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, Aggregation op) {
  require_supported(op);
  if (n > max_rows_)
    throw std::invalid_argument("MP-EGA: " + std::to_string(n) + " rows exceed the workspace for " +
                                std::to_string(max_rows_));
  stats_ = {};
  stats_.tile_rows = tile_rows_;
  result_ = {};
  if (n == 0) return result_;
  const auto start = std::chrono::steady_clock::now();

  // Theorem 1: k = the groups a stream's table takes before the feedback load calls it full.
  const std::uint64_t groups = config_.groups_estimate > 0 ? config_.groups_estimate : n;
  const auto k = std::max<std::uint64_t>(2, static_cast<std::uint64_t>(config_.alpha_max * tile_rows_));
  partitions_ = config_.fixed_partitions > 0 ? config_.fixed_partitions
                                             : theorem1_partitions(groups, k, config_.failure_probability);
  if (partitions_ > kMaxPartitions)
    throw std::invalid_argument("MP-EGA: Theorem 1 asks for " + std::to_string(partitions_) + " partitions (" +
                                std::to_string(groups) + " groups, at most " + std::to_string(k) +
                                " per partition) but the partitioning kernels hold at most " +
                                std::to_string(kMaxPartitions) + ": give a larger GPU memory budget");
  stats_.partitions = partitions_;

  auto t0 = std::chrono::steady_clock::now();
  generate(keys, values, n, op);
  stats_.generate_ms = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  merge(op);            // Algorithm 1 and the merged layout (the copies run inside process)
  process(op, t0);      // sets merge_ms and process_ms
  stats_.total_ms = ms_since(start);
  return result_;
}

// ---- partition-generating phase (Algorithm 2) ------------------------------------------------

void MpEga::drain_streams() noexcept {
  for (auto& c : contexts_)
    if (cudaStreamSynchronize(c->stream.get()) != cudaSuccess) (void)cudaGetLastError();
}

void MpEga::generate(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, Aggregation op) {
  const std::size_t L = tile_rows_;
  tiles_ = div_up(n, L);
  stats_.tiles = tiles_;
  tile_sizes_.assign(tiles_, 0);
  tile_offsets_.assign(tiles_, {});
  const auto parts = static_cast<std::uint32_t>(partitions_);
  std::atomic<std::size_t> next_tile{0};
  std::atomic<std::size_t> gpu_tiles{0}, cpu_tiles{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  int device = 0;
  HASHLAB_CUDA_CHECK(cudaGetDevice(&device));

  auto gpu_worker = [&](StreamContext& ctx) {
    HASHLAB_CUDA_CHECK(cudaSetDevice(device));
    const cudaStream_t s = ctx.stream;
    auto& b = ctx.ega.buffers();
    for (std::size_t j = next_tile++; j < tiles_; j = next_tile++) {
      const std::size_t first = j * L;
      const std::size_t rows = std::min(L, n - first);
      // Copy in: keys straight into red, values beside them; load_red widens them in place.
      HASHLAB_CUDA_CHECK(cudaMemcpyAsync(b.red_keys.data(), keys + first, rows * sizeof(std::uint32_t),
                                         cudaMemcpyHostToDevice, s));
      HASHLAB_CUDA_CHECK(cudaMemcpyAsync(ctx.tile_values.data(), values + first, rows * sizeof(std::uint32_t),
                                         cudaMemcpyHostToDevice, s));
      load_red(b, b.red_keys.data(), ctx.tile_values.data(), rows, op, s);
      const Groups g = ctx.ega.run(rows, op, s);  // the tile's groups, in yellow
      // The three partitioning kernels; the partitioned pairs go to red (free after SP-EGA), the
      // index within the partition to blue.
      ctx.counts.fill_bytes(0, s);
      if (g.count > 0) {
        const auto blocks = static_cast<unsigned>(div_up<std::size_t>(g.count, kPartitionBlock * kPartitionItems));
        partition_index_in_block<<<blocks, kPartitionBlock, parts * sizeof(std::uint32_t), s>>>(
            g.keys, g.count, parts, ctx.counts.data(), b.blue.data());
        HASHLAB_CHECK_LAUNCH();
      }
      prim::exclusive_scan(ctx.counts.data(), ctx.counts.data(), parts, s);
      if (g.count > 0) {
        partition_scatter<<<grid_for(g.count), kDefaultBlock, 0, s>>>(g.keys, g.aggregates, g.count, parts,
                                                                       b.blue.data(), ctx.counts.data(),
                                                                       b.red_keys.data(), b.red_values.data());
        HASHLAB_CHECK_LAUNCH();
      }
      // Copy out, to tile j's place in the pinned workspace.
      HASHLAB_CUDA_CHECK(cudaMemcpyAsync(tile_keys_ + first, b.red_keys.data(),
                                         g.count * sizeof(std::uint32_t), cudaMemcpyDeviceToHost, s));
      HASHLAB_CUDA_CHECK(cudaMemcpyAsync(tile_values_ + first, b.red_values.data(),
                                         g.count * sizeof(std::uint64_t), cudaMemcpyDeviceToHost, s));
      HASHLAB_CUDA_CHECK(cudaMemcpyAsync(ctx.begins.data(), ctx.counts.data(), parts * sizeof(std::uint32_t),
                                         cudaMemcpyDeviceToHost, s));
      HASHLAB_CUDA_CHECK(cudaStreamSynchronize(s));
      tile_sizes_[j] = g.count;
      tile_offsets_[j].assign(ctx.begins.data(), ctx.begins.data() + parts);
      tile_offsets_[j].push_back(g.count);
      ++gpu_tiles;
    }
  };
  auto cpu_worker = [&] {
    for (std::size_t j = next_tile++; j < tiles_; j = next_tile++) {
      const std::size_t first = j * L;
      const std::size_t rows = std::min(L, n - first);
      partition_tile_on_cpu(keys + first, values + first, rows, op, parts, config_.cpu_tile_threads,
                            tile_keys_ + first, tile_values_ + first, tile_offsets_[j]);
      tile_sizes_[j] = rows;
      ++cpu_tiles;
    }
  };
  auto guarded = [&](const std::function<void()>& body) {
    return [&, body] {
      try {
        body();
      } catch (...) {
        next_tile = tiles_;  // the others stop after their current tile
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    };
  };
  std::vector<std::thread> threads;
  for (auto& ctx : contexts_) threads.emplace_back(guarded([&, c = ctx.get()] { gpu_worker(*c); }));
  if (config_.cpu_tile_threads > 0) threads.emplace_back(guarded(cpu_worker));
  for (auto& th : threads) th.join();
  if (error) {
    drain_streams();
    std::rethrow_exception(error);
  }
  stats_.gpu_tiles = gpu_tiles;
  stats_.cpu_tiles = cpu_tiles;
}

// ---- CPU merge of the tiles' partitions, with Algorithm 1 ------------------------------------

void MpEga::merge(Aggregation) {
  const std::size_t P = partitions_;
  std::vector<std::uint64_t> sizes(P, 0);
  for (std::size_t j = 0; j < tiles_; ++j)
    for (std::size_t p = 0; p < P; ++p) sizes[p] += tile_offsets_[j][p + 1] - tile_offsets_[j][p];
  stats_.partition_rows = std::accumulate(sizes.begin(), sizes.end(), std::uint64_t{0});

  merged_parts_.clear();
  if (config_.merge_small_partitions) {
    merged_parts_ = greedy_merge(sizes, tile_rows_);
  } else {
    for (std::size_t p = 0; p < P; ++p) merged_parts_.push_back({p});
  }
  // Lay the merged partitions out one after the other, each one's partitions together. The
  // copies into this layout (copy_merged_partition) run in process(), overlapped with the GPU.
  destination_.assign(P, 0);
  merged_begin_.assign(1, 0);
  std::size_t position = 0;
  for (const auto& group : merged_parts_) {
    for (auto p : group) {
      destination_[p] = position;
      position += sizes[p];
    }
    merged_begin_.push_back(position);
  }
  stats_.merged_partitions = merged_parts_.size();
  // Each merged partition's pieces, in the order of its rows: partition by partition, tile by tile.
  const std::size_t L = tile_rows_;
  pieces_.clear();
  piece_begin_.assign(1, 0);
  for (const auto& group : merged_parts_) {
    for (const std::size_t p : group)
      for (std::size_t j = 0; j < tiles_; ++j) {
        const std::size_t rows = tile_offsets_[j][p + 1] - tile_offsets_[j][p];
        if (rows > 0) pieces_.push_back({j * L + tile_offsets_[j][p], rows});
      }
    piece_begin_.push_back(pieces_.size());
  }
}

// Copies merged partition m's rows from every tile's output into merged[begin[m], begin[m + 1]).
void MpEga::copy_merged_partition(std::size_t m) {
  std::size_t at = merged_begin_[m];
  for (std::size_t q = piece_begin_[m]; q < piece_begin_[m + 1]; ++q) {
    const Piece& piece = pieces_[q];
    std::memcpy(merged_keys_ + at, tile_keys_ + piece.first, piece.rows * sizeof(std::uint32_t));
    std::memcpy(merged_values_ + at, tile_values_ + piece.first, piece.rows * sizeof(std::uint64_t));
    at += piece.rows;
  }
}

template <typename Visit>
void MpEga::for_each_piece(std::size_t m, bool merged, std::size_t from, std::size_t to, Visit&& visit) const {
  if (merged) {
    const std::size_t begin = merged_begin_[m];
    if (from < to) visit(merged_keys_ + begin + from, merged_values_ + begin + from, to - from);
    return;
  }
  std::size_t row = 0;  // the merged partition's row where piece q starts
  for (std::size_t q = piece_begin_[m]; q < piece_begin_[m + 1] && row < to; ++q) {
    const Piece& piece = pieces_[q];
    const std::size_t lo = std::max(from, row), hi = std::min(to, row + piece.rows);
    if (lo < hi) {
      const std::size_t at = piece.first + (lo - row);
      visit(tile_keys_ + at, tile_values_ + at, hi - lo);
    }
    row += piece.rows;
  }
}

void MpEga::load_rows(StreamContext& ctx, std::size_t m, bool merged, std::size_t from, std::size_t rows,
                      std::size_t at) {
  auto& b = ctx.ega.buffers();
  if (!merged && config_.merge_copy == MergeCopy::kPieceCopies) {
    // 4.2.5's "T copies": each tile's piece of the partition copied where it lies in the tiles'
    // pinned output, one copy per piece and column.
    std::size_t done = 0;
    for_each_piece(m, false, from, from + rows, [&](const std::uint32_t* keys, const std::uint64_t* values,
                                                    std::size_t count) {
      HASHLAB_CUDA_CHECK(cudaMemcpyAsync(b.red_keys.data() + at + done, keys, count * sizeof(std::uint32_t),
                                         cudaMemcpyHostToDevice, ctx.stream));
      HASHLAB_CUDA_CHECK(cudaMemcpyAsync(b.red_values.data() + at + done, values, count * sizeof(std::uint64_t),
                                         cudaMemcpyHostToDevice, ctx.stream));
      done += count;
    });
    return;
  }
  if (merged) {  // the merged partition is contiguous: one copy
    const std::size_t begin = merged_begin_[m] + from;
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(b.red_keys.data() + at, merged_keys_ + begin,
                                       rows * sizeof(std::uint32_t), cudaMemcpyHostToDevice, ctx.stream));
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(b.red_values.data() + at, merged_values_ + begin,
                                       rows * sizeof(std::uint64_t), cudaMemcpyHostToDevice, ctx.stream));
    return;
  }
  // The pieces' table goes to the start of blue (starts) and yellow (sources): both are free until
  // SP-EGA runs after the gather, and a load of `rows` rows has at most `rows` non-empty pieces.
  ctx.gather_starts.clear();
  ctx.gather_sources.clear();
  std::size_t first_piece_row = 0;
  for_each_piece(m, false, from, from + rows, [&](const std::uint32_t* keys, const std::uint64_t*, std::size_t count) {
    ctx.gather_starts.push_back(static_cast<std::uint32_t>(first_piece_row));
    ctx.gather_sources.push_back(static_cast<std::uint64_t>(keys - tile_keys_));
    first_piece_row += count;
  });
  if (rows == 0) return;
  const auto pieces = static_cast<std::uint32_t>(ctx.gather_starts.size());
  std::uint64_t* sources = b.yellow_values.data();
  // Pageable sources: the calls return once the host vectors are staged, so they may be reused.
  HASHLAB_CUDA_CHECK(cudaMemcpyAsync(b.blue.data(), ctx.gather_starts.data(), pieces * sizeof(std::uint32_t),
                                     cudaMemcpyHostToDevice, ctx.stream));
  HASHLAB_CUDA_CHECK(cudaMemcpyAsync(sources, ctx.gather_sources.data(), pieces * sizeof(std::uint64_t),
                                     cudaMemcpyHostToDevice, ctx.stream));
  gather_pieces<<<pieces, kDefaultBlock, 0, ctx.stream>>>(tile_keys_device_, tile_values_device_, b.blue.data(),
                                                          sources, pieces, rows, b.red_keys.data() + at,
                                                          b.red_values.data() + at);
  HASHLAB_CHECK_LAUNCH();
}

// ---- partition-processing phase (Algorithm 3) -------------------------------------------------

// ---- partition processing (Algorithm 3) --------------------------------------------------------
// process() hands the merged partitions, largest first, to one worker thread per stream
// (process_partition) while merge threads copy them into the merged layout (MergeSchedule).

// How each merged partition (by its position i in the processing order) reaches the GPU:
// - kHost: merge threads copy the merged partitions in processing order and mark each merged;
//   the stream workers wait for theirs. The merged layout is the one the paper copies to the
//   GPU; only the waiting is ours.
// - kGpuGather: no host copies; the stream workers gather every partition's pieces.
// - kPieceCopies: no host copies; the stream workers copy every partition's pieces one by one.
// - kHostAndGather: merge threads copy from the back of the order, the stream workers take the
//   front; a worker gathers a partition no merge thread has claimed, else waits for its copy.
class MpEga::MergeSchedule {
 public:
  MergeSchedule(MergeCopy mode, std::size_t count, std::chrono::steady_clock::time_point merge_start)
      : mode_(mode), count_(count), state_(count, State::kFree), back_(count),
        merge_end_(copies_merged_partitions(mode) ? merge_start : std::chrono::steady_clock::now()) {}

  /// A merge thread: copies partitions (copy(i)) until none is left to it.
  template <class Copy>
  void merge_worker(Copy&& copy) {
    try {
      for (std::size_t i = 0; take(i);) {
        copy(i);
        {
          std::lock_guard<std::mutex> lock(mutex_);
          state_[i] = State::kMerged;
        }
        merged_.notify_all();
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      failed_ = true;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    merge_end_ = std::max(merge_end_, std::chrono::steady_clock::now());
    merged_.notify_all();
  }

  /// A stream worker's claim on partition i: true when it is (or will be) copied on the host
  /// (returns once it is), false when the worker gathers it.
  bool claim(std::size_t i) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (mode_ != MergeCopy::kHost && state_[i] == State::kFree) {
      state_[i] = State::kGathered;
      return false;
    }
    merged_.wait(lock, [&] { return state_[i] == State::kMerged || failed_; });
    if (state_[i] != State::kMerged) throw std::runtime_error("MP-EGA: the CPU merge of the tiles' partitions failed");
    return true;
  }

  /// After an error: the merge threads stop after their current copy.
  void stop() {
    std::lock_guard<std::mutex> lock(mutex_);
    front_ = count_;
    back_ = 0;
  }

  std::chrono::steady_clock::time_point merge_end() const { return merge_end_; }

 private:
  enum class State : char { kFree, kCopying, kMerged, kGathered };

  /// The next partition for a merge thread (kHost: from the front; else from the back, skipping
  /// those the stream workers took), marked as being copied.
  bool take(std::size_t& i) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (mode_ == MergeCopy::kHost) {
      if (front_ == count_) return false;
      i = front_++;
    } else {
      while (back_ > 0 && state_[back_ - 1] != State::kFree) --back_;
      if (back_ == 0) return false;  // the stream workers took the rest
      i = --back_;
    }
    state_[i] = State::kCopying;
    return true;
  }

  const MergeCopy mode_;
  const std::size_t count_;
  std::mutex mutex_;
  std::condition_variable merged_;
  std::vector<State> state_;
  bool failed_ = false;
  std::size_t front_ = 0, back_;
  std::chrono::steady_clock::time_point merge_end_;
};

/// What the stream workers count, shared by them.
struct MpEga::ProcessCounters {
  std::atomic<std::size_t> next{0};  // the next partition (position in the processing order)
  std::atomic<std::size_t> out_count{0}, oversize{0}, rounds{0}, cpu_rows{0}, gathered{0}, full_tables{0};
  std::atomic<std::size_t> round_rows{0};
  std::atomic<std::size_t> min_round{std::numeric_limits<std::size_t>::max()};

  /// A feedback round of `batch` rows; `left`: it left rows of its partition (the rounds 4.2.2's
  /// lower bound is about).
  void record_round(std::size_t batch, bool left) {
    ++rounds;
    round_rows += batch;
    if (!left) return;
    std::size_t seen = min_round.load();
    while (batch < seen && !min_round.compare_exchange_weak(seen, batch)) {
    }
  }
};

void MpEga::aggregate_on_cpu(CpuTable& table, const std::uint32_t* keys, const std::uint64_t* values,
                             std::size_t rows, Aggregation op) {
  for (std::size_t i = 0; i < rows; ++i) {
    auto [aggregate, inserted] = table.try_emplace(keys[i], values[i]);
    if (!inserted) aggregate = combine_host(op, aggregate, values[i]);
  }
}

void MpEga::emit(const CpuTable& table, ProcessCounters& counters) {
  std::size_t at = counters.out_count.fetch_add(table.size());
  table.for_each([&](std::uint32_t key, std::uint64_t value) {
    result_keys_[at] = key;
    result_values_[at] = value;
    ++at;
  });
}

void MpEga::process_partition(StreamContext& ctx, std::size_t m, bool merged, Aggregation op,
                              ProcessCounters& counters) {
  const std::size_t L = tile_rows_;
  const std::size_t rows = merged_begin_[m + 1] - merged_begin_[m];
  const cudaStream_t s = ctx.stream;
  auto& b = ctx.ega.buffers();
  const auto cpu_rows_of = [&](CpuTable& table, std::size_t from) {
    for_each_piece(m, merged, from, rows, [&](const std::uint32_t* k, const std::uint64_t* v, std::size_t c) {
      aggregate_on_cpu(table, k, v, c, op);
    });
  };
  if (rows > L) {
    ++counters.oversize;
    if (config_.oversize == OversizeMode::kCpu) {
      CpuTable table(rows);
      cpu_rows_of(table, 0);
      counters.cpu_rows += rows;
      emit(table, counters);
      return;
    }
  }
  // Feedback load (4.2.2); a partition of at most L rows is the one-round case.
  std::size_t loaded = 0;   // rows of the partition sent to the GPU so far
  std::size_t results = 0;  // groups so far, in yellow[L - results, L)
  const bool free_space = config_.oversize == OversizeMode::kFreeSpaceLoad;
  const auto full = static_cast<std::size_t>(config_.alpha_max * L);
  // alpha_min L rounded up: a round moves at least alpha_min L pairs (room >= L - full >= this).
  const auto least = std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(config_.alpha_min * L)));
  Groups g;
  while (loaded < rows) {
    const std::size_t room = L - results;  // >= 1: a full table ends the loop below
    // At most L rows: one round. Else the feedback rule: fill up to alpha_max L, but never
    // send fewer than alpha_min L pairs (PCIe efficiency); or (the ablation) the free slots.
    std::size_t want = rows;
    if (rows > L) want = free_space ? room : std::max(full > results ? full - results : 0, least);
    const std::size_t batch = std::min({rows - loaded, want, room});
    if (rows > L) counters.record_round(batch, loaded + batch < rows);
    if (results > 0) {  // the groups so far go first into red, the new pairs after them
      HASHLAB_CUDA_CHECK(cudaMemcpyAsync(b.red_keys.data(), g.keys, results * sizeof(std::uint32_t),
                                         cudaMemcpyDeviceToDevice, s));
      HASHLAB_CUDA_CHECK(cudaMemcpyAsync(b.red_values.data(), g.aggregates, results * sizeof(std::uint64_t),
                                         cudaMemcpyDeviceToDevice, s));
    }
    load_rows(ctx, m, merged, loaded, batch, results);
    g = ctx.ega.run(results + batch, op, s);
    results = g.count;
    loaded += batch;
    // The table is "full" (beyond alpha_max L; the ablation: no free slot left): the CPU takes
    // the rest.
    if (free_space ? results >= L : results > full) break;
  }
  if (loaded == rows) {  // the GPU's groups are the partition's: copy them out
    const std::size_t at = counters.out_count.fetch_add(results);
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(result_keys_ + at, g.keys, results * sizeof(std::uint32_t),
                                       cudaMemcpyDeviceToHost, s));
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(result_values_ + at, g.aggregates, results * sizeof(std::uint64_t),
                                       cudaMemcpyDeviceToHost, s));
    HASHLAB_CUDA_CHECK(cudaStreamSynchronize(s));
    return;
  }
  // The GPU's groups and the rows it did not take, combined on the CPU.
  std::vector<std::uint32_t> gpu_keys(results);
  std::vector<std::uint64_t> gpu_values(results);
  HASHLAB_CUDA_CHECK(cudaMemcpyAsync(gpu_keys.data(), g.keys, results * sizeof(std::uint32_t),
                                     cudaMemcpyDeviceToHost, s));
  HASHLAB_CUDA_CHECK(cudaMemcpyAsync(gpu_values.data(), g.aggregates, results * sizeof(std::uint64_t),
                                     cudaMemcpyDeviceToHost, s));
  HASHLAB_CUDA_CHECK(cudaStreamSynchronize(s));
  CpuTable table(results);
  aggregate_on_cpu(table, gpu_keys.data(), gpu_values.data(), results, op);
  cpu_rows_of(table, loaded);
  counters.cpu_rows += rows - loaded;
  ++counters.full_tables;
  emit(table, counters);
}

void MpEga::process(Aggregation op, std::chrono::steady_clock::time_point merge_start) {
  const std::size_t count = merged_begin_.size() - 1;
  // Largest first, so that the big ones do not come last and leave the other streams idle.
  std::vector<std::size_t> order(count);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return merged_begin_[a + 1] - merged_begin_[a] > merged_begin_[b + 1] - merged_begin_[b];
  });
  const MergeCopy mode = config_.merge_copy;
  MergeSchedule schedule(mode, count, merge_start);
  // The merge threads: the host threads less one per stream (the stream workers mostly wait on
  // the GPU), at least one.
  const unsigned host = config_.host_threads > 0 ? config_.host_threads : cpu::default_threads();
  const auto stream_threads = static_cast<unsigned>(contexts_.size());
  const unsigned merge_threads = !copies_merged_partitions(mode) ? 0u : static_cast<unsigned>(std::min<std::size_t>(
      std::max(1u, host > stream_threads ? host - stream_threads : 1u), std::max<std::size_t>(count, 1)));

  ProcessCounters counters;
  std::exception_ptr error;
  std::mutex error_mutex;
  int device = 0;
  HASHLAB_CUDA_CHECK(cudaGetDevice(&device));
  auto worker = [&](StreamContext& ctx) {
    HASHLAB_CUDA_CHECK(cudaSetDevice(device));
    for (std::size_t i = counters.next++; i < count; i = counters.next++) {
      const std::size_t m = order[i];
      if (merged_begin_[m + 1] == merged_begin_[m]) continue;
      const bool merged = schedule.claim(i);
      if (!merged) ++counters.gathered;
      process_partition(ctx, m, merged, op, counters);
    }
  };
  std::vector<std::thread> mergers;
  for (unsigned t = 0; t < merge_threads; ++t)
    mergers.emplace_back([&] { schedule.merge_worker([&](std::size_t i) { copy_merged_partition(order[i]); }); });
  std::vector<std::thread> threads;
  for (auto& ctx : contexts_)
    threads.emplace_back([&, c = ctx.get()] {
      try {
        worker(*c);
      } catch (...) {
        counters.next = count;
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    });
  for (auto& th : threads) th.join();
  schedule.stop();  // after an error: the merge threads stop after their current copy
  for (auto& th : mergers) th.join();
  const auto process_end = std::chrono::steady_clock::now();
  const auto merge_end = schedule.merge_end();
  stats_.merge_ms = std::chrono::duration<double, std::milli>(merge_end - merge_start).count();
  stats_.process_ms = std::chrono::duration<double, std::milli>(process_end - std::max(merge_end, merge_start)).count();
  if (error) {
    drain_streams();
    std::rethrow_exception(error);
  }
  stats_.oversize_partitions = counters.oversize;
  stats_.feedback_rounds = counters.rounds;
  stats_.feedback_round_rows = counters.round_rows;
  stats_.feedback_min_round_rows =
      counters.min_round == std::numeric_limits<std::size_t>::max() ? 0 : counters.min_round.load();
  stats_.full_partitions = counters.full_tables;
  stats_.cpu_rows = counters.cpu_rows;
  stats_.gathered_partitions = counters.gathered;
  result_ = HostGroups{result_keys_, result_values_, counters.out_count};
}

namespace {

void check_simulation(std::uint64_t n, std::uint32_t partitions) {
  if (partitions < 1 || partitions > kMaxSimulatedPartitions)
    throw std::invalid_argument("Theorem 1 simulation: " + std::to_string(partitions) + " partitions; 1 to " +
                                std::to_string(kMaxSimulatedPartitions) + " fit the per-thread counters");
  if (n >= (std::uint64_t{1} << 32))
    throw std::invalid_argument("Theorem 1 simulation: n = " + std::to_string(n) + " balls; the keys are 32-bit");
}

}  // namespace

std::vector<std::uint32_t> theorem1_largest_bins(std::uint64_t n, std::uint32_t partitions, std::uint32_t trials,
                                                 std::uint32_t first_trial, cudaStream_t stream) {
  check_simulation(n, partitions);
  DeviceBuffer<std::uint32_t> largest(trials, stream);
  constexpr std::uint32_t kTrialsPerLaunch = 65536;
  const std::size_t shared = std::size_t{partitions} * kDefaultBlock * sizeof(std::uint32_t);
  for (std::uint32_t done = 0; done < trials; done += std::min(kTrialsPerLaunch, trials - done)) {
    const std::uint32_t blocks = std::min(kTrialsPerLaunch, trials - done);
    theorem1_trial_largest_bin<<<blocks, kDefaultBlock, shared, stream>>>(n, partitions, first_trial + done,
                                                                          largest.data() + done);
    HASHLAB_CHECK_LAUNCH();
  }
  return largest.to_host(stream);
}

std::uint32_t theorem1_largest_bin_on_host(std::uint64_t n, std::uint32_t partitions, std::uint32_t trial) {
  check_simulation(n, partitions);
  std::vector<std::uint32_t> counts(partitions, 0);
  const std::uint32_t seed = kPartitionSeed + trial;
  for (std::uint64_t i = 0; i < n; ++i) ++counts[partition_of(hash::fmix32(static_cast<std::uint32_t>(i)), partitions, seed)];
  return *std::max_element(counts.begin(), counts.end());
}

std::size_t parse_bytes(const std::string& text) {
  if (text.empty() || text == "0" || text == "auto") return 0;
  try {
    return static_cast<std::size_t>(hashlab::parse_bytes(text));
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument("not a byte count: '" + text + "' (examples: 2GiB, 512MiB, 100MB, 4096)");
  }
}

}  // namespace hashlab::ega
