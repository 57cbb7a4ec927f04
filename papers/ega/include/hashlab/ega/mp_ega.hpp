// MP-EGA (EGA section 4.2): group-by of data in host memory that does not fit the GPU (or a
// GPU memory budget), in two phases.
//
// Partition-generating phase (4.2.5, Algorithm 2): the input is cut into T tiles of L rows.
// s CUDA streams, each driven by its own CPU thread, take GPU tiles: copy in, SP-EGA, three
// partitioning kernels (in-block index by block-local atomics + global counters, prefix sum,
// final index), copy out. A CPU tile driver takes CPU tiles and partitions them on t threads
// with local partition counters. Tiles are handed out first come, first served. The per-tile
// partition results are then merged on the CPU into contiguous partitions, small partitions
// merged greedily (Algorithm 1) on the way.
// Partition-processing phase (Algorithm 3): s streams (one CPU thread each) copy a partition in,
// run SP-EGA and copy its groups out; a partition larger than a stream's buffers goes through the
// feedback load (4.2.2), and what does not fit is aggregated on the CPU and combined.
//
//   hashlab::ega::MpEgaConfig config;  config.gpu_memory_budget = 2ull << 30;
//   hashlab::ega::MpEga mp(config, max_rows);          // allocates device and pinned memory
//   const auto& groups = mp.run(keys, values, n, Aggregation::kSum);   // host pointers (pinned)
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hashlab/common/flat_map.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/ega/sp_ega.hpp"

namespace hashlab::ega {

/// How a partition larger than a stream's buffers (L rows) is processed.
enum class OversizeMode {
  kFeedbackLoad,   // 4.2.2: load by the alpha thresholds, the CPU takes the rest
  kCpu,            // the whole partition on the CPU (the ablation "feedback load off")
  kFreeSpaceLoad,  // 4.2.2's "natural approach" (ablation): each round loads as many pairs as the
                   // table has free slots, until the partition is done or the table is full (the
                   // CPU takes the rest); the paper's reason for the alpha thresholds
};

/// How a merged partition's pieces (one per tile and partition, in the tiles' output in pinned
/// host memory) reach the GPU.
enum class MergeCopy {
  kHost,       // 4.2.5 as written: CPU threads copy the pieces into one contiguous partition in
               // pinned memory, then one copy per load takes it to the GPU
  kGpuGather,  // the default (ours; README): no host copy, one kernel per load reads the pieces
               // over PCIe straight from the tiles' output (zero-copy) into the stream's buffer
  kHostAndGather,  // both at once (ours): merge threads copy merged partitions from the back of
                   // the processing order while the streams gather from its front
  kPieceCopies,    // the alternative 4.2.5 rejects: no merge on the CPU; each load copies the
                   // partition's pieces from the tiles' output (pinned) as they lie, one
                   // cudaMemcpyAsync per tile's piece and column: T copies (x 2) per partition
};

/// "host_copy", "gpu_gather", "host_and_gather", "piece_copies" (the experiments' variant names).
const char* to_string(MergeCopy copy);
/// Whether `copy` copies merged partitions into a contiguous layout on the host (kHost,
/// kHostAndGather), which needs the merged part of the pinned workspace and merge threads.
bool copies_merged_partitions(MergeCopy copy);

struct MpEgaConfig {
  std::size_t gpu_memory_budget = 0;  // bytes MP-EGA may allocate on the device; 0: 90% of the free memory
  int streams = 2;                    // s (README: measured best of 1, 2, 4, 8 at budget data / 8)
  unsigned cpu_tile_threads = 0;      // t: threads of the CPU tile driver; 0: every tile on the GPU
  unsigned host_threads = 0;          // host threads; the CPU merge gets these less one per stream, at least 1 (0: all cores)
  double failure_probability = 1e-6;  // p of Theorem 1
  std::uint64_t groups_estimate = 0;  // n of Theorem 1; 0: the row count (an upper bound)
  std::size_t fixed_partitions = 0;   // > 0: this partition count instead of Theorem 1's (ablation)
  bool merge_small_partitions = true; // Algorithm 1 (ablation: off)
  MergeCopy merge_copy = MergeCopy::kGpuGather;  // README: measured fastest of the three at s = 2
  OversizeMode oversize = OversizeMode::kFeedbackLoad;
  double alpha_min = 0.2;             // 4.2.2: least load per round, as a fraction of L
  double alpha_max = 0.8;             // 4.2.2: result count beyond which the table is "full"

