// Group-by of the user's columns with any of the suite's group-bys (`hashlab groupby`).
//
//   GroupByInput input{keys, values};                 // host columns (columns.hpp)
//   GroupByOptions options;  options.aggs = {kSum, kMean};
//   auto g = make_groupby(GroupByAlgo::kRapids, input, options, stream);   // validates, uploads
//   g->run(stream);                                    // the algorithm (time this)
//   reference::GroupByResult got = g->result(stream);  // sorted by key
//
// Output columns: one per (value column, aggregation), in that order, named "<agg>_<value>";
// `output_names` gives them. An algorithm that computes one aggregation per pass (EGA, the
// baselines, the CPU group-by) runs one pass per (value column, base aggregation), a mean being
// its sum and count; RAPIDS computes every column in one pass (its value matrix), as the report does.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hashlab/owndata/columns.hpp"
#include "hashlab/rapids_groupby/groupby.hpp"
#include "hashlab/reference/groupby.hpp"

namespace hashlab::owndata {

using reference::Aggregation;

enum class GroupByAlgo { kRapids, kSpEga, kLphga, kMpEga, kSort, kHash, kCpu };

/// "rapids", "sp_ega", "lphga", "mp_ega", "sort", "hash", "cpu".
const char* to_string(GroupByAlgo algo);
/// Throws InputError naming the choices.
GroupByAlgo parse_groupby_algo(const std::string& name);
const std::vector<GroupByAlgo>& all_groupby_algos();
/// What the algorithm is, in one line (for --help and the command's output).
const char* describe(GroupByAlgo algo);
/// Whether it runs on the GPU (the CPU group-by does not; MP-EGA uses both).
bool needs_gpu(GroupByAlgo algo);

struct GroupByInput {
  std::vector<KeyColumn> keys;
  std::vector<ValueColumn> values;
  std::size_t rows() const { return keys.empty() ? 0 : keys.front().data.size(); }
};

struct GroupByOptions {
  std::vector<Aggregation> aggs{Aggregation::kSum};
  // rapids: the report's sampling and table factor.
  rapids::Sampling sampling = rapids::Sampling::kGpu;
  double table_factor = rapids::kTableFactor;
  // hash (common's cuDF-style table): slots = rows / hash_load.
  double hash_load = 0.5;
  // mp_ega: device memory it may use (0: 90% of the free memory), streams s.
  std::size_t gpu_memory_budget = 0;
  int streams = 2;
  // cpu: threads (0: all).
  unsigned threads = 0;
};

/// The names of the output columns: the key columns', then "<agg>_<value>".
std::vector<std::string> output_names(const GroupByInput& input, const GroupByOptions& options);

/// One statistic of a run, for the command's output.
struct Stat {
  std::string name;
  double value;
};

class GroupByRun {
 public:
  virtual ~GroupByRun() = default;
  /// Untimed, before every timed run (EGA: the input pairs into the red array).
  virtual void prepare(cudaStream_t) {}
  /// The group-by, every pass of it (time this). Host algorithms ignore the stream.
  virtual void run(cudaStream_t stream) = 0;
  /// The last run's groups, sorted by key, one aggregate column per output column.
  virtual reference::GroupByResult result(cudaStream_t stream) = 0;
  /// Whether run() works on the host (time it with a host clock).
  virtual bool on_host() const { return false; }
  /// The algorithm's own statistics of the last run (relaunches, phases, partitions, passes).
  virtual std::vector<Stat> stats() const = 0;
};

/// Throws InputError (naming the file and the reason) unless `algo` takes this input: key
/// columns beyond what it takes, values outside its value type, its empty-slot key, bad options.
/// Host work only (runs without a GPU).
void check_groupby(GroupByAlgo algo, const GroupByInput& input, const GroupByOptions& options);

/// check_groupby, then copies the columns to the device (GPU algorithms) and allocates the
/// algorithm's buffers (rows beyond its limits: InputError). `input` must outlive the run.
std::unique_ptr<GroupByRun> make_groupby(GroupByAlgo algo, const GroupByInput& input, const GroupByOptions& options,
                                         cudaStream_t stream);

/// The CPU reference (common/'s reference group-by) in the same column order.
reference::GroupByResult reference_groupby(const GroupByInput& input, const GroupByOptions& options);

/// The checks' answer: reference_groupby up to cpu::kOracleReferenceRows rows; above, the same
/// answer computed on all cores by reference::sorted_groupby (independent of every hash-based
/// group-by), with `note` (optional) then set to kSortedGroupByOracle (emptied otherwise), as
/// pkpk::oracle_join and reference::oracle_join_count do.
reference::GroupByResult oracle_groupby(const GroupByInput& input, const GroupByOptions& options,
                                        std::string* note = nullptr);
inline constexpr const char* kSortedGroupByOracle =
    "oracle: the sort-based multi-threaded group-by (reference::sorted_groupby, equal to the reference)";

/// The result as output columns (keys uint32, exact aggregates int64, real ones float64).
std::vector<OutputColumn> to_output(const reference::GroupByResult& result, const std::vector<std::string>& names);

/// Throws InputError when the columns do not form a table: no key or value column, unequal
/// lengths, no rows, no aggregation.
void validate_table(const GroupByInput& input, const GroupByOptions& options);

}  // namespace hashlab::owndata
