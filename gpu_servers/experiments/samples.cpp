// The MPC model's load bound: how many samples per server the sampled splitters need for the
// fullest server to stay within a bound, beside the report's log2(p) samples per tile.
#include <vector>

#include "experiments.hpp"
#include "hashlab/gpu_servers/inputs.hpp"

namespace hashlab::gpu_servers {

harness::Experiment samples_experiment() {
  return make_experiment(
      "gpu_servers", "samples", "the MPC model's load bound",
      "how many samples it takes: the fullest server's rows over N/p on uniform keys at p = 4 GPUs vs the samples each server draws (one "
      "from each of that many equal runs of its rows; median, min and max over 5 seeds, 10 full); variant "
      "report_rule: the report's log2(p) samples per tile of 4096",
      {"sampled_uniform", "report_rule"},
      [](const RunOptions& o, const Variants&) {
        const std::uint64_t n = o.pick_size(std::uint64_t{1} << 24, std::uint64_t{1} << 27);
        constexpr int p = 4;
        std::vector<harness::Point> points;
        for (const double m : {4.0, 16.0, 64.0, 256.0, 1024.0, 4096.0, 16384.0, 65536.0})
          points.push_back({"sampled_uniform", n, "samples_per_server", m});
        // Each server holds 2n / p elements: the report's rule draws log2(p) per tile of them.
        points.push_back({"report_rule", n, "samples_per_server",
                          static_cast<double>(pkpk::sampling_plan(2 * n / p, p, 0).samples)});
        return points;
      },
      [](PointContext& ctx) {
        constexpr int p = 4;
        servers::ServerGroup& group = group_for(ctx, p);
        const GlobalTables& tables = global_tables(ctx, KeyLayout::kUniform, ctx.point().n);
        ServersJoinOptions options = servers_options("sampled_sort");
        if (ctx.point().variant != "report_rule")
          options.samples_per_server = static_cast<std::uint64_t>(ctx.point().param_value);
        ServerShares shares(group, tables);
        std::vector<double> ratios;
        const int seeds = ctx.options().full() ? kSeedsFull : kSeedsQuick;
        ServersRun last;
        for (int seed = 1; seed <= seeds; ++seed) {
          options.seed = static_cast<std::uint64_t>(seed) * 7919;
          last = shares.join(options, seed == seeds);
          ratios.push_back(servers::load_balance(last.stats[0].loads).fullest_over_mean());
        }
        ctx.report_values("load_ratio", ratios, "max/mean");
        ctx.report_value("samples_total", static_cast<double>(last.stats[0].samples_total), "count");
        report_group(ctx, group);
        verify_servers_rows(ctx, tables, last, options);
      });
}

}  // namespace hashlab::gpu_servers