  /// Throws std::invalid_argument naming the bad field (streams < 1, alphas, p, ...).
  void validate() const;
};

/// MP-EGA's pinned host workspace: the tiles' partitioned output, the merged partitions and the
/// result. Pinning gigabytes takes about as long as a run, so MpEgas that run one after another on
/// inputs of one size (an experiment's configurations) may share one; each grows it to what it
/// needs, and it never shrinks. Nothing in it outlives a run but the run's result.
struct MpEgaHostWorkspace {
  PinnedBuffer<std::uint32_t> tile_keys, merged_keys, result_keys;
  PinnedBuffer<std::uint64_t> tile_values, merged_values, result_values;
  /// Makes each part hold at least this many rows (pins anew only the parts that are too small).
  void reserve(std::size_t tile_rows, std::size_t merged_rows, std::size_t result_rows);
};

/// Groups in pinned host memory (owned by the MpEga that computed them, or by its shared
/// workspace; valid until the next run of an MpEga on that memory).
struct HostGroups {
  const std::uint32_t* keys = nullptr;
  const std::uint64_t* aggregates = nullptr;
  std::size_t count = 0;
  reference::GroupByResult to_reference(Aggregation op) const;
};

/// What a run did, for the experiments' breakdowns and ablations.
struct MpEgaStats {
  double generate_ms = 0;   // partition-generating phase (tiles)
  double merge_ms = 0;      // CPU merge of the tiles' partitions: Algorithm 1 and the layout, then
                            // the host copies (not kGpuGather, kPieceCopies) until the last one ends
  double process_ms = 0;    // partition processing after the merge: after the last host copy, which
                            // it overlaps (kGpuGather, kPieceCopies: all of it, the loads included)
  std::size_t gathered_partitions = 0;  // merged partitions the streams gathered or copied piece by
                                        // piece (not host-copied)
  double total_ms = 0;
  std::size_t tile_rows = 0;          // L
  std::size_t tiles = 0, gpu_tiles = 0, cpu_tiles = 0;
  std::size_t partitions = 0;         // P (Theorem 1 or fixed)
  std::size_t merged_partitions = 0;  // after Algorithm 1
  std::size_t partition_rows = 0;     // rows after the tiles' pre-aggregation
  std::size_t oversize_partitions = 0;
  std::size_t feedback_rounds = 0;
  std::size_t feedback_round_rows = 0;      // rows the feedback rounds loaded, all partitions together
  std::size_t feedback_min_round_rows = 0;  // the smallest round after which rows of its partition were
                                            // left (a partition's last round may be short); 0: none
  std::size_t full_partitions = 0;    // oversize partitions whose table the feedback load found full
                                      // (the CPU took the rest): Theorem 1's overflow
  std::size_t cpu_rows = 0;           // rows the CPU aggregated in the processing phase
};

class MpEga {
 public:
  /// Allocates s streams' device buffers within the budget and pinned host workspace for up to
  /// `max_rows` input rows (36 bytes a row; 24 with MergeCopy::kGpuGather or kPieceCopies). Throws std::invalid_argument when the budget cannot
  /// hold one tile per stream or exceeds the free device memory. With `host`, the pinned workspace
  /// is that one (grown as needed) instead of its own: it must outlive this MpEga, and serve no
  /// other MpEga while this one runs.
  MpEga(const MpEgaConfig& config, std::size_t max_rows, MpEgaHostWorkspace* host = nullptr);
  ~MpEga();
  MpEga(const MpEga&) = delete;
  MpEga& operator=(const MpEga&) = delete;

  /// Group-by of n rows (host memory, pinned for full PCIe speed). Throws std::invalid_argument on
  /// n > max_rows, an unsupported aggregation or the empty key 0xffffffff in the input.
  const HostGroups& run(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, Aggregation op);

  const MpEgaStats& stats() const { return stats_; }
  std::size_t tile_rows() const { return tile_rows_; }
  const MpEgaConfig& config() const { return config_; }

  /// L, the rows of one stream's buffers, for a budget and a stream count (what the constructor
  /// uses): the budget split evenly, 32 bytes a row (three buffers and the tile's value column),
  /// less a fixed reserve per stream. 0 when the budget is too small.
  static std::size_t tile_rows_for(std::size_t budget, int streams);

