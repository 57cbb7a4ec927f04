// The catalogue's joins and group-bys across GPU servers, on whole tables held in host memory:
// what `hashlab join --gpus N` and `hashlab groupby --gpus N` run (owndata/), and what a program
// that holds its tables on the host calls. The entries that run so say it (their `across_servers`).
//
//   servers::ServerGroup group({4, servers::Backend::kNccl});
//   JoinAcrossServers join(group, "bsp", input, {});   // the entry's checks on the whole tables,
//                                                       // then each server's share on its GPU
//   join.run();                                         // time this (on the host clock)
//   std::vector<pkpk::JoinedRow> rows = join.result();  // the last run's rows, sorted by key
//
// Each table's rows are split into p contiguous shares, server r holding rows [r n / p,
// (r + 1) n / p); the shares are uploaded to the servers' devices when the object is made, so
// that run() times the algorithm across servers only (the single-GPU entries upload when made,
// too). The whole input is checked by the catalogue entry's own check first: a repeated primary
// key, a value out of range, an option the entry does not take get the same std::invalid_argument
// as on one GPU, whichever server the rows would have gone to.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "hashlab/catalogue/groupby.hpp"
#include "hashlab/catalogue/join.hpp"
#include "hashlab/catalogue/servers_groupby.hpp"
#include "hashlab/pkpk_join/servers_join.hpp"
#include "hashlab/servers/group.hpp"

namespace hashlab::catalogue {

/// A join of the catalogue across servers: the entry's name and how servers_join runs it.
struct JoinAcrossServersSpec {
  std::string entry;                // bsp, sort_join, hash_join
  pkpk::ServersJoinOptions options;  // partitioning and local join
  std::string how;                  // in words, for help texts
};
/// bsp (sampled splitters, the report's BSP join on each server: the report's join across
/// servers), sort_join (sampled splitters, the full sort join on each server), hash_join (hash
/// partitioning and a local hash join: the field's): the join entries whose `across_servers` is
/// set. The other joins do not run on servers.
const std::vector<JoinAcrossServersSpec>& joins_across_servers();
/// The spec of `entry` (a catalogue name, "_join" may be left out); nullptr when it does not run
/// across servers.
const JoinAcrossServersSpec* join_across_servers(const std::string& entry);

/// A group-by of the catalogue across the servers of `group`.
class GroupByAcrossServers {
 public:
  /// Checks `whole` (host columns) with the entry's check and `options.entry_options`, refuses an
  /// entry that does not run across servers (std::invalid_argument naming those that do), and
  /// puts each server's share on its device, the values in the type the entry takes there.
  GroupByAcrossServers(servers::ServerGroup& group, const GroupByInput& whole,
                       const ServersGroupByOptions& options);
  ~GroupByAcrossServers();
  GroupByAcrossServers(const GroupByAcrossServers&) = delete;
  GroupByAcrossServers& operator=(const GroupByAcrossServers&) = delete;

  /// The group-by on every server, its groups left where each server's group-by put them.
  void run();
  /// One more run that brings every server's groups to the host: the answer, sorted by key (the
  /// servers' groups are disjoint), and each server's statistics.
  reference::GroupByResult result(std::vector<ServerGroupByStats>* stats = nullptr);

 private:
  struct Shares;
  reference::GroupByResult run_once(bool collect, std::vector<ServerGroupByStats>* stats);
  servers::ServerGroup& group_;
  ServersGroupByOptions options_;
  std::vector<Aggregation> aggregations_;
  std::vector<std::string> key_names_, value_names_;
  std::unique_ptr<Shares> shares_;
};

/// A Pk-Pk join of the catalogue across the servers of `group`.
class JoinAcrossServers {
 public:
  /// Checks `whole` (host columns) with the entry's check and `options`, refuses an entry that
  /// does not run across servers and an option that does not apply there (std::invalid_argument),
  /// and puts each server's shares of R and S on its device.
  JoinAcrossServers(servers::ServerGroup& group, const std::string& entry, const JoinInput& whole,
                    const Options& options);
  ~JoinAcrossServers();
  JoinAcrossServers(const JoinAcrossServers&) = delete;
  JoinAcrossServers& operator=(const JoinAcrossServers&) = delete;

  const pkpk::ServersJoinOptions& options() const { return options_; }
  /// The join on every server; each server's rows stay on its device until the next run.
  void run();
  /// The last run's rows of every server on the host, sorted by key.
  std::vector<pkpk::JoinedRow> result();
  /// The last run's statistics of each server.
  const std::vector<pkpk::ServerJoinStats>& stats() const { return stats_; }

 private:
  struct Shares;
  servers::ServerGroup& group_;
  pkpk::ServersJoinOptions options_;
  std::vector<pkpk::ServerJoinStats> stats_;
  std::unique_ptr<Shares> shares_;
};

}  // namespace hashlab::catalogue
