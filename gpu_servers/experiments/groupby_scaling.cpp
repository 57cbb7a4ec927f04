// The group-by across GPU servers against the same group-by on one GPU, from 10^3 to 10^8 groups.
#include <mutex>
#include <set>
#include <string>

#include "experiments.hpp"
#include "hashlab/catalogue/catalogue.hpp"
#include "hashlab/catalogue/servers_groupby.hpp"
#include "hashlab/common/generator.hpp"
#include "hashlab/gpu_servers/inputs.hpp"

namespace hashlab::gpu_servers {
namespace {

using catalogue::ServerGroupByStats;
using catalogue::ServersGroupByOptions;

const std::vector<std::string>& algorithms() {
  static const std::vector<std::string> names = {"sp_ega", "lphga", "sort", "hash", "rapids"};
  return names;
}

/// "<algorithm>_single" (the catalogue's group-by on one GPU, the whole input) and
/// "<algorithm>_p<servers>" (across that many servers).
Variants groupby_variants() {
  Variants v;
  for (const auto& a : algorithms())
    for (const char* how : {"_single", "_p2", "_p4", "_p8"}) v.push_back(a + how);
  return v;
}

/// The whole input of a point: keys uniform among `groups` keys, values below 2^20 (every entry
/// takes them: unsigned 32-bit, or int32 for rapids), on device 0 and on the host, and the oracle.
struct Input {
  std::vector<std::uint32_t> keys, values;
  DeviceBuffer<std::uint32_t> d_keys, d_values;
  reference::GroupByResult expected;
  std::string oracle;
};

catalogue::GroupByInput columns(const std::string& algorithm, const std::uint32_t* keys, const std::uint32_t* values,
                                std::size_t rows, bool device, const std::uint32_t* host_keys = nullptr,
                                const std::uint32_t* host_values = nullptr) {
  catalogue::GroupByInput in;
  in.aggregations = {reference::Aggregation::kSum};
  const catalogue::DType value_type = algorithm == "rapids" ? catalogue::DType::kInt32 : catalogue::DType::kUint32;
  in.keys = {{"key", catalogue::DType::kUint32, rows, device ? host_keys : keys, device ? keys : nullptr, {}}};
  in.values = {{"value", value_type, rows, device ? host_values : values, device ? values : nullptr, {}}};
  return in;
}

Input& input_for(PointContext& ctx, std::uint64_t rows, std::uint64_t groups) {
  const std::string key = "servers:groupby:" + std::to_string(rows) + ":" + std::to_string(groups) + ":" +
                          std::to_string(ctx.seed());
  return ctx.cached<Input>(key, [&] {
    ctx.drop_cached("servers:groupby:");
    Input in;
    cudaStream_t st = ctx.stream();
    in.d_keys = DeviceBuffer<std::uint32_t>(rows, st);
    in.d_values = DeviceBuffer<std::uint32_t>(rows, st);
    gen::generate_keys(gen::KeySpec::uniform(groups), ctx.seed(), in.d_keys.data(), rows, st);
    gen::generate_values<std::uint32_t>(ctx.seed() + 1, 0, (1u << 20) - 1, in.d_values.data(), rows, st);
    in.keys = in.d_keys.to_host(st);
    in.values = in.d_values.to_host(st);
    in.expected = catalogue::oracle_groupby(columns("sort", in.keys.data(), in.values.data(), rows, false), &in.oracle);
    return in;
  });
}

/// Each server's share of the input, on its own device, for the lifetime of this object.
class Shares {
 public:
  Shares(servers::ServerGroup& group, const Input& in) : group_(group), keys_(group.size()), values_(group.size()) {
    group_.run([&](servers::Communicator& comm) {
      const auto d = static_cast<std::size_t>(comm.rank()), p = static_cast<std::size_t>(comm.size());
      const std::size_t begin = in.keys.size() * d / p, end = in.keys.size() * (d + 1) / p;
      keys_[d] = DeviceBuffer<std::uint32_t>(end - begin, comm.stream());
      values_[d] = DeviceBuffer<std::uint32_t>(end - begin, comm.stream());
      keys_[d].copy_from_host(in.keys.data() + begin, end - begin, comm.stream());
      values_[d].copy_from_host(in.values.data() + begin, end - begin, comm.stream());
      comm.synchronize();
    });
  }
  ~Shares() {
    try {
      if (!group_.failed())
        group_.run([&](servers::Communicator& comm) {
          keys_[static_cast<std::size_t>(comm.rank())] = {};
          values_[static_cast<std::size_t>(comm.rank())] = {};
          comm.synchronize();
        });
    } catch (...) {
    }
  }
  Shares(const Shares&) = delete;
  Shares& operator=(const Shares&) = delete;

