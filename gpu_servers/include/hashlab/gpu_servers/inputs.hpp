// What the experiments of the GPU servers share: the group of servers of a point (or why the point
// is skipped), the global tables with their oracle, the shares each server joins, one timed and
// verified join of a variant, and the module's two options.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hashlab/harness/experiment.hpp"
#include "hashlab/pkpk_join/servers_join.hpp"
#include "hashlab/servers/group.hpp"

namespace hashlab::gpu_servers {

using harness::make_experiment;
using harness::Point;
using harness::PointContext;
using harness::RunOptions;
using harness::sweep;
using harness::Variants;
using pkpk::JoinedRow;
using pkpk::LocalJoin;
using pkpk::Partitioning;
using pkpk::ServerJoinStats;
using pkpk::ServersJoinOptions;
using Keys = std::vector<std::uint32_t>;

/// Half of S's rows find a partner in R, as in pkpk_join's sweeps.
constexpr double kMatchRate = 0.5;

/// The module options: --servers-backend (nccl | local) for the points whose servers each have a
/// GPU, and --servers-share-gpu (no | yes): run a point of more servers than the host has GPUs
/// with the local backend, the servers sharing GPUs (labelled shared_gpu; a test of the code, not
/// a scaling measurement). By default such points are skipped with the reason.
harness::ModuleOption servers_backend_option();
harness::ModuleOption servers_share_gpu_option();

/// The variants of the scaling experiments: the report's join across servers (sampled splitters,
/// local BSP), the same with the local full sort join, and the field's (hash partitioning, local
/// hash join).
const Variants& servers_variants();
/// ServersJoinOptions of a variant of servers_variants() ("sampled_bsp", "sampled_sort", "hashed_hash").
ServersJoinOptions servers_options(const std::string& variant);

/// The group of `servers` servers for this point: NCCL (or --servers-backend) with a GPU per server;
/// with fewer GPUs, the local backend sharing them when --servers-share-gpu yes, else SkipPoint
/// saying how many GPUs the point needs. Kept in the point's cache between points of the same p.
servers::ServerGroup& group_for(PointContext& ctx, int servers);

/// Sampling seeds per point of the load experiments (the load depends on the sample drawn).
constexpr int kSeedsQuick = 5;
constexpr int kSeedsFull = 10;

/// How the keys of the global tables are drawn (the load experiment).
enum class KeyLayout {
  kUniform,     // the generator's pk-pk tables: random unique keys, in random order
  kSequential,  // R = 0 .. N-1 and S = N/2 .. 3N/2 - 1, in order: server d holds one key range
  kClustered,   // the sequential keys spread over four narrow ranges (k mod 4) * 2^30 + k / 4, shuffled
};
KeyLayout parse_key_layout(const std::string& name);

/// The two tables of a point on the host, the oracle's rows (sorted by key) and its note.
struct GlobalTables {
  Keys r_keys, r_values, s_keys, s_values;
  std::vector<JoinedRow> expected;
  std::string oracle;
  std::uint64_t rows() const { return r_keys.size() + s_keys.size(); }
};
/// N rows per table, match rate 0.5, cached per (layout, N, seed).
GlobalTables& global_tables(PointContext& ctx, KeyLayout layout, std::uint64_t rows_per_table);

/// One join of every server on its share of `tables` (rows [d N / p, (d + 1) N / p) of each
/// table): the servers' own measurements, combined.
struct ServersRun {
  std::vector<ServerJoinStats> stats;         // per server
  std::vector<std::vector<JoinedRow>> rows;   // per server, when collected
};

/// The shares of `tables` on the servers of `group` for the lifetime of this object: uploaded at
/// construction, released (each on its own server) at destruction.
class ServerShares {
 public:
  ServerShares(servers::ServerGroup& group, const GlobalTables& tables);
  ~ServerShares();
  ServerShares(const ServerShares&) = delete;
  ServerShares& operator=(const ServerShares&) = delete;

  /// Runs the join on every server; `collect` copies each server's rows to the host.
  ServersRun join(const ServersJoinOptions& options, bool collect, std::vector<std::vector<PhaseTime>>* phases = nullptr,
                  std::vector<std::vector<PhaseTime>>* local_phases = nullptr);

 private:
  struct Share;
  servers::ServerGroup& group_;
  std::vector<std::unique_ptr<Share>> shares_;
};

/// Checks the servers' rows (server after server; sorted first with hash partitioning or the local
/// hash join) against the oracle.
void verify_servers_rows(PointContext& ctx, const GlobalTables& tables, const ServersRun& run,
                         const ServersJoinOptions& options);

/// The shared_gpu / gpus_used rows and note of a point whose group shares GPUs.
void report_group(PointContext& ctx, const servers::ServerGroup& group);

/// The variant timed (the whole join, every server, host clock; "join_time", "join_rate" and
/// "per_gpu_rate" = join_rate / p), its loads (max_load, mean_load, load_ratio) and verification.
void run_servers_variant(PointContext& ctx, int servers, std::uint64_t rows_per_table);

}  // namespace hashlab::gpu_servers
