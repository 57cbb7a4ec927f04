// Where the time of the join across GPU servers goes, phase by phase (the MPC model's rounds),
// beside the all-to-all limit of the same group for the same bytes.
#include <algorithm>
#include <map>

#include "experiments.hpp"
#include "hashlab/servers/bandwidth.hpp"
#include "hashlab/gpu_servers/inputs.hpp"

namespace hashlab::gpu_servers {
namespace {

/// The steps of a local join that compare and write (the rest sorts, or builds the hash table).
bool is_join_step(const std::string& name) {
  return name == "join" || name == "compact_scan" || name == "compact_write" || name == "probe" || name == "gather";
}

/// One run's phases: each server's own (sample, splitters, partition, all_to_all), its local join
/// split into local_sort (everything before the compare: the BSP steps, the radix sort or the
/// hash build, and the unpacking of the received rows) and join (compare and write); each phase
/// the slowest server's time (a superstep ends when its last server does).
std::vector<PhaseTime> combine(const std::vector<std::vector<PhaseTime>>& outer,
                               const std::vector<std::vector<PhaseTime>>& inner) {
  std::vector<PhaseTime> out;
  for (std::size_t d = 0; d < outer.size(); ++d) {
    std::vector<PhaseTime> mine;
    for (const PhaseTime& phase : outer[d]) {
      if (phase.name != "local_join") {
        mine.push_back(phase);
        continue;
      }
      double join_ms = 0;
      for (const PhaseTime& step : inner[d])
        if (is_join_step(step.name)) join_ms += step.ms;
      mine.push_back({"local_sort", std::max(0.0, phase.ms - join_ms), phase.items, phase.unit});
      mine.push_back({"join", join_ms, phase.items, phase.unit});
    }
    if (d == 0) {
      out = mine;
      continue;
    }
    for (std::size_t i = 0; i < out.size() && i < mine.size(); ++i) {
      out[i].ms = std::max(out[i].ms, mine[i].ms);
      out[i].items = std::max(out[i].items, mine[i].items);
    }
  }
  return out;
}

}  // namespace

harness::Experiment phases_experiment() {
  return make_experiment(
      "gpu_servers", "phases", "the report's GPU servers (MPC model)",
      "time per phase: the time of each phase (sample, splitters, partition, all_to_all, local_sort, join; the slowest server's) of the "
      "three joins across p = 1, 2, 4, 8 GPUs at n rows per table per GPU, beside the all-to-all limit: the same "
      "group's NCCL all-to-all of the same bytes per GPU (all_to_all_limit_rate, GB/s per GPU to the others)",
      servers_variants(),
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, {o.pick_size(std::uint64_t{1} << 24, std::uint64_t{1} << 28)}, "gpus", {1, 2, 4, 8});
      },
      [](PointContext& ctx) {
        const int p = static_cast<int>(ctx.point().param_value);
        servers::ServerGroup& group = group_for(ctx, p);
        const GlobalTables& tables = global_tables(ctx, KeyLayout::kUniform, ctx.point().n * p);
        const ServersJoinOptions options = servers_options(ctx.point().variant);
        ServerShares shares(group, tables);
        std::uint64_t bytes_to_others = 0, rows_in = 0;
        const auto phases = ctx.time_measured_phases([&] {
          std::vector<std::vector<PhaseTime>> outer, inner;
          const ServersRun run = shares.join(options, false, &outer, &inner);
          for (const auto& st : run.stats) {
            bytes_to_others = std::max(bytes_to_others, st.bytes_to_others);
            rows_in = std::max(rows_in, st.rows_in);
          }
          return combine(outer, inner);
        });
        for (const auto& phase : phases) {
          if (phase.name == "all_to_all")  // its rate in GB/s per GPU to the other GPUs
            ctx.report_time("phase_all_to_all", phase.timing, static_cast<double>(bytes_to_others), "B");
          else
            ctx.report_time("phase_" + phase.name, phase.timing, phase.items, phase.unit);
        }
        ctx.report_value("bytes_to_others", static_cast<double>(bytes_to_others), "bytes");
        if (p > 1) {
          // The same bytes per GPU as the join's exchange (8 per row), through the same group.
          const servers::AllToAllTiming limit = servers::measure_all_to_all(group, rows_in * sizeof(std::uint64_t));
          const harness::Timing t = harness::summarize(limit.ms);
          ctx.report_time("all_to_all_limit", t, static_cast<double>(limit.bytes_to_others), "B");
        }
        const ServersRun checked = shares.join(options, true);
        report_group(ctx, group);
        verify_servers_rows(ctx, tables, checked, options);
      });
}

}  // namespace hashlab::gpu_servers
