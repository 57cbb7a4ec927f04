// What the experiments of the GPU servers share (inputs.hpp).
#include "hashlab/gpu_servers/inputs.hpp"

#include <algorithm>
#include <mutex>
#include <set>
#include <stdexcept>

#include "hashlab/common/generator.hpp"
#include "hashlab/common/hash.hpp"
#include "hashlab/common/permutation.hpp"
#include "hashlab/common/radix_sort.hpp"
#include "hashlab/common/threads.hpp"

namespace hashlab::gpu_servers {

harness::ModuleOption servers_backend_option() {
  return {"gpu_servers", "servers-backend",
          "the servers' backend where each has a GPU of its own: nccl (one GPU per server) or local (in-process copies)",
          "nccl", [](const std::string& v) { servers::parse_backend(v); }};
}

harness::ModuleOption servers_share_gpu_option() {
  return {"gpu_servers", "servers-share-gpu",
          "yes: run the points of more servers than this host has GPUs with the local backend, the servers sharing "
          "GPUs (labelled shared_gpu: a test of the code, not a scaling measurement); no (default): skip them",
          "no", [](const std::string& v) {
            if (v != "yes" && v != "no") throw std::invalid_argument("--servers-share-gpu takes yes or no, got '" + v + "'");
          }};
}

const Variants& servers_variants() {
  static const Variants variants = {"sampled_bsp", "sampled_sort", "hashed_hash"};
  return variants;
}

ServersJoinOptions servers_options(const std::string& variant) {
  ServersJoinOptions options;
  if (variant == "sampled_bsp") return options;
  if (variant == "sampled_sort") {
    options.local_join = LocalJoin::kSort;
    return options;
  }
  if (variant == "hashed_hash") {
    options.partitioning = Partitioning::kHash;
    options.local_join = LocalJoin::kHash;
    return options;
  }
  throw std::invalid_argument("unknown servers variant '" + variant + "'");
}

servers::ServerGroup& group_for(PointContext& ctx, int p) {
  const int gpus = servers::device_count();
  servers::Backend backend = servers::parse_backend(ctx.options().option("servers-backend"));
  if (p > gpus) {
    if (ctx.options().option("servers-share-gpu") != "yes")
      throw harness::SkipPoint("needs " + std::to_string(p) + " GPUs, this host has " + std::to_string(gpus) +
                               " (--servers-share-gpu yes runs it with the servers sharing GPUs: a test of the code, "
                               "not a scaling measurement)");
    backend = servers::Backend::kLocal;
  }
  if (backend == servers::Backend::kNccl && !servers::nccl_built())
    throw harness::SkipPoint("this build has no NCCL (configure with NCCL, or --servers-backend local)");
  const std::string key = "servers:group:" + std::string(servers::to_string(backend)) + ":" + std::to_string(p);
  auto make = [&] {
    ctx.drop_cached("servers:group:");  // one group at a time: NCCL communicators hold device memory
    return std::make_shared<servers::ServerGroup>(servers::GroupOptions{p, backend, {}});
  };
  auto* group = &ctx.cached<std::shared_ptr<servers::ServerGroup>>(key, make);
  if ((*group)->failed()) {  // an earlier point's failure aborted it
    ctx.drop_cached(key);
    group = &ctx.cached<std::shared_ptr<servers::ServerGroup>>(key, make);
  }
  return **group;
}

KeyLayout parse_key_layout(const std::string& name) {
  if (name == "uniform") return KeyLayout::kUniform;
  if (name == "sequential") return KeyLayout::kSequential;
  if (name == "clustered") return KeyLayout::kClustered;
  throw std::invalid_argument("unknown key layout '" + name + "'");
}

namespace {

const char* layout_name(KeyLayout layout) {
  switch (layout) {
    case KeyLayout::kUniform: return "uniform";
    case KeyLayout::kSequential: return "sequential";
    case KeyLayout::kClustered: return "clustered";
  }
  return "?";
}

/// Enough key domain for the generator's n + n / 2 distinct keys, with room (pkpk_join's rule).
std::uint64_t domain_for(std::uint64_t n) {
  return std::min<std::uint64_t>(gen::kMaxKeyDomain, std::max<std::uint64_t>(100000000, 4 * n));
}

void sort_by_key(std::vector<JoinedRow>& rows) {
  cpu::radix_sort(rows, [](const JoinedRow& row) { return row.key; });
}

/// Four narrow ranges, a quarter of the 32-bit keys apart: key k -> (k mod 4) * 2^30 + k / 4.
std::uint32_t clustered(std::uint64_t k) { return static_cast<std::uint32_t>(((k & 3u) << 30) | (k >> 2)); }

}  // namespace

GlobalTables& global_tables(PointContext& ctx, KeyLayout layout, std::uint64_t n) {
  const std::string layout_key = "servers:tables:" + std::string(layout_name(layout)) + ":";
  const std::string key = layout_key + std::to_string(n) + ":" + std::to_string(ctx.seed());
  return ctx.cached<GlobalTables>(key, [&] {
    // One size per layout at a time; the load experiment's three layouts of one size stay (its
    // variants alternate between them).
    ctx.drop_cached(layout_key);
        GlobalTables t;
    if (layout == KeyLayout::kUniform) {
      // The generator's pk-pk tables, drawn on the device, as the single-GPU experiments draw them.
      const gen::PkPkSpec spec{n, n, domain_for(n), kMatchRate};
      cudaStream_t st = ctx.stream();
      DeviceBuffer<std::uint32_t> rk(n, st), sk(n, st), rv(n, st), sv(n, st);
      gen::generate_pkpk(spec, ctx.seed(), rk.data(), sk.data(), st);
      gen::generate_values<std::uint32_t>(ctx.seed() + 1, 0, 0xfffffffeu, rv.data(), n, st);
      gen::generate_values<std::uint32_t>(ctx.seed() + 2, 0, 0xfffffffeu, sv.data(), n, st);
      t.r_keys = rk.to_host(st);
      t.s_keys = sk.to_host(st);
      t.r_values = rv.to_host(st);
      t.s_values = sv.to_host(st);
    } else {
      if (n > (std::uint64_t{1} << 31)) throw std::invalid_argument("at most 2^31 rows per table for these layouts");
      t.r_keys = cpu::zeroed_vector<std::uint32_t>(n);
      t.s_keys = cpu::zeroed_vector<std::uint32_t>(n);
      t.r_values = cpu::zeroed_vector<std::uint32_t>(n);
      t.s_values = cpu::zeroed_vector<std::uint32_t>(n);
      const RandomPermutation shuffle(std::max<std::uint64_t>(n, 1), ctx.seed());
      const bool cluster = layout == KeyLayout::kClustered;
      cpu::parallel_for(n, cpu::threads_for_items(n), [&](std::size_t i) {
        const std::uint64_t row = cluster ? shuffle(i) : i;  // the clustered tables in random order
        // S's first half of keys is R's second half: match rate 0.5.
        t.r_keys[i] = cluster ? clustered(row) : static_cast<std::uint32_t>(row);
        t.s_keys[i] = cluster ? clustered(row + n / 2) : static_cast<std::uint32_t>(row + n / 2);
        t.r_values[i] = static_cast<std::uint32_t>(hash::fmix32(static_cast<std::uint32_t>(i)));
        t.s_values[i] = static_cast<std::uint32_t>(hash::fmix32(static_cast<std::uint32_t>(i) ^ 0x9e3779b9u));
      });
    }
    t.expected = pkpk::oracle_join(t.r_keys, t.r_values, t.s_keys, t.s_values, &t.oracle);
    return t;
  });
}

struct ServerShares::Share {
  DeviceBuffer<std::uint32_t> r_keys, r_values, s_keys, s_values;
  std::size_t r_rows = 0, s_rows = 0;
};

ServerShares::ServerShares(servers::ServerGroup& group, const GlobalTables& tables) : group_(group) {
  const auto p = static_cast<std::size_t>(group.size());
  for (std::size_t d = 0; d < p; ++d) shares_.push_back(std::make_unique<Share>());
  group_.run([&](servers::Communicator& comm) {
    const auto d = static_cast<std::size_t>(comm.rank());
    Share& share = *shares_[d];
    cudaStream_t st = comm.stream();
    auto upload = [&](const Keys& column, DeviceBuffer<std::uint32_t>& to, std::size_t& rows) {
      const std::size_t begin = column.size() * d / p, end = column.size() * (d + 1) / p;
      rows = end - begin;
      to = DeviceBuffer<std::uint32_t>(rows, st);
      to.copy_from_host(column.data() + begin, rows, st);
    };
    upload(tables.r_keys, share.r_keys, share.r_rows);
    upload(tables.r_values, share.r_values, share.r_rows);
    upload(tables.s_keys, share.s_keys, share.s_rows);
    upload(tables.s_values, share.s_values, share.s_rows);
    comm.synchronize();
  });
}

ServerShares::~ServerShares() {
  // Each server frees its own share, on its own stream, while the group (and its streams) lives.
  if (group_.failed()) {  // the streams are still there; free from here
    shares_.clear();
    return;
  }
  try {
    group_.run([&](servers::Communicator& comm) {
      shares_[static_cast<std::size_t>(comm.rank())].reset();
      comm.synchronize();
    });
  } catch (...) {
    shares_.clear();
  }
}

ServersRun ServerShares::join(const ServersJoinOptions& options, bool collect,
                              std::vector<std::vector<PhaseTime>>* phases,
                              std::vector<std::vector<PhaseTime>>* local_phases) {
  ServersRun run;
  const auto p = static_cast<std::size_t>(group_.size());
  run.stats.resize(p);
  if (collect) run.rows.resize(p);
  if (phases != nullptr) phases->assign(p, {});
  if (local_phases != nullptr) local_phases->assign(p, {});
  group_.run([&](servers::Communicator& comm) {
    const auto d = static_cast<std::size_t>(comm.rank());
    const Share& share = *shares_[d];
    PhaseTimer outer, inner;
    const pkpk::JoinedRows rows =
        pkpk::servers_join(comm, {share.r_keys.data(), share.r_values.data(), share.r_rows},
                     {share.s_keys.data(), share.s_values.data(), share.s_rows}, options, &run.stats[d],
                     phases != nullptr ? &outer : nullptr, local_phases != nullptr ? &inner : nullptr);
    // Read on the server's own thread: the events are its device's.
    if (phases != nullptr) (*phases)[d] = outer.results();
    if (local_phases != nullptr) (*local_phases)[d] = inner.results();
    if (collect) run.rows[d] = rows.to_host(comm.stream());
  });
  return run;
}

void verify_servers_rows(PointContext& ctx, const GlobalTables& tables, const ServersRun& run,
                         const ServersJoinOptions& options) {
  std::vector<JoinedRow> got;
  for (const auto& rows : run.rows) got.insert(got.end(), rows.begin(), rows.end());
  // Sampled splitters with a sorting local join give the rows sorted server after server: checked
  // as they come. The others are sorted first.
  const bool in_order = options.partitioning == Partitioning::kSampledSplitters && options.local_join != LocalJoin::kHash;
  if (!in_order) sort_by_key(got);
  if (!tables.oracle.empty()) ctx.note(tables.oracle);
  if (got.size() != tables.expected.size()) {
    ctx.verify(false, std::to_string(got.size()) + " rows, expected " + std::to_string(tables.expected.size()));
    return;
  }
  const std::size_t diff =
      cpu::first_index_where(got.size(), [&](std::size_t i) { return !(got[i] == tables.expected[i]); });
  ctx.verify(diff == got.size(), diff == got.size() ? "" : "row " + std::to_string(diff) + " differs (key " +
                                                               std::to_string(got[diff].key) + ")");
}

void report_group(PointContext& ctx, const servers::ServerGroup& group) {
  const std::set<int> devices(group.devices().begin(), group.devices().end());
  ctx.report_value("gpus_used", static_cast<double>(devices.size()), "count");
  ctx.report_value("shared_gpu", group.shares_devices() ? 1 : 0, "flag");
  if (group.shares_devices())
    ctx.note("shared GPU: " + std::to_string(group.size()) + " servers on " + std::to_string(devices.size()) +
             " GPU(s), local backend (a test of the code, not a scaling measurement)");
  else
    ctx.note(std::string("backend ") + servers::to_string(group.backend()));
}

void run_servers_variant(PointContext& ctx, int p, std::uint64_t rows_per_table) {
  servers::ServerGroup& group = group_for(ctx, p);
  const GlobalTables& tables = global_tables(ctx, KeyLayout::kUniform, rows_per_table);
  const ServersJoinOptions options = servers_options(ctx.point().variant);
  ServerShares shares(group, tables);
  const auto t = ctx.time_host([&] { shares.join(options, false); });
  const double rows = static_cast<double>(tables.rows());
  ctx.report_time("join", t, rows, "rows");
  ctx.report_time("per_gpu", t, rows / p, "rows");  // per_gpu_rate: input rows per second per server
  const ServersRun checked = shares.join(options, true);
  const servers::LoadBalance balance = servers::load_balance(checked.stats[0].loads);
  ctx.report_value("max_load", static_cast<double>(balance.fullest), "rows");
  ctx.report_value("mean_load", balance.mean, "rows");
  ctx.report_value("load_ratio", balance.fullest_over_mean(), "max/mean");
  ctx.report_value("samples_total", static_cast<double>(checked.stats[0].samples_total), "count");
  report_group(ctx, group);
  verify_servers_rows(ctx, tables, checked, options);
}

}  // namespace hashlab::gpu_servers
