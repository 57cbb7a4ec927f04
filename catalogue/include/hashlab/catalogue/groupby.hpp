// Every group-by of the suite behind one interface (catalogue.hpp has an example):
//
//   rapids   RAPIDS hash group-by (Chen et al. section 3): up to 8 key columns, every aggregation in
//            one pass over int32 or float64 values
//   sp_ega   SP-EGA (Wang et al. 4.1), five phases on three buffers of L = rows
//   lphga    LPHGA, EGA's linear-probing comparator, on the same buffers
//   mp_ega   MP-EGA (Wang et al. 4.2): the data in host memory, the GPU within a memory budget
//   sort     CUB radix sort + reduce-by-key (baselines/)
//   hash     cuDF-style linear-probing hash group-by (baselines/)
//   cpu      the multi-threaded radix-partitioned CPU group-by (common/)
//   cpu_stl  the single-threaded CPU group-by on the STL's hash map: RAPIDS's CPU baseline and
//            the references' own algorithm; several key columns
//
// Aggregations: sum, min, max, count and mean of every value column. An algorithm that computes
// one aggregation per pass (all but rapids and cpu_stl) runs one pass per value column and base
// aggregation (a mean is its sum and its count; count is one pass for all columns), each pass
// timed, and the groups of the passes are put side by side.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hashlab/catalogue/column.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/harness/timing.hpp"
#include "hashlab/reference/groupby.hpp"

namespace hashlab::catalogue {

using reference::Aggregation;

struct GroupByInput {
  std::vector<Column> keys;    // uint32 key columns, of one length (most entries take one)
  std::vector<Column> values;  // value columns of the same length
  std::vector<Aggregation> aggregations{Aggregation::kSum};  // each of every value column
  std::size_t rows() const { return keys.empty() ? 0 : keys.front().rows; }
};

/// The names of the output columns: the key columns', then "<aggregation>_<value column>" for
/// every value column and aggregation, in that order (the order of GroupByResult's aggregates).
std::vector<std::string> output_names(const GroupByInput& input);

/// A group-by's groups in device memory, as result() gives them on the host: sorted by key, one
/// uint32 array per key column, then one array per output column (output_names' order), int64
/// for an exact aggregate (integer sum, min, max; every count), float64 for a real one and every
/// mean. The arrays are the answer's own (they outlive the group-by and its next run).
struct DeviceGroupByResult {
  struct Aggregate {
    Aggregation op = Aggregation::kSum;
    bool exact = true;                 // which of the two holds the values
    DeviceBuffer<std::int64_t> exact_values;
    DeviceBuffer<double> real_values;
  };
  std::size_t groups = 0;
  std::vector<DeviceBuffer<std::uint32_t>> keys;
  std::vector<Aggregate> aggregates;
};

/// A group-by made for one input. Time run() on the entry's clock; prepare() runs before every
/// run, untimed.
class GroupBy {
 public:
  virtual ~GroupBy() = default;
  /// Untimed, before every run (EGA: the input pairs into the red array: its premise).
  virtual void prepare(cudaStream_t) {}
  /// The group-by, every pass of it. Host algorithms ignore the stream.
  virtual void run(cudaStream_t stream) = 0;
  /// The last run's groups on the host in the references' form, sorted by key: one aggregate
  /// column per output column (output_names).
  virtual reference::GroupByResult result(cudaStream_t stream) = 0;
  /// The same groups left on the device (sorted and, for one aggregation per pass, put side by
  /// side there): what a caller with device columns reads without a round trip through host
  /// memory. std::nullopt for a group-by whose groups are on the host (mp_ega, cpu, cpu_stl).
  virtual std::optional<DeviceGroupByResult> device_result(cudaStream_t) { return std::nullopt; }
  /// The device addresses the algorithm reads its columns at, key columns then value columns: a
  /// device column's own address where it is used in place, else the algorithm's copy (an upload,
  /// or RAPIDS's column-major matrices). Empty for a group-by that reads host columns.
  virtual std::vector<const void*> device_inputs() const { return {}; }
  /// What the algorithm counted in its last run (the entry's statistics); arrays only when asked.
  virtual Statistics statistics(cudaStream_t stream, bool arrays = true) = 0;
  /// Whether the last run took a path that a user would avoid (a table near full), each warning
  /// saying which option or entry avoids it. Empty: none.
  virtual std::vector<std::string> warnings() const { return {}; }
  /// Device bytes the algorithm holds besides its input (buffers, tables); 0 when allocated per run.
  virtual std::size_t bytes() const { return 0; }
};

struct GroupByEntry {
  std::string name;
  std::string description;
  bool needs_gpu = true;
  harness::Clock clock = harness::Clock::kDevice;  // how to time run()
  int max_key_columns = 1;
  /// Runs across GPU servers too (servers_groupby, GroupByAcrossServers: across_servers.hpp): the
  /// rows hash-partitioned by key, then this entry on each server's share.
  bool across_servers = false;
  std::vector<OptionSpec> options;
  std::vector<StatisticSpec> statistics;
  /// Throws std::invalid_argument, naming the column (its source) and the row, unless this entry
  /// takes `input` with `options`: key columns beyond max_key_columns, values its type cannot
  /// hold, its empty-slot key, unequal lengths, an unknown option. Reads host columns only.
  std::function<void(const GroupByInput& input, const Options& options)> check;
  /// check(), then the group-by, ready to run: device columns used in place, host ones uploaded,
  /// buffers allocated (OutOfDeviceMemory when they do not fit). `input`'s memory must outlive it.
  std::function<std::unique_ptr<GroupBy>(const GroupByInput& input, const Options& options, cudaStream_t stream)> make;
};

/// Every group-by, in the order above.
const std::vector<GroupByEntry>& groupby_entries();
/// The entry called `name`; std::invalid_argument naming the choices when there is none.
const GroupByEntry& groupby_entry(const std::string& name);

}  // namespace hashlab::catalogue
