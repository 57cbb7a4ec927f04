// Fig. 4.7 right: construction rate vs space, beside the cost model of section 4.5.3.
#include <cstdint>

#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/launch.cuh"
#include "hashlab/common/memory.hpp"
#include "hashlab/cuckoo/cost_model.hpp"
#include "hashlab/cuckoo/cuckoo_table.hpp"

#include "experiments.hpp"
#include "inputs.cuh"
#include "builds.cuh"

namespace hashlab::cuckoo::experiments {
namespace {

// Near the minimum space the eviction chains grow long (section 4.5.4): at 1.1N with 4
// functions most attempts fail at 7 lg N, and a lucky first build says nothing about the timed
// repetitions that follow. So the limit is the first of 7 lg N, 28 lg N and 500 lg N at which
// three untimed probe builds succeed with at most half of their attempts failed (then 25
// attempts all failing has odds below 1e-7); the row records the limit used.
std::uint32_t pick_eviction_limit(PointContext& ctx, CuckooConfig config, const Pairs& p, std::uint64_t n) {
  const std::uint32_t limits[] = {default_max_iterations(n), 4 * default_max_iterations(n), long_max_iterations(n)};
  constexpr int kProbes = 3;
  for (const std::uint32_t limit : limits) {
    config.max_iterations = limit;
    CuckooHashTable probe(config);
    int attempts = 0;
    try {
      for (int i = 0; i < kProbes; ++i) {
        probe.build(p.keys.data(), p.values.data(), n, ctx.stream());
        attempts += probe.stats().attempts;
      }
    } catch (const BuildFailure&) {
      attempts = config.max_attempts * kProbes;
    }
    if (attempts <= 2 * kProbes) return limit;
    ctx.note("max_iterations = " + std::to_string(limit) + " failed most attempts");
  }
  return limits[2];  // the timed builds below fail with a clear BuildFailure if this limit fails too
}

// Listing 4.2 stops at the first function whose slot holds the key: *total += the probes that a
// lookup of each of keys[0..n) makes (f.count + 1 for a key not found, which the point's
// verification reports anyway).
__global__ void count_probes(const std::uint64_t* slots, HashFunctions f, const std::uint32_t* keys, std::size_t n,
                             unsigned long long* total) {
  unsigned long long mine = 0;
  for (const std::size_t i : grid_stride(n)) {
    const std::uint32_t key = keys[i];
    int probes = f.count + 1;
    for (int j = 0; j < f.count; ++j) {
      if (get_key(slots[f(j, key)]) == key) {
        probes = j + 1;
        break;
      }
    }
    mine += static_cast<unsigned long long>(probes);
  }
  if (mine > 0) atomicAdd(total, mine);
}

double mean_probes(const CuckooHashTable& table, const std::uint32_t* keys, std::size_t n, cudaStream_t stream) {
  if (n == 0) return 0;
  DeviceBuffer<unsigned long long> total(1, stream);
  total.fill_bytes(0, stream);
  count_probes<<<grid_for(n), kDefaultBlock, 0, stream>>>(table.slots(), table.hash_functions(), keys, n, total.data());
  HASHLAB_CHECK_LAUNCH();
  return static_cast<double>(read_device_value(total.data(), stream)) / static_cast<double>(n);
}

void run_fig4_7(PointContext& ctx) {
  const Point& pt = ctx.point();
  auto& p = pairs(ctx, pt.n);
  CuckooConfig config = config_from(ctx.options(), 4, pt.param_value);
  config.max_iterations = pick_eviction_limit(ctx, config, p, pt.n);
  CuckooHashTable table(config);
  int builds = 0, attempts = 0;
  const auto build = time_build(ctx, table, p, pt.n, builds, attempts);
  ctx.report_time("build", build, static_cast<double>(pt.n), "pairs");
  ctx.report_value("max_iterations", table.stats().max_iterations, "count");
  ctx.report_value("failed_attempt_fraction", static_cast<double>(attempts - builds) / attempts, "fraction");
  // Section 4.5.3's model at this point, with this GPU's probed constants and with the chapter's
  // GTX 480 ones, beside each one's upper bound 1 / T_uncoalesced: the figures draw these rows
  // (plots/cuckoo.py keeps no copy of the model).
  const CostModel model = model_of(ctx);
  const CostModel chapter;  // T_uncoalesced = 1.5 ns, T_coalesced = 0.05 ns (GTX 480)
  const double n = static_cast<double>(pt.n), m = table.table_size();
  ctx.report_value("model_build_time", model.construction_ms(n, m), "ms");
  ctx.report_value("model_build_rate", model.construction_rate_gpairs(n, m), "Gpairs/s");
  ctx.report_value("model_upper_bound", model.upper_bound_gpairs(), "Gpairs/s");
  ctx.report_value("model_build_rate_gtx480", chapter.construction_rate_gpairs(n, m), "Gpairs/s");
  ctx.report_value("model_upper_bound_gtx480", chapter.upper_bound_gpairs(), "Gpairs/s");
  ctx.report_value("model_updates_per_pair", CostModel::expected_updates(n, m) / n, "count");
  // The model's assumption, measured: atomicExch calls per pair (an instrumented, untimed build).
  CuckooConfig counting = config;
  counting.count_evictions = true;
  CuckooHashTable counted(counting);
  counted.build(p.keys.data(), p.values.data(), pt.n, ctx.stream());
  ctx.report_value("updates_per_pair", static_cast<double>(counted.stats().exchanges) / n, "count");
  // Section 4.2: the median chain ("one or two" in the chapter), with its mean and maximum.
  report_chains(ctx, counted.stats().chains());
  // Section 4.3.1.1: "bigger tables ... reduce the average number of probes required to retrieve
  // an item": the probes a lookup of every inserted key makes, on the timed table.
  ctx.report_value("probes_per_query", mean_probes(table, p.keys.data(), pt.n, ctx.stream()), "count");
  DeviceBuffer<std::uint32_t> found(pt.n, ctx.stream());
  found.fill_bytes(0, ctx.stream());
  table.find(p.keys.data(), pt.n, found.data(), ctx.stream());
  verify_all_found(ctx, found, p);
}

}  // namespace

harness::Experiment fig4_7_experiment() {
  harness::Experiment e = make_experiment(
      "cuckoo", "fig4_7", "Fig. 4.7 (right)",
      "construction rate vs space: table size 1.05N..5N (4 functions) beside the cost model -m ln(1-N/m) T_unc + "
      "(m+N) T_coal",
      {"cuckoo"},
      [](const RunOptions& o, const Variants& v) {
        const std::vector<double> quick = {1.05, 1.1, 1.25, 1.42, 1.75, 2, 3, 4, 4.5, 5};
        const std::vector<double> full = {1.05, 1.1, 1.15, 1.2, 1.25, 1.3, 1.42, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5};
        return sweep(v, {o.pick_size(1u << 24, k32M)}, "space_factor", o.full() ? full : quick);
      },
      run_fig4_7);
  e.needs_limits = true;  // the cost model's (or the copy's) rates: the runner finds them once
  return e;
}

}  // namespace hashlab::cuckoo::experiments
