// What MP-EGA's source files share (private to the module): the workspace's constants, the
// partition hash, one stream's device state, the host side of the partitioning and gather kernels
// (mp_partition_kernels.cu) and of the CPU tiles (mp_generate.cpp), and the walk over a merged
// partition's pieces (merged layout: mp_merge.cpp; its readers: mp_process.cpp).
//
//   mp_ega.cpp                configuration, workspace, run(): the phases in order
//   mp_generate.cpp           partition-generating phase (4.2.5, Algorithm 2): GPU and CPU tiles
//   mp_partition_kernels.cu   its three partitioning kernels, and the gather of a load's pieces
//   mp_merge.cpp              CPU merge of the tiles' partitions (4.2.3, Algorithm 1), merged layout
//   mp_merge_schedule.hpp     who copies or gathers which merged partition, and when
//   mp_process.cpp            partition-processing phase (Algorithm 3) with the feedback load (4.2.2)
//   mp_theorem1.cu            Theorem 1 (4.2.1) by simulation
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <vector>

#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/hash.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/ega/mp_ega.hpp"
#include "hashlab/ega/sp_ega.hpp"
#include "aggregate.hpp"

namespace hashlab::ega {
namespace detail {

constexpr std::size_t kMaxPartitions = 8192;          // block-local counters in 32 KiB of shared memory
constexpr std::size_t kReservePerStream = 256u << 10;  // counters (32 KiB), status, CUB scan storage (KiBs)
constexpr std::size_t kBytesPerTileRow = 32;          // 28 (three buffers) + 4 (the tile's values)
constexpr std::size_t kMinTileRows = 4096;

/// MP-EGA's partition of a key: murmur3 seeded kPartitionSeed (independent of SP-EGA's phase-1
/// and phase-4 positions), mapped to [0, partitions) by multiply-shift.
HASHLAB_HD std::uint32_t partition_of(std::uint32_t key, std::uint32_t partitions,
                                      std::uint32_t seed = kPartitionSeed) {
  return hash::reduce_range(hash::murmur3_32(key, seed), partitions);
}

/// 4.2.5's three partitioning kernels on a GPU tile's groups g (SP-EGA's output, in yellow):
/// counts (kMaxPartitions counters) are zeroed, counted into by the in-block index kernel, then
/// scanned into the partitions' starts; index_in_partition (g.count items) holds each pair's
/// index within its partition; the pairs, partitioned, go to (out_keys, out_values).
/// Asynchronous on `stream`.
void partition_on_gpu(const Groups& g, std::uint32_t partitions, DeviceBuffer<std::uint32_t>& counts,
                      std::uint32_t* index_in_partition, std::uint32_t* out_keys, std::uint64_t* out_values,
                      cudaStream_t stream);

/// MergeCopy::kGpuGather's load: rows [0, count) into (keys, values), read over PCIe from the
/// tiles' output in pinned host memory as the device addresses it, one block per piece. `starts`
/// and `sources` (device memory, `pieces` entries each) give piece q's first row in the load and
/// in the tiles' output. Asynchronous on `stream`.
void gather_pieces_on_gpu(const std::uint32_t* tile_keys, const std::uint64_t* tile_values,
                          const std::uint32_t* starts, const std::uint64_t* sources, std::uint32_t pieces,
                          std::size_t count, std::uint32_t* keys, std::uint64_t* values, cudaStream_t stream);

/// 4.2.5, a CPU tile (mp_generate.cpp): rows pairs partitioned on `threads` threads into
/// (out_keys, out_values); offsets[p]: start of partition p in the tile's output, offsets[P] = rows.
/// Throws std::invalid_argument on the empty key.
void partition_tile_on_cpu(const std::uint32_t* keys, const std::uint32_t* values, std::size_t rows, Aggregation op,
                           std::uint32_t partitions, unsigned threads, std::uint32_t* out_keys,
                           std::uint64_t* out_values, std::vector<std::size_t>& offsets);

/// The first exception of a phase's worker threads (one per stream, and the CPU tile driver).
class FirstError {
 public:
  /// Runs body(); when it throws, calls stop() (the other workers then end after their current
  /// item) and keeps the exception unless another worker's came first.
  template <class Body, class Stop>
  void run(Body&& body, Stop&& stop) noexcept {
    try {
      body();
    } catch (...) {
      stop();
      std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) error_ = std::current_exception();
    }
  }
  explicit operator bool() const { return error_ != nullptr; }
  [[noreturn]] void rethrow() const { std::rethrow_exception(error_); }

 private:
  std::mutex mutex_;
  std::exception_ptr error_;
};

/// The calling thread's device, for the worker threads it starts (each sets it first).
inline int current_device() {
  int device = 0;
  HASHLAB_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

inline double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace detail

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
      : stream(), ega(rows, stream), tile_values(rows, stream), counts(detail::kMaxPartitions, stream),
        begins(detail::kMaxPartitions) {}
};

/// Calls visit(keys, values, rows) for rows [from, to) of merged partition m: once, on its
/// contiguous host copy when `merged`, else piece by piece from the tiles' output.
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

}  // namespace hashlab::ega
