// The report's title, taken at its word: the Pk-Pk join with GPUs as the servers of the MPC model
// (Hu, Yi and Tao), on servers/'s communicator. Each server holds a share of both tables.
//
//   BSP join across servers (the report's sample sort with servers as its blocks):
//     1. sample:    each server draws log2(p) keys per tile of its rows (the report's rule: p
//                   servers, tiles of 4096 elements), or a given number of samples.
//     2. splitters: the samples are all-gathered; every server sorts them and takes the p - 1
//                   splitters by the report's formula, splitter i = sample (i + 1) S / p.
//     3. partition: each row goes to its splitter's server (the report's step 6: the number of
//                   splitters <= its key); rows are grouped by server.
//     4. all_to_all: the counts are all-gathered, then one all-to-all per table sends every row
//                   to its server (MPC round 2).
//     5. local join: each server joins what it received with the report's kernels (bsp_join), or
//                   with the full sort join or the hash join of this module.
//   The comparator the field uses (rapidsai/distributed-join; Gao & Sakharnykh): a hash of the key
//   picks the server (no sampling), then the same all-to-all and a local hash join.
//
// The output stays on the servers: each server returns its own rows on its own device. With
// sampled splitters every key of server r is below every key of server r + 1, so the servers'
// rows, server after server, are sorted by key. gather_rows() brings them to the host when asked.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hashlab/common/phase_timer.hpp"
#include "hashlab/pkpk_join/pkpk_join.hpp"
#include "hashlab/servers/communicator.hpp"

namespace hashlab::pkpk {

/// How a row finds its server.
enum class Partitioning {
  kSampledSplitters,  // the report's sample sort: p - 1 splitters from the gathered samples
  kHash,              // the field's: server = hash(key) mod p (murmur3's 32-bit finaliser)
};
/// The join each server runs on the rows it received.
enum class LocalJoin {
  kBsp,   // bsp_join: the report's kernels
  kSort,  // sort_join: one device-wide radix sort, then the report's step 9
  kHash,  // hash_join: common's linear-probing hash join (the Crystal stand-in)
};
const char* to_string(Partitioning partitioning);
const char* to_string(LocalJoin local_join);

struct ServersJoinOptions {
  Partitioning partitioning = Partitioning::kSampledSplitters;
  LocalJoin local_join = LocalJoin::kBsp;
  /// Samples each server draws (sampled splitters). 0: the report's rule, samples_per_tile(p)
  /// keys from each tile of tile_items(kStandard) = 4096 of the server's elements (R's rows, then
  /// S's). Otherwise this many, one from each of as many equal runs of the server's elements.
  std::uint64_t samples_per_server = 0;
  /// The sampling's seed; server r draws from seed + r.
  std::uint64_t seed = 1;
  /// Options of the local BSP join (its own buckets and tiles).
  BspOptions local;
};

/// How many samples a server draws from its `elements` (R's rows, then S's) and how they are
/// spread: `per_stratum` keys from each run of `stratum` consecutive elements.
struct SamplingPlan {
  unsigned stratum = 0;
  unsigned per_stratum = 0;
  std::uint64_t samples = 0;  // ceil(elements / stratum) * per_stratum
};
/// The report's rule (samples_per_server = 0): stratum 4096, per_stratum samples_per_tile(p);
/// else `samples_per_server` runs of ceil(elements / samples) elements, one sample each. No
/// samples from a server without rows. Throws std::invalid_argument for p < 1.
SamplingPlan sampling_plan(std::uint64_t elements, int servers, std::uint64_t samples_per_server);

/// What one server records of one run (filled on every server; `loads` and the splitters are
/// the same on all of them).
struct ServerJoinStats {
  std::uint64_t rows_in = 0;           // |R_r| + |S_r|, this server's rows before the exchange
  std::uint64_t rows_received = 0;     // this server's load: rows of both tables it received
  std::uint64_t bytes_to_others = 0;   // what it sent to the other servers (8 bytes a row)
  std::uint64_t samples = 0;           // samples it drew (sampled splitters)
  std::uint64_t samples_total = 0;     // samples of all servers, from which the splitters came
  std::vector<std::uint32_t> splitters;  // the p - 1 splitters (sampled splitters)
  std::vector<std::uint64_t> loads;    // every server's rows received, server after server
};

/// The join on server comm.rank() of its shares R_r and S_r (device tables on comm.device());
/// every server of the group calls it with its own shares (rules of servers/communicator.hpp).
/// Returns this server's rows, sorted by key within the server (in probe order with the local hash
/// join). Keys must be unique within each
/// table across all servers: a key repeated in R or S (on one server or on two) is found by the
/// server that receives both rows (bsp_join, sort_join: std::invalid_argument naming the key; the
/// hash join catches it only when its rows outnumber min(|R_d|, |S_d|), as on one GPU) and every
/// server throws it, prefixed "server d of p (local join): ". Phases marked on `phases` (this
/// server's stream): sample, splitters (sampled splitters only), partition, all_to_all,
/// local_join; the local join marks its own steps on `local_phases`.
JoinedRows servers_join(servers::Communicator& comm, const TableView& r, const TableView& s,
                        const ServersJoinOptions& options = {}, ServerJoinStats* stats = nullptr,
                        PhaseTimer* phases = nullptr, PhaseTimer* local_phases = nullptr);

/// Every server's rows on every server's host, server after server (an all-gather: for checks
/// and small outputs; the join itself never moves its output).
std::vector<JoinedRow> gather_rows(servers::Communicator& comm, const JoinedRows& rows);

/// The hash partitioning's server of a key (host copy of the device function).
unsigned hash_server(std::uint32_t key, unsigned servers);

}  // namespace hashlab::pkpk
