// Every Pk-Pk join of the suite behind one interface: R and S, a uint32 key column (unique within
// its table) and a uint32 value column each; the output rows are (key, R's value, S's value).
//
//   bsp             Dash's BSP-sort join (steps 1-9), rows sorted by key
//   sort_join       the full-device radix-sort join (the pk-pk module's comparator)
//   sort_join_hmap  the report's own layout on the same sort: bare keys, values from key-indexed
//                   maps (4 bytes x key domain per table)
//   hash_join       the linear-probing hash join with the gather (baselines/, Crystal's stand-in)
//   hashgraph       HashGraph V2 on R at load 1, probe-new with S (Green et al. 3.4), pairs gathered
//   cpu_join        the multi-threaded CPU join (common/)
//
// A name may leave out "_join": "sort", "hash", "cpu" find sort_join, hash_join, cpu_join.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hashlab/catalogue/column.hpp"
#include "hashlab/harness/timing.hpp"
#include "hashlab/pkpk_join/pkpk_join.hpp"

namespace hashlab::catalogue {

struct JoinInput {
  Column r_keys, r_values;
  Column s_keys, s_values;
};

class Join {
 public:
  virtual ~Join() = default;
  virtual void prepare(cudaStream_t) {}
  /// The join (time it on the entry's clock). Synchronises where the algorithm must (to size its
  /// output).
  virtual void run(cudaStream_t stream) = 0;
  /// The last run's rows on the host, sorted by key.
  virtual std::vector<pkpk::JoinedRow> result(cudaStream_t stream) = 0;
  /// The last run's rows where they are, on the device, in the algorithm's order (sorted by key
  /// for bsp and sort_join); nullptr for a CPU join. Valid until the next run.
  virtual const pkpk::JoinedRows* device_rows() const { return nullptr; }
  /// The device addresses the join reads R's keys and values and S's keys and values at: a device
  /// column's own address where it is used in place, else the join's upload of a host column.
  /// Empty for a CPU join.
  virtual std::vector<const void*> device_inputs() const { return {}; }
  virtual Statistics statistics(cudaStream_t stream, bool arrays = true) = 0;
  virtual std::vector<std::string> warnings() const { return {}; }
};

struct JoinEntry {
  std::string name;
  std::string description;
  bool needs_gpu = true;
  harness::Clock clock = harness::Clock::kDevice;
  bool sorted_output = false;  // the device rows come out sorted by key
  /// Runs across GPU servers too (JoinAcrossServers, joins_across_servers(): across_servers.hpp).
  bool across_servers = false;
  std::vector<OptionSpec> options;
  std::vector<StatisticSpec> statistics;
  /// Throws std::invalid_argument (naming the column and rows) for empty or ragged tables, a key
  /// repeated within a table, rows beyond the algorithm's limits, its empty-slot key, an unknown
  /// option. Reads host columns only.
  std::function<void(const JoinInput& input, const Options& options)> check;
  /// check(), then the join, ready to run (device columns in place, host ones uploaded).
  std::function<std::unique_ptr<Join>(const JoinInput& input, const Options& options, cudaStream_t stream)> make;
};

const std::vector<JoinEntry>& join_entries();
/// The entry called `name` (or `name` + "_join"); std::invalid_argument naming the choices.
const JoinEntry& join_entry(const std::string& name);

}  // namespace hashlab::catalogue
