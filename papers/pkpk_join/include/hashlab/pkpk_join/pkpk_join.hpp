// Dash, "Parallel Pk-Pk Join Algorithm Using GPU Servers": the BSP-sort primary-key join and
// the comparators the report measures it against (a GPU hash join standing in for Crystal, a
// full-device sort join, the CPU join).
//
// The join of two tables R and S whose keys are unique within each table (primary keys):
//   JoinedRows out = pkpk::bsp_join({r_keys, r_values, nr}, {s_keys, s_values, ns}, stream);
// gives the rows (key, value1 = R's value, value2 = S's value) of every key in both tables,
// sorted by key, compacted (out.size rows). The report's nine steps map to the kernels of
// src/bsp_sort.cu and src/join.cu (see README.md).
//
// Per-step times (the report's nvprof table): every GPU join takes an optional PhaseTimer
// (common/phase_timer.hpp) and marks each of its kernels (or library calls) on it, under the
// names its comment lists (`block_sort`, `sample`, ..., `compact_write`). A step's items are what
// the step itself processes, so that its rate is a throughput of its own work: input rows for the
// steps that pass over the data; samples, splitters or counts for those that never touch it.
// Without a timer (the timed runs) no event is recorded.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/common/phase_timer.hpp"

namespace hashlab::pkpk {

// ---- the sorted element: key, table, row in one 64-bit word ----------------------------------
//
// Step 1 (Input Data) puts both key columns in one array; each element must remember where it
// came from so that the join can fetch its value. We pack (key, table, row) into 64 bits:
//   bits 63..32 key, bit 31 table (0 = R, 1 = S), bits 30..0 row.
// Sorting on bits [31, 64) puts equal keys next to each other, R's before S's.

constexpr int kTableR = 0;
constexpr int kTableS = 1;
constexpr int kSortBeginBit = 31;  // the sort orders (key, table); the row never needs ordering
constexpr int kSortEndBit = 64;
/// Rows per table: 31 row bits, and the largest row index stays below the padding's row field.
constexpr std::uint64_t kMaxRowsPerTable = (std::uint64_t{1} << 31) - 1;
/// The tail tile's padding: sorts after every real element (whose row is < 2^31 - 1).
constexpr std::uint64_t kPadding = ~std::uint64_t{0};

HASHLAB_HD std::uint64_t pack(std::uint32_t key, int table, std::uint64_t row) {
  return (std::uint64_t{key} << 32) | (std::uint64_t(table) << 31) | row;
}
HASHLAB_HD std::uint32_t key_of(std::uint64_t e) { return static_cast<std::uint32_t>(e >> 32); }
HASHLAB_HD int table_of(std::uint64_t e) { return static_cast<int>((e >> 31) & 1u); }
HASHLAB_HD std::uint32_t row_of(std::uint64_t e) { return static_cast<std::uint32_t>(e & 0x7fffffffu); }

// ---- inputs and outputs -----------------------------------------------------------------------

/// One table of the join, in device memory: `rows` keys (unique) and one value per row.
struct TableView {
  const std::uint32_t* keys = nullptr;
  const std::uint32_t* values = nullptr;
  std::size_t rows = 0;
};

/// One output row of the join.
struct JoinedRow {
  std::uint32_t key;
  std::uint32_t value1;  // R's value
  std::uint32_t value2;  // S's value
  friend bool operator==(const JoinedRow& a, const JoinedRow& b) {
    return a.key == b.key && a.value1 == b.value1 && a.value2 == b.value2;
  }
  friend bool operator<(const JoinedRow& a, const JoinedRow& b) { return a.key < b.key; }
};

/// The compacted output (the report writes a sparse 3·n array; we write `size` dense rows).
/// Capacity min(|R|, |S|), the most rows a pk-pk join can produce.
struct JoinedRows {
  DeviceBuffer<std::uint32_t> key, value1, value2;
  std::size_t size = 0;
  /// The rows on the host (synchronises `stream`).
  std::vector<JoinedRow> to_host(cudaStream_t stream) const;
};

/// Throws std::invalid_argument when the tables cannot be joined: more than kMaxRowsPerTable
/// rows, or missing key / value columns in a table with rows. An empty table is valid: every
/// join returns no rows for it (as the CPU joins do) and launches nothing.
void validate(const TableView& r, const TableView& s);

// ---- the BSP-sort join ------------------------------------------------------------------------

/// Tile of the block-wise sort (step 2, Data Partitioning): BLOCK_THREADS x ITEMS_PER_THREAD.
enum class TileShape {
  kStandard,  // 256 threads x 16 items = 4096 elements (32 KiB of 64-bit keys in shared memory)
  kTeaching,  // 4 threads x 1 item = 4 elements, so that `hashlab demo` shows several blocks
};
std::size_t tile_items(TileShape shape);

/// The report uses p = the number of blocks (tiles) as the number of partitions; the counts
/// matrix is p x tiles, so beyond this many tiles we keep p here (see README.md).
constexpr std::uint32_t kDefaultMaxPartitions = 1024;
/// p is bounded by the shared-memory counters of the count kernel (4 bytes each).
constexpr std::uint32_t kMaxPartitions = 8192;
/// Rows of both tables together that bsp_join sorts (cub's segmented sort takes int offsets).
constexpr std::uint64_t kMaxBspRows = 0x7fffffffu;

struct BspOptions {
  std::uint32_t partitions = 0;  // p (buckets; p - 1 splitters); 0: min(tiles, kDefaultMaxPartitions)
  std::uint64_t seed = 1;        // cuRAND seed of the sampling (step 5)
  TileShape tile = TileShape::kStandard;
  /// Steps 7-8 the way the report rejects ("atomic operations can be used but that will
  /// increase the time complexity"): no segmented prefix sum; each element takes the next free
  /// slot of its bucket with a global atomicAdd. The order within a bucket is then arbitrary,
  /// and the local sort restores it, so the rows are the same. Measures the report's claim.
  bool atomic_scatter = false;
};

/// p for n elements when BspOptions::partitions is 0.
std::uint32_t default_partitions(std::size_t n, TileShape shape);

/// Step 5: the samples drawn from each sorted tile for p buckets, the report's log(p): log2(p)
/// rounded up, at least one (the report's code truncates; README, Deviations).
std::uint32_t samples_per_tile(std::uint32_t p);

/// Step 5, the report's "Splitterss": splitter i (0 <= i < p - 1) is the sorted sample at
/// (i + 1) * num_samples / p, so the p - 1 splitters cut the sorted samples into p equal groups.
HASHLAB_HD std::size_t splitter_sample(std::size_t i, std::size_t num_samples, std::uint32_t p) {
  return (i + 1) * num_samples / p;
}

/// What a traced run of bsp_join records. Tracing synchronises: keep it out of timed runs (the
/// per-step times come from a PhaseTimer, not from the trace).
struct BspTrace {
  bool capture_arrays = false;  // copy every intermediate array to the host (small inputs only)

