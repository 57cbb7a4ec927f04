// The MPC model's promise, measured: the fullest server's load over N / p, for sampled splitters
// (the report's log2(p) samples per tile) and for hash partitioning, on uniform, sequential and
// clustered keys, over several sampling seeds.
#include <string>

#include "experiments.hpp"
#include "hashlab/gpu_servers/inputs.hpp"

namespace hashlab::gpu_servers {
harness::Experiment load_experiment() {
  return make_experiment(
      "gpu_servers", "load", "the MPC model's load bound",
      "the fullest server over N/p: the fullest server's rows over N/p (load_ratio: median, min and max over 5 sampling seeds, 10 full) for "
      "p = 2, 4, 8 GPUs, two tables of n rows each; sampled splitters (the report's log2(p) samples per tile) vs "
      "hash partitioning, on uniform keys, sequential keys (server d holds one key range) and keys clustered in "
      "four narrow ranges (shuffled)",
      {"sampled_uniform", "sampled_sequential", "sampled_clustered", "hashed_uniform", "hashed_sequential",
       "hashed_clustered"},
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, {o.pick_size(std::uint64_t{1} << 24, std::uint64_t{1} << 27)}, "gpus", {2, 4, 8});
      },
      [](PointContext& ctx) {
        const int p = static_cast<int>(ctx.point().param_value);
        const std::string& variant = ctx.point().variant;
        const bool sampled = variant.rfind("sampled_", 0) == 0;
        const KeyLayout layout = parse_key_layout(variant.substr(variant.find('_') + 1));
        servers::ServerGroup& group = group_for(ctx, p);
        const GlobalTables& tables = global_tables(ctx, layout, ctx.point().n);
        ServersJoinOptions options = servers_options(sampled ? "sampled_sort" : "hashed_hash");
        ServerShares shares(group, tables);
        std::vector<double> ratios, fullest;
        const int seeds = ctx.options().full() ? kSeedsFull : kSeedsQuick;
        ServersRun last;
        bool loads_add_up = true;
        for (int seed = 1; seed <= seeds; ++seed) {
          options.seed = static_cast<std::uint64_t>(seed) * 7919;
          last = shares.join(options, seed == seeds);  // the last run's rows are checked whole
          const servers::LoadBalance balance = servers::load_balance(last.stats[0].loads);
          loads_add_up = loads_add_up && balance.total == tables.rows();
          ratios.push_back(balance.fullest_over_mean());
          fullest.push_back(static_cast<double>(balance.fullest));
        }
        ctx.report_values("load_ratio", ratios, "max/mean");
        ctx.report_values("max_load", fullest, "rows");
        ctx.report_value("mean_load", static_cast<double>(tables.rows()) / p, "rows");
        ctx.report_value("samples_total", static_cast<double>(last.stats[0].samples_total), "count");
        ctx.report_value("samples_per_tile", sampled ? pkpk::samples_per_tile(static_cast<std::uint32_t>(p)) : 0, "count");
        report_group(ctx, group);
        ctx.verify(loads_add_up, "the servers' loads do not add up to the input rows");
        verify_servers_rows(ctx, tables, last, options);
      });
}

}  // namespace hashlab::gpu_servers
