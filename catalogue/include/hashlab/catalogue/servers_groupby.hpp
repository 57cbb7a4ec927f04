// The group-by across GPU servers, an algorithm on the catalogue's entries (what the own-data
// commands' --gpus and the gpu_servers experiments run): every row goes to the server its key's
// hash picks (servers' shuffle_by_key_hash), so that all rows of a group meet on one server, and
// each server runs any group-by of the catalogue on what it received. With few groups a local
// pre-aggregation comes first: each server groups its own rows (sums, counts, minima and maxima:
// what merges), the partial groups are shuffled instead of the rows, and each server merges the
// partials of its groups. The partials stay on the devices throughout: the local groups go into
// the shuffle from the entry's device result (GroupBy::device_result), and each server merges what
// it received on its device (detail::merge_partials_on_device: a stable radix sort by the key
// tuple, then one fold per partial column; detail::merge_partials is its host reference); the
// groups come to the host only when collected. The RAPIDS report's cardinality estimator (its GPU
// triple sampler) decides, on every server's own rows; the decision and the estimates are in the
// statistics.
//
//   ServersGroupByOptions options;  options.algorithm = "sp_ega";
//   ServerGroupByStats stats;
//   reference::GroupByResult mine = servers_groupby(comm, my_share, options, &stats);
//   // mine: this server's groups, sorted by key; the servers' groups are disjoint, and together
//   // they are the single-GPU answer
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hashlab/catalogue/groupby.hpp"
#include "hashlab/reference/groupby.hpp"
#include "hashlab/servers/communicator.hpp"