  // Always filled.
  std::size_t tiles = 0;
  std::uint32_t partitions = 0;
  std::uint32_t samples_per_tile = 0;
  std::vector<std::uint64_t> bucket_sizes;  // elements per destination bucket (p of them)
  std::uint64_t max_bucket = 0;
  double mean_bucket = 0;

  // With capture_arrays, in the report's words.
  std::vector<std::uint64_t> block_sorted;    // step 3: each tile sorted
  std::vector<std::uint32_t> samples;         // step 5: log2(p) keys per tile, then sorted
  std::vector<std::uint32_t> sorted_samples;
  std::vector<std::uint32_t> splitters;       // step 5: p - 1 splitter keys
  std::vector<std::uint32_t> partition_ids;   // step 6: each element's destination bucket
  std::vector<std::uint32_t> counts;          // step 7: counts[bucket * tiles + tile]
  std::vector<std::uint32_t> offsets;         // step 7: exclusive prefix sum of counts
  std::vector<std::uint32_t> ranks;           // step 7: segmented prefix sum (rank in its run)
  std::vector<std::uint64_t> assigned;        // step 8: scattered into the buckets
  std::vector<std::uint64_t> sorted;          // after the per-bucket local sort
};

/// The BSP-sort join (the report's steps 1-9). Asynchronous on `stream` but for one final
/// synchronisation that sizes the output and checks for repeated keys: throws
/// std::invalid_argument naming a key that appears twice in one table. Steps marked on `phases`:
/// block_sort, sample, sort_samples, splitters, partition_ids, count_splits, prefix_sum,
/// segmented_prefix_sum and assign (or assign_atomic), bucket_sort, join, compact_scan,
/// compact_write.
JoinedRows bsp_join(const TableView& r, const TableView& s, cudaStream_t stream,
                    const BspOptions& options = {}, BspTrace* trace = nullptr, PhaseTimer* phases = nullptr);

// ---- comparators ------------------------------------------------------------------------------

/// Full-device sort join: pack, cub::DeviceRadixSort of the whole array on (key, table), then
/// the same adjacent compare and compaction as bsp_join. Shows what the BSP steps buy. Steps:
/// pack, device_radix_sort, join, compact_scan, compact_write.
JoinedRows sort_join(const TableView& r, const TableView& s, cudaStream_t stream, PhaseTimer* phases = nullptr);

/// The report's own element layout on the same full-device sort: both key columns concatenated
/// as bare 32-bit keys, cub::DeviceRadixSort, equal neighbours join, and the values looked up in
/// key-indexed maps hmap1 / hmap2 (the report's JoinKernel) of `key_domain` entries each
/// (4 x key_domain bytes per table, built on the device inside the join). Beside sort_join it
/// measures what carrying (key, table, row) through the sort costs or saves. Keys must lie in
/// [0, key_domain), key_domain <= 2^32 (std::invalid_argument otherwise). Bare keys do not say
/// their table, so a repeated key is caught only when the rows exceed min(|R|, |S|)
/// (std::invalid_argument); otherwise it gives wrong rows, never a write past the output, which
/// is sized exactly after one synchronisation. Steps: hmaps, concat, device_radix_sort, join,
/// compact_scan, compact_write.
JoinedRows hmap_sort_join(const TableView& r, const TableView& s, std::uint64_t key_domain, cudaStream_t stream,
                          PhaseTimer* phases = nullptr);

/// GPU hash join (common's linear-probing HashJoin, the Crystal stand-in): build on R, probe
/// with S, then gather (key, value1, value2). Rows are in probe order, not sorted. R's key
/// 0xffffffff (the table's empty sentinel) raises std::invalid_argument; more rows than
/// min(|R|, |S|) (a key repeated within a table) raise std::invalid_argument too. Steps: build
/// (R's rows), probe (S's rows), gather (the output rows).
JoinedRows hash_join(const TableView& r, const TableView& s, cudaStream_t stream, PhaseTimer* phases = nullptr);

// ---- host side --------------------------------------------------------------------------------

/// The CPU reference (common/reference's pkpk_join) as joined rows, sorted by key. Throws
/// std::invalid_argument naming a repeated key.
std::vector<JoinedRow> reference_join(const std::vector<std::uint32_t>& r_keys,
                                      const std::vector<std::uint32_t>& r_values,
                                      const std::vector<std::uint32_t>& s_keys,
                                      const std::vector<std::uint32_t>& s_values);

/// The multi-threaded CPU join (common's cpu::parallel_join) as joined rows, in R's order.
std::vector<JoinedRow> cpu_join(const std::vector<std::uint32_t>& r_keys, const std::vector<std::uint32_t>& r_values,
                                const std::vector<std::uint32_t>& s_keys, const std::vector<std::uint32_t>& s_values,
                                unsigned threads = 0);

/// The same join by sorting, in key order: each table's (key, value) words radix-sorted on all
/// cores, then merged on all cores. It shares nothing with the hash joins, cpu_join included.
/// Throws std::invalid_argument naming a repeated key, or when a table's columns differ in length.
std::vector<JoinedRow> sort_merge_join(const std::vector<std::uint32_t>& r_keys,
                                       const std::vector<std::uint32_t>& r_values,
                                       const std::vector<std::uint32_t>& s_keys,
                                       const std::vector<std::uint32_t>& s_values, unsigned threads = 0);

/// The checks' answer for two tables, sorted by key: reference_join up to cpu::kOracleReferenceRows
/// rows per table, sort_merge_join above (tested equal to it); `note` (optional) then says so, and
/// is emptied otherwise.
std::vector<JoinedRow> oracle_join(const std::vector<std::uint32_t>& r_keys, const std::vector<std::uint32_t>& r_values,
                                   const std::vector<std::uint32_t>& s_keys, const std::vector<std::uint32_t>& s_values,
                                   std::string* note = nullptr);

}  // namespace hashlab::pkpk
