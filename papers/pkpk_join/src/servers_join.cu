// The Pk-Pk join across GPU servers (servers_join.hpp): the report's sample sort with servers as
// its blocks, and the hash-partitioned comparator. The sampling and the splitters are the
// report's kernels (bsp_sort.cu, through detail.cuh); what is new here is the routing of rows to
// their servers and the exchange, and each server then joins with this module's joins.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "detail.cuh"
#include "hashlab/common/bucket_scatter.cuh"
#include "hashlab/common/hash.hpp"
#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/launch.cuh"
#include "hashlab/common/primitives.hpp"
#include "hashlab/pkpk_join/servers_join.hpp"

namespace hashlab::pkpk {
namespace {

/// Servers a group may have: one bucket of the partition's scatter each.
constexpr unsigned kMaxServers = kMaxScatterBuckets;

/// The field's partitioning: murmur3's 32-bit finaliser of the key, modulo p.
struct HashServer {
  unsigned servers;
  HASHLAB_HD unsigned operator()(std::uint32_t key) const { return hash::fmix32(key) % servers; }
};

/// The report's step 6 with servers as buckets: the number of splitters <= key.
struct SplitterServer {
  const std::uint32_t* splitters;
  unsigned num_splitters;
  HASHLAB_DEVICE unsigned operator()(std::uint32_t key) const {
    return detail::bucket_of(key, splitters, num_splitters);
  }
};

// Partition (MPC round 2's send side): a row's server, from its key.
template <class ServerOf>
struct ServerOfRow {
  const std::uint32_t* keys;
  ServerOf server_of;
  HASHLAB_DEVICE unsigned operator()(std::size_t i) const { return server_of(keys[i]); }
};

// A row as the word the exchange sends: key << 32 | value (a bucket scatter's move: the load reads,
// the store packs, so that a step's loads go out before any waits).
struct PackRow {
  struct Row {
    std::uint32_t key, value;
  };
  const std::uint32_t* keys;
  const std::uint32_t* values;
  std::uint64_t* words;
  HASHLAB_DEVICE Row load(std::size_t i) const { return {keys[i], values[i]}; }
  HASHLAB_DEVICE void store(std::uint64_t to, const Row& row) const {
    words[to] = (std::uint64_t{row.key} << 32) | row.value;
  }
};

// One server: every row packed where it is.
__global__ void pack_rows(PackRow pack, std::size_t rows) {
  for (const std::size_t i : grid_stride(rows)) pack.store(i, pack.load(i));
}

// The received (key << 32 | value) words as the columns of a table the local join reads.
__global__ void unpack_rows(const std::uint64_t* words, std::size_t rows, std::uint32_t* keys, std::uint32_t* values) {
  for (const std::size_t i : grid_stride(rows)) {
    keys[i] = static_cast<std::uint32_t>(words[i] >> 32);
    values[i] = static_cast<std::uint32_t>(words[i]);
  }
}

/// One table's rows grouped by server: counts[d] words for server d, server after server.
struct Routed {
  DeviceBuffer<std::uint64_t> words;
  std::vector<std::uint64_t> counts;
};

/// The rows packed and grouped by server, each server's rows in input order (the stable bucket
/// scatter of bucket_scatter.cuh: each row read twice for its key, once for its value, and
/// written once).
template <class ServerOf>
Routed route_table(const std::uint32_t* keys, const std::uint32_t* values, std::size_t rows, ServerOf server_of,
                   unsigned p, cudaStream_t stream) {
  Routed out;
  out.counts.assign(p, 0);
  if (rows == 0) return out;
  out.words = DeviceBuffer<std::uint64_t>(rows, stream);
  const PackRow pack{keys, values, out.words.data()};
  if (p == 1) {
    pack_rows<<<grid_for(rows), kDefaultBlock, 0, stream>>>(pack, rows);
    HASHLAB_CHECK_LAUNCH();
    out.counts[0] = rows;
    return out;
  }
  const ServerOfRow<ServerOf> server_of_row{keys, server_of};
  const BucketScatter plan = plan_bucket_scatter(rows, p, server_of_row, stream);
  scatter_buckets(plan, server_of_row, pack, stream);
  for (unsigned d = 0; d < p; ++d) out.counts[d] = plan.offsets[d + 1] - plan.offsets[d];
  return out;
}

/// A received table: its columns and the view the local join reads.
struct Received {
  DeviceBuffer<std::uint64_t> words;
  DeviceBuffer<std::uint32_t> keys, values;
  std::size_t rows = 0;
  TableView view() const { return {keys.data(), values.data(), rows}; }
};

JoinedRows local_join(LocalJoin join, const TableView& r, const TableView& s, const BspOptions& options,
                      cudaStream_t stream, PhaseTimer* phases) {
  switch (join) {
    case LocalJoin::kBsp: return bsp_join(r, s, stream, options, nullptr, phases);
    case LocalJoin::kSort: return sort_join(r, s, stream, phases);
    case LocalJoin::kHash: return hash_join(r, s, stream, phases);
  }
  throw std::logic_error("servers_join: unknown local join");
}

}  // namespace

const char* to_string(Partitioning partitioning) {
  return partitioning == Partitioning::kSampledSplitters ? "sampled splitters" : "hash";
}

const char* to_string(LocalJoin local_join) {
  switch (local_join) {
    case LocalJoin::kBsp: return "bsp";
    case LocalJoin::kSort: return "sort";
    case LocalJoin::kHash: return "hash";
  }
  return "?";
}

unsigned hash_server(std::uint32_t key, unsigned servers) { return HashServer{servers}(key); }

SamplingPlan sampling_plan(std::uint64_t elements, int servers, std::uint64_t samples_per_server) {
  if (servers < 1) throw std::invalid_argument("servers_join: a group of " + std::to_string(servers) + " servers");
  SamplingPlan plan;
  if (samples_per_server == 0) {  // the report's rule: log2(p) per tile of 4096
    plan.stratum = static_cast<unsigned>(tile_items(TileShape::kStandard));
    plan.per_stratum = samples_per_tile(static_cast<std::uint32_t>(servers));
  } else {
    const std::uint64_t wanted = std::min(samples_per_server, std::max<std::uint64_t>(elements, 1));
    plan.stratum = static_cast<unsigned>(std::min<std::uint64_t>(div_up<std::uint64_t>(std::max<std::uint64_t>(elements, 1), wanted),
                                                                 std::uint64_t{1} << 31));
    plan.per_stratum = 1;
  }
  plan.samples = elements == 0 ? 0 : div_up<std::uint64_t>(elements, plan.stratum) * plan.per_stratum;
  return plan;
}

JoinedRows servers_join(servers::Communicator& comm, const TableView& r, const TableView& s,
                        const ServersJoinOptions& options, ServerJoinStats* stats, PhaseTimer* phases,
                        PhaseTimer* local_phases) {
  ServerJoinStats own;
  ServerJoinStats& st = stats != nullptr ? *stats : own;
  st = {};
  const auto p = static_cast<unsigned>(comm.size());
  cudaStream_t stream = comm.stream();
  const std::uint64_t n = r.rows + s.rows;
  st.rows_in = n;
  const bool sampled = options.partitioning == Partitioning::kSampledSplitters;

  // ---- 1. sample (the report's sampleElements, per tile of this server's rows) -----------------
  DeviceBuffer<std::uint32_t> splitters;
  std::exception_ptr error = servers::guarded([&] {
    validate(r, s);
    if (p > kMaxServers)
      throw std::invalid_argument("servers_join: " + std::to_string(p) + " servers; at most " +
                                  std::to_string(kMaxServers));
  });
  SamplingPlan sampling;
  DeviceBuffer<std::uint32_t> samples;
  if (sampled && !error)
    error = servers::guarded([&] {
      sampling = sampling_plan(n, comm.size(), options.samples_per_server);
      timed_phase(phases, "sample", stream, static_cast<double>(sampling.samples), "samples", [&] {
        samples = DeviceBuffer<std::uint32_t>(sampling.samples, stream);
        detail::sample_tables(r, s, sampling.stratum, sampling.per_stratum, options.seed + comm.rank(), samples.data(),
                              stream);
      });
    });
  comm.phase_boundary(error, "sample");
  st.samples = sampling.samples;

  // ---- 2. splitters: gather every server's samples, sort them, the report's formula ----------
  if (sampled) {
    if (phases != nullptr) phases->begin("splitters", stream, static_cast<double>(p) - 1, "splitters");
    const std::vector<std::uint64_t> counts = comm.all_gather_host<std::uint64_t>(sampling.samples);
    for (const std::uint64_t c : counts) st.samples_total += c;
    DeviceBuffer<std::uint32_t> all_samples(st.samples_total, stream);
    comm.all_to_all(samples.data(), servers::ExchangePlan::broadcast(counts, comm.rank()), all_samples.data());
    error = servers::guarded([&] {
      splitters = DeviceBuffer<std::uint32_t>(std::max(1u, p - 1), stream);
      if (st.samples_total == 0) {  // no rows anywhere: any splitters do
        splitters.fill_bytes(0, stream);
        return;
      }
      prim::sort_keys(all_samples.data(), st.samples_total, stream);
      detail::find_splitters(all_samples.data(), st.samples_total, p, splitters.data(), stream);
    });
    if (phases != nullptr) phases->end(stream);
  }

  // ---- 3. partition: each row to its server, grouped by server --------------------------------
  Routed routed_r, routed_s;
  if (!error)
    error = servers::guarded([&] {
      timed_phase(phases, "partition", stream, static_cast<double>(n), "rows", [&] {
        if (sampled) {
          const SplitterServer server_of{splitters.data(), p - 1};
          routed_r = route_table(r.keys, r.values, r.rows, server_of, p, stream);
          routed_s = route_table(s.keys, s.values, s.rows, server_of, p, stream);
        } else {
          const HashServer server_of{p};
          routed_r = route_table(r.keys, r.values, r.rows, server_of, p, stream);
          routed_s = route_table(s.keys, s.values, s.rows, server_of, p, stream);
        }
      });
    });
  comm.phase_boundary(error, "partition");
  samples = DeviceBuffer<std::uint32_t>();
  if (sampled && stats != nullptr) st.splitters = splitters.to_host(stream, p - 1);

  // ---- 4. all-to-all: the counts, then every row of both tables to its server, in one exchange ---
  if (phases != nullptr) phases->begin("all_to_all", stream, static_cast<double>(n), "rows");
  std::vector<std::uint64_t> mine(routed_r.counts);
  mine.insert(mine.end(), routed_s.counts.begin(), routed_s.counts.end());
  const std::vector<std::uint64_t> all = comm.all_gather_host(mine);  // server s: p counts of R, p of S
  std::vector<std::uint64_t> matrix_r(std::size_t{p} * p), matrix_s(std::size_t{p} * p);
  for (std::size_t from = 0; from < p; ++from)
    for (std::size_t to = 0; to < p; ++to) {
      matrix_r[from * p + to] = all[from * 2 * p + to];
      matrix_s[from * p + to] = all[from * 2 * p + p + to];
    }
  const auto plan_r = servers::ExchangePlan::from_counts(matrix_r, comm.size(), comm.rank());
  const auto plan_s = servers::ExchangePlan::from_counts(matrix_s, comm.size(), comm.rank());
  Received got_r, got_s;
  error = servers::guarded([&] {
    got_r.rows = plan_r.recv_total();
    got_s.rows = plan_s.recv_total();
    got_r.words = DeviceBuffer<std::uint64_t>(got_r.rows, stream);
    got_s.words = DeviceBuffer<std::uint64_t>(got_s.rows, stream);
  });
  comm.phase_boundary(error, "receive buffers");  // a server whose share does not fit: every server says so
  comm.all_to_all_many({{routed_r.words.data(), plan_r.scaled(sizeof(std::uint64_t)), got_r.words.data()},
                        {routed_s.words.data(), plan_s.scaled(sizeof(std::uint64_t)), got_s.words.data()}});
  if (phases != nullptr) phases->end(stream);
  routed_r = Routed{};
  routed_s = Routed{};
  const auto loads_r = servers::server_loads(matrix_r, comm.size());
  const auto loads_s = servers::server_loads(matrix_s, comm.size());
  st.loads.resize(p);
  for (std::size_t d = 0; d < p; ++d) st.loads[d] = loads_r[d] + loads_s[d];
  st.rows_received = st.loads[static_cast<std::size_t>(comm.rank())];
  const auto me = static_cast<std::size_t>(comm.rank());
  st.bytes_to_others = (plan_r.send_total() - plan_r.send_counts[me] + plan_s.send_total() - plan_s.send_counts[me]) *
                       sizeof(std::uint64_t);

  // ---- 5. local join: the received rows as tables, joined alone ---------------------------------
  JoinedRows out;
  error = servers::guarded([&] {
    timed_phase(phases, "local_join", stream, static_cast<double>(st.rows_received), "rows", [&] {
      for (Received* t : {&got_r, &got_s}) {
        t->keys = DeviceBuffer<std::uint32_t>(t->rows, stream);
        t->values = DeviceBuffer<std::uint32_t>(t->rows, stream);
        if (t->rows == 0) continue;
        unpack_rows<<<grid_for(t->rows), kDefaultBlock, 0, stream>>>(t->words.data(), t->rows, t->keys.data(),
                                                                     t->values.data());
        HASHLAB_CHECK_LAUNCH();
      }
      got_r.words = DeviceBuffer<std::uint64_t>();
      got_s.words = DeviceBuffer<std::uint64_t>();
      out = local_join(options.local_join, got_r.view(), got_s.view(), options.local, stream, local_phases);
    });
  });
  comm.phase_boundary(error, "local join");
  return out;
}

std::vector<JoinedRow> gather_rows(servers::Communicator& comm, const JoinedRows& rows) {
  const std::vector<std::uint64_t> counts = comm.all_gather_host<std::uint64_t>(rows.size);
  std::uint64_t total = 0;
  for (const std::uint64_t c : counts) total += c;
  const auto plan = servers::ExchangePlan::broadcast(counts, comm.rank());
  std::vector<std::vector<std::uint32_t>> columns;
  for (const DeviceBuffer<std::uint32_t>* column : {&rows.key, &rows.value1, &rows.value2}) {
    DeviceBuffer<std::uint32_t> all(total, comm.stream());
    comm.all_to_all(column->data(), plan, all.data());
    columns.push_back(all.to_host(comm.stream()));
  }
  std::vector<JoinedRow> out(total);
  for (std::size_t i = 0; i < total; ++i) out[i] = {columns[0][i], columns[1][i], columns[2][i]};
  return out;
}

}  // namespace hashlab::pkpk