namespace hashlab::catalogue {

enum class PreAggregation {
  kAuto,    // the RAPIDS estimator decides (kPreAggregateBelow)
  kAlways,  // group locally first
  kNever,   // shuffle the rows themselves
};
/// "auto", "always", "never"; std::invalid_argument otherwise.
PreAggregation parse_pre_aggregation(const std::string& name);
const char* to_string(PreAggregation mode);

/// kAuto pre-aggregates when the servers' local groups, estimated from their samples pooled
/// (detail::pooled_groups) and added up, are at most this fraction of their rows: the partial
/// groups then cost at most a quarter of the rows' exchange, and the local pass pays for itself.
constexpr double kPreAggregateBelow = 0.25;

struct ServersGroupByOptions {
  std::string algorithm = "sp_ega";  // a group-by of the catalogue that runs on the GPU
  Options entry_options;  // its options
  PreAggregation pre_aggregation = PreAggregation::kAuto;
  std::uint64_t seed = 1;            // the estimator's sampling seed (server r: seed + r)
  /// false: the groups stay where the local group-by (or the pre-aggregation's merge) left them,
  /// on the device (the timed runs: a single GPU's group-by is timed without bringing its groups
  /// to the host either); servers_groupby then returns no groups. The merge still runs, on the
  /// device, and is waited for.
  bool collect = true;
};

/// The catalogue's group-bys that run across servers, in the catalogue's order: the entries whose
/// `across_servers` is set (servers_groupby refuses the others): rapids, sp_ega, lphga, sort,
/// hash, each tested against its own single-GPU answer. The CPU entries do not run on servers;
/// mp_ega, whose premise is data in host memory beyond one GPU's, is not among them.
const std::vector<std::string>& groupby_algorithms_across_servers();

/// What one server records of one run.
struct ServerGroupByStats {
  std::uint64_t rows_in = 0;              // this server's rows
  double estimated_groups = 0;            // the RAPIDS triple sampler's estimate on them (kAuto only)
  double estimated_groups_total = 0;      // the servers' local groups, added up, from every server's samples pooled
  bool pre_aggregated = false;            // the decision (the same on every server)
  std::uint64_t rows_sent = 0;            // rows (or partial groups) this server shuffled
  std::uint64_t rows_received = 0;        // its load: rows (or partial groups) it received
  std::uint64_t groups = 0;               // its groups in the answer
  std::vector<std::uint64_t> loads;       // every server's rows received
  std::vector<std::string> warnings;      // the local group-by's (a degraded run says so)
};

/// The group-by on server comm.rank() of its share of the rows (key and value columns on the
/// host or on this server's device; the keys uint32). Every server calls it with the same
/// columns, aggregations and options. Returns this server's groups, sorted by key. Bad input on
/// any server (a key or value an entry does not take, an unknown algorithm or option) reaches
/// every server as std::invalid_argument.
reference::GroupByResult servers_groupby(servers::Communicator& comm, const GroupByInput& input,
                                         const ServersGroupByOptions& options = {},
                                         ServerGroupByStats* stats = nullptr);

namespace detail {

/// The partial groups of a pre-aggregation as they travel: the key columns and one column per
/// (value column, base aggregation), each exact (int64) or real (double).
struct Partials {
  std::vector<std::vector<std::uint32_t>> keys;
  std::vector<std::vector<std::int64_t>> exact;  // per partial column, empty when it is real
  std::vector<std::vector<double>> real;         // per partial column, empty when it is exact
  std::vector<bool> is_exact;
  std::size_t rows() const { return keys.empty() ? 0 : keys.front().size(); }
};

/// The aggregations a pre-aggregation computes for `requested`: sum (for sum and mean), min, max,
/// count (for count and mean), each once, in this order.
std::vector<reference::Aggregation> base_aggregations(const std::vector<reference::Aggregation>& requested);

/// Which partial columns hold exact (int64) values: a count always, the others when their value
/// column holds integers (`integer_values[v]`); value-major like Partials' columns. A count over
/// floating values is an integer, as the references give it.
std::vector<bool> exact_partials(const std::vector<reference::Aggregation>& base, const std::vector<bool>& integer_values);

/// One server's share as the pre-aggregation's decision sees it: its rows, and the RAPIDS triple
/// sampler's draws on them (1% of the rows, at least 2^16 triples; none below 3 rows).
struct SampledShare {
  std::uint64_t rows = 0;
  std::uint64_t trials = 0;
  std::uint64_t equal_pairs = 0;
};

/// The servers' local groups, added up: the triple estimator (3 T / E) of every server's triples
/// and equal pairs pooled, at most each server's rows, at least 1 group a server with rows; with
/// no equal pair anywhere, as many groups as rows (the estimator's own answer). One server's 1%
/// draws few pairs where its groups are many (10^7 groups in 2^28 rows: 0.8 equal pairs
/// expected, none in 45% of the draws, and then an estimate of every row); p servers' samples
/// together draw p times as many. Pooling reads the servers' shares as alike (rows dealt to the
/// servers without regard to their keys), as the decision's rows are.
double pooled_groups(const std::vector<SampledShare>& servers);

/// Merges partial groups (rows with equal key tuples) into the answer for `requested`
/// aggregations of `value_columns` value columns: sums and counts add, minima and maxima fold, a
/// mean is the merged sum over the merged count. `base` names the partial columns (value-major:
/// value column v's base aggregation b is column v * base.size() + b). Sorted by key. The host
/// reference of merge_partials_on_device, which servers_groupby runs.
reference::GroupByResult merge_partials(const Partials& partials, std::size_t value_columns,
                                        const std::vector<reference::Aggregation>& base,
                                        const std::vector<reference::Aggregation>& requested);

/// Partials as the shuffle leaves them in this server's device memory: `rows` rows of the key
/// columns and of one 8-byte column per (value column, base aggregation), value-major as in
/// Partials, each int64 where is_exact says so, else double.
struct DevicePartials {
  std::size_t rows = 0;
  std::vector<const std::uint32_t*> keys;
  std::vector<const void*> columns;
  std::vector<bool> is_exact;
};

/// merge_partials on the device, on `stream`: a stable radix sort of the row numbers by each key
/// column from the last to the first (the order of merge_partials' std::stable_sort), a new group
/// wherever the key tuple changes, each partial column folded over its group's rows in that order
/// in its own type (so a floating sum adds in the same order as on the host and gives the same
/// bits), then the requested columns (a mean: the merged sum over the merged count, as double).
/// The groups are sorted by key tuple and downloaded() gives merge_partials' answer. Reads the
/// number of groups back (one synchronisation); the rest is asynchronous. std::length_error beyond
/// 2^32 - 1 rows; std::logic_error when the columns do not match `base` and `value_columns`.
DeviceGroupByResult merge_partials_on_device(const DevicePartials& partials, std::size_t value_columns,
                                             const std::vector<reference::Aggregation>& base,
                                             const std::vector<reference::Aggregation>& requested,
                                             cudaStream_t stream);

/// Makes `aggregate` (n values) hold its values as int64 (`exact`) or as double, converting on
/// the device where it holds the other type (a partial travels in exact_partials' type whatever
/// the entry gave; a double becomes int64 by truncation, as the host conversion did).
void retype(DeviceGroupByResult::Aggregate& aggregate, bool exact, std::size_t n, cudaStream_t stream);

/// A device result's groups in host memory, in the references' form (synchronises `stream`).
reference::GroupByResult downloaded(const DeviceGroupByResult& groups, cudaStream_t stream);

}  // namespace detail
}  // namespace hashlab::catalogue