  /// The group-by on every server; with `collect`, the servers' groups put together, sorted.
  reference::GroupByResult run(const ServersGroupByOptions& options, std::vector<ServerGroupByStats>* stats) {
    std::mutex mutex;
    std::vector<reference::GroupByResult> parts(keys_.size());
    if (stats != nullptr) stats->assign(keys_.size(), {});
    group_.run([&](servers::Communicator& comm) {
      const auto d = static_cast<std::size_t>(comm.rank());
      ServerGroupByStats st;
      const auto share = columns(options.algorithm, keys_[d].data(), values_[d].data(), keys_[d].size(), true);
      auto mine = catalogue::servers_groupby(comm, share, options, &st);
      std::lock_guard<std::mutex> lock(mutex);
      parts[d] = std::move(mine);
      if (stats != nullptr) (*stats)[d] = st;
    });
    reference::GroupByResult all = std::move(parts[0]);
    for (std::size_t d = 1; d < parts.size(); ++d) all.append(parts[d]);
    all.sort_by_key();
    return all;
  }

 private:
  servers::ServerGroup& group_;
  std::vector<DeviceBuffer<std::uint32_t>> keys_, values_;
};

void run_single(PointContext& ctx, const std::string& algorithm, Input& in) {
  cudaStream_t st = ctx.stream();
  const auto whole = columns(algorithm, in.d_keys.data(), in.d_values.data(), in.keys.size(), true);
  const catalogue::GroupByEntry& entry = catalogue::groupby_entry(algorithm);
  // Made, prepared and run inside the timing, as each server does with its share.
  const auto t = ctx.time_host([&] {
    auto g = entry.make(whole, {}, st);
    g->prepare(st);
    g->run(st);
    HASHLAB_CUDA_CHECK(cudaStreamSynchronize(st));
  });
  ctx.report_time("groupby", t, static_cast<double>(in.keys.size()), "rows");
  ctx.report_time("per_gpu", t, static_cast<double>(in.keys.size()), "rows");
  auto g = entry.make(whole, {}, st);
  g->prepare(st);
  g->run(st);
  if (!in.oracle.empty()) ctx.note(in.oracle);
  const std::string diff = reference::compare(in.expected, g->result(st));
  ctx.verify(diff.empty(), diff);
}

void run_servers(PointContext& ctx, const std::string& algorithm, int p, Input& in) {
  servers::ServerGroup& group = group_for(ctx, p);
  Shares shares(group, in);
  ServersGroupByOptions options;
  options.algorithm = algorithm;
  options.collect = false;
  const auto t = ctx.time_host([&] { shares.run(options, nullptr); });
  const double rows = static_cast<double>(in.keys.size());
  ctx.report_time("groupby", t, rows, "rows");
  ctx.report_time("per_gpu", t, rows / p, "rows");
  options.collect = true;
  std::vector<ServerGroupByStats> stats;
  const reference::GroupByResult all = shares.run(options, &stats);
  ctx.report_value("pre_aggregated", stats[0].pre_aggregated ? 1 : 0, "flag");
  ctx.report_value("estimated_groups_total", stats[0].estimated_groups_total, "groups");
  const servers::LoadBalance balance = servers::load_balance(stats[0].loads);
  ctx.report_value("max_load", static_cast<double>(balance.fullest), "rows");
  ctx.report_value("load_ratio", balance.fullest_over_mean(), "max/mean");
  report_group(ctx, group);
  if (stats[0].pre_aggregated) ctx.note("pre-aggregated (the RAPIDS estimator: few groups)");
  if (!in.oracle.empty()) ctx.note(in.oracle);
  const std::string diff = reference::compare(in.expected, all);
  ctx.verify(diff.empty(), diff);
}

}  // namespace

harness::Experiment groupby_scaling_experiment() {
  return make_experiment(
      "gpu_servers", "groupby_scaling", "the group-by across GPU servers (10^3 to 10^8 groups)",
      "group-by time vs the number of groups: the time (sum) and input rows/s of n rows; each GPU group-by of the "
      "catalogue on one GPU (_single) and across 2, 4, 8 GPUs (_p<p>: rows hash-partitioned by key, the same group-by on "
      "each server's share; with few groups a local pre-aggregation first, the RAPIDS estimator deciding: "
      "pre_aggregated); every answer checked against the oracle of the whole input",
      groupby_variants(),
      [](const RunOptions& o, const Variants& v) {
        return o.full() ? sweep(v, {o.pick_size(std::uint64_t{1} << 30, std::uint64_t{1} << 30)}, "groups",
                                {1e3, 1e4, 1e5, 1e6, 1e7, 1e8})
                        : sweep(v, {o.pick_size(std::uint64_t{1} << 25, std::uint64_t{1} << 25)}, "groups", {1e3, 1e5, 1e7});
      },
      [](PointContext& ctx) {
        const std::string& variant = ctx.point().variant;
        const std::string algorithm = variant.substr(0, variant.rfind('_'));
        const std::string how = variant.substr(variant.rfind('_') + 1);
        const int p = how == "single" ? 1 : std::stoi(how.substr(1));
        if (p > 1 && p > servers::device_count() && ctx.options().option("servers-share-gpu") != "yes")
          group_for(ctx, p);  // throws SkipPoint with the reason before any input is drawn
        Input& in = input_for(ctx, ctx.point().n, static_cast<std::uint64_t>(ctx.point().param_value));
        if (how == "single") run_single(ctx, algorithm, in);
        else run_servers(ctx, algorithm, p, in);
      });
}

}  // namespace hashlab::gpu_servers
