// The RAPIDS hash group-by (Chen, Cui, Kiran, Patterson, 2019), section 3, and the report's
// Thrust sort-based comparator.
//
//   input: a key matrix (1..8 uint32 columns) and a value matrix (1.. columns of V), both
//          column-major on the device; one reduction per value column (sum, min, max, count, mean)
//   1. predict the cardinality N by sampling (CPU pairs or GPU triples), table = 2.6 N slots
//   2. fillTable: one row per thread, atomicCAS of the row index into the key-index column,
//      compare keys with the stored row, on a match update count and results with atomics,
//      else probe linearly; at 75% fill the kernel sets the relaunch flag (managed memory) and
//      the host drops the table and relaunches with a larger one (kGrowthFactor), any number
//      of times
//   3. extraction: Thrust finds the used slots; one kernel copies each group's key row from the
//      input through the stored row index, one copies its results (mean = sum / count)
//
// Value types: V = int32_t (the report's integers) accumulates in int64 (sums exact; min and
// max start at INT32_MAX / INT32_MIN, the value type's max and lowest), V = double in double
// (min / max start at +inf / -inf; NaN values are not supported). Means are double.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hashlab/common/memory.hpp"
#include "hashlab/common/phase_timer.hpp"
#include "hashlab/rapids_groupby/cardinality.hpp"
#include "hashlab/reference/groupby.hpp"

namespace hashlab::rapids {

using reference::Aggregation;

constexpr double kRelaunchLoad = 0.75;  // section 3: relaunch when the table is 75% full
constexpr double kGrowthFactor = 2.0;   // our choice: each relaunch doubles the table
constexpr int kMaxKeyColumns = 8;
constexpr std::int32_t kEmptyIndex = -1;  // section 3: "-1 to represent an unwritten state"

/// How the initial table size is chosen.
enum class Sampling {
  kNone,  // GroupByOptions::table_size slots (Fig. 3: 1x .. 4x the unique keys)
  kCpu,   // section 3's CPU pair sampler (needs GroupByInput::host_keys)
  kGpu,   // section 3's GPU triple sampler (predictTableLength_GPU)
};
const char* to_string(Sampling s);

/// The input matrices, on the device, column-major: column c of the keys starts at keys + c*rows.
template <class V>
struct GroupByInput {
  const std::uint32_t* keys = nullptr;
  int key_columns = 0;
  const V* values = nullptr;
  int value_columns = 0;
  std::size_t rows = 0;
  const std::uint32_t* host_keys = nullptr;  // host copy of the keys (Sampling::kCpu samples it)
};

struct GroupByOptions {
  Sampling sampling = Sampling::kGpu;
  std::size_t table_size = 0;   // Sampling::kNone: the initial table size in slots (>= 1)
  double table_factor = kTableFactor;
  // The fill at which fillTable asks for a relaunch (section 3: 75%). Fig. 3 measures fixed
  // tables of 1x and 1.3x the groups, which need 1.0 (relaunch only when the table is full).
  double relaunch_load = kRelaunchLoad;
  // The samplers draw 1% of the rows (section 3) and, with `sample_floor`, at least our floors
  // (kMinCpuPairs pairs, kMinGpuTriples triples; README "Sample budgets"). false: exactly the
  // report's 1%.
  bool sample_floor = true;
  bool count_probes = false;    // the instrumented fillTable (Fig. 3b): counts probe steps
  std::uint64_t seed = 0x5eed;  // the samplers' seed
};

/// What one aggregate() call did.
struct GroupByStats {
  double predicted_cardinality = 0;  // 0 with Sampling::kNone
  SampleCounts sample;               // the sampler's counts
  std::size_t initial_table_size = 0;
  std::size_t table_size = 0;        // after the relaunches
  int relaunches = 0;
  std::uint64_t probe_steps = 0;     // slots probed past the home slot (count_probes only)
  std::size_t groups = 0;
};

/// One output column: exact for integer sum / min / max and every count, real for mean and for
/// floating values.
struct OutputColumn {
  Aggregation op = Aggregation::kSum;
  DeviceBuffer<std::int64_t> exact;
  DeviceBuffer<double> real;
};

/// The groups on the device, in table order (unsorted): keys column-major (key_columns x groups).
struct DeviceGroups {
  int key_columns = 0;
  std::size_t groups = 0;
  DeviceBuffer<std::uint32_t> keys;
  std::vector<OutputColumn> columns;

  /// Copies to the host in the references' form, sorted by key unless `sorted` is false (then
  /// in table order, as the report prints its GPU result); synchronises `stream`.
  reference::GroupByResult to_reference(cudaStream_t stream, bool sorted = true) const;
};

/// Throws std::invalid_argument with the reason when `input` and `ops` cannot be grouped
/// (no key or value columns, too many key columns, ops count != value columns, null data, more
/// rows than 32-bit row indices hold, host_keys missing for CPU sampling, bad table options).
template <class V>
void validate(const GroupByInput<V>& input, const std::vector<Aggregation>& ops, const GroupByOptions& options);

/// The relaunch flag of section 3: one int in unified (managed) memory, written by fillTable,
/// read by the host after the launch.
class RelaunchFlag {
 public:
  RelaunchFlag();
  ~RelaunchFlag();
  RelaunchFlag(const RelaunchFlag&) = delete;
  RelaunchFlag& operator=(const RelaunchFlag&) = delete;
  int* get() const { return flag_; }

 private:
  int* flag_ = nullptr;
};

/// The hash group-by. Holds the relaunch flag; the table is allocated per call, stream-ordered.
class HashGroupBy {
 public:
  HashGroupBy() = default;

  /// Groups `input`; the result's buffers are allocated on `stream`. Synchronises `stream` after
  /// prediction (the table size), after each fillTable (the relaunch flag) and after finding the
  /// used slots (the number of groups), as the report's host code does.
  ///
  /// With `phases`, marks the three phases on it, back to back: "predict" (the sampling, host
  /// or device, and the table size), "fill" (every fillTable launch, relaunches and their
  /// tables included; items: the input rows) and "extract" (items: none, as for "predict": the
  /// trials drawn and the groups found are known only once the phase has run; see stats()).
  /// Without it no event enters the stream.
  template <class V>
  DeviceGroups aggregate(const GroupByInput<V>& input, const std::vector<Aggregation>& ops,
                         const GroupByOptions& options, cudaStream_t stream, PhaseTimer* phases = nullptr);

  const GroupByStats& stats() const { return stats_; }

 private:
  RelaunchFlag relaunch_;
  GroupByStats stats_;
};

/// Predicts the cardinality with the GPU triple sampler (predictTableLength_GPU): `trials`
/// triples of distinct rows, cuRAND Philox seeded with `seed`. Synchronises `stream`.
SampleCounts sample_triples_gpu(const std::uint32_t* keys, int key_columns, std::size_t rows,
                                std::uint64_t trials, std::uint64_t seed, cudaStream_t stream);

/// The report's comparator: Thrust sort-based group-by (stable radix sort of a row permutation
/// by each key column, last column first, then reduce_by_key per value column). Same input and
/// output as HashGroupBy; groups come out sorted by key tuple.
template <class V>
DeviceGroups sort_groupby(const GroupByInput<V>& input, const std::vector<Aggregation>& ops, cudaStream_t stream);

}  // namespace hashlab::rapids