 private:
  struct StreamContext;
  void generate(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, Aggregation op);
  void merge(Aggregation op);
  // Partition processing (Algorithm 3): process() runs process_partition on one worker per
  // stream, beside the merge threads (MergeSchedule).
  class MergeSchedule;
  struct ProcessCounters;
  /// The CPU's share of a partition (4.2.2: what the GPU's table could not take): key -> aggregate.
  using CpuTable = cpu::FlatMap<std::uint32_t, std::uint64_t>;
  void process(Aggregation op, std::chrono::steady_clock::time_point merge_start);
  /// Merged partition m on one stream: the feedback load (a partition of at most L rows in one
  /// round), the groups copied out, or what the GPU's table could not take finished on the CPU.
  void process_partition(StreamContext& ctx, std::size_t m, bool merged, Aggregation op, ProcessCounters& counters);
  static void aggregate_on_cpu(CpuTable& table, const std::uint32_t* keys, const std::uint64_t* values,
                               std::size_t rows, Aggregation op);
  /// Appends the table's groups to the result.
  void emit(const CpuTable& table, ProcessCounters& counters);
  void copy_merged_partition(std::size_t m);
  /// Calls visit(keys, values, rows) for rows [from, to) of merged partition m: once, on its
  /// contiguous host copy when `merged`, else piece by piece from the tiles' output.
  template <typename Visit>
  void for_each_piece(std::size_t m, bool merged, std::size_t from, std::size_t to, Visit&& visit) const;
  /// Enqueues on the stream the load of rows [from, from + rows) of merged partition m into red at
  /// `at`: one copy of its host copy when `merged`, else the gather of its pieces.
  void load_rows(StreamContext& ctx, std::size_t m, bool merged, std::size_t from, std::size_t rows, std::size_t at);
  /// After a worker failed: waits for every stream's pending copies into the shared pinned
  /// buffers before the error leaves run() (errors from the streams themselves are dropped).
  void drain_streams() noexcept;

  MpEgaConfig config_;
  std::size_t max_rows_ = 0;
  std::size_t tile_rows_ = 0;
  std::vector<std::unique_ptr<StreamContext>> contexts_;
  // Pinned workspace (own_host_ or the caller's): the tiles' partitioned output (tile j at j * L);
  // the merged partitions (not with MergeCopy::kGpuGather); the result (its own buffer: the merge
  // still reads the tiles' output while the first partitions are processed).
  std::unique_ptr<MpEgaHostWorkspace> own_host_;
  std::uint32_t *tile_keys_ = nullptr, *merged_keys_ = nullptr, *result_keys_ = nullptr;
  std::uint64_t *tile_values_ = nullptr, *merged_values_ = nullptr, *result_values_ = nullptr;
  const std::uint32_t* tile_keys_device_ = nullptr;  // the tiles' output as the GPU addresses it
  const std::uint64_t* tile_values_device_ = nullptr;
  // Per run.
  std::size_t partitions_ = 0;
  std::size_t tiles_ = 0;
  std::vector<std::size_t> tile_sizes_;                 // rows tile j produced
  std::vector<std::vector<std::size_t>> tile_offsets_;  // [tile][p]: start of partition p in tile j's output
  std::vector<std::size_t> merged_begin_;               // merged partition m: rows [begin[m], begin[m + 1])
  std::vector<std::vector<std::size_t>> merged_parts_;  // merged partition m: its partitions (Algorithm 1)
  std::vector<std::size_t> destination_;                // partition p's first row in the merged layout
  struct Piece {
    std::size_t first = 0;  // its first row in the tiles' output
    std::size_t rows = 0;
  };
  std::vector<Piece> pieces_;              // merged partition m's pieces, in its row order, are
  std::vector<std::size_t> piece_begin_;   // pieces_[piece_begin_[m], piece_begin_[m + 1]) (empty ones left out)
  HostGroups result_;
  MpEgaStats stats_;
};

/// Theorem 1 (4.2.1) by simulation on the GPU, with MP-EGA's own partition hash: `trials` throws
/// of n balls, the distinct keys fmix32(i) for i < n (fmix32 is a bijection), into `partitions`
/// bins. Trial t uses the hash's seed moved by first_trial + t (trial 0 is MP-EGA's partition
/// itself), a fresh member of the hash family per trial: the theorem's "randomly distributed".
/// Returns each trial's largest bin. Throws std::invalid_argument unless 1 <= partitions <=
/// kMaxSimulatedPartitions and n < 2^32.
constexpr std::uint32_t kMaxSimulatedPartitions = 40;  // per-thread counters in 40 KiB of shared memory
std::vector<std::uint32_t> theorem1_largest_bins(std::uint64_t n, std::uint32_t partitions, std::uint32_t trials,
                                                 std::uint32_t first_trial, cudaStream_t stream);
/// One trial of theorem1_largest_bins on the host (the experiment checks a sample of trials).
std::uint32_t theorem1_largest_bin_on_host(std::uint64_t n, std::uint32_t partitions, std::uint32_t trial);

/// Parses a byte count: "2GiB", "512MiB", "100MB", "1.5GB", "4096" (bytes); "0" or "auto" -> 0.
/// Throws std::invalid_argument on anything else.
std::size_t parse_bytes(const std::string& text);

}  // namespace hashlab::ega
