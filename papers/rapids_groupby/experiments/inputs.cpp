// The shared inputs and helpers of the rapids_groupby experiments (inputs.cuh).
#include "inputs.cuh"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "hashlab/common/generator.hpp"
#include "hashlab/reference/cpu_baselines.hpp"

namespace hashlab::rapids::experiments {

// The report's configuration (sections 4 and 5): 2 key columns, 3 value columns, {sum, sum, min}.
const std::vector<Aggregation> kReportOps = {Aggregation::kSum, Aggregation::kSum, Aggregation::kMin};

namespace {

ReportDataset make_dataset(std::size_t rows, std::uint64_t unique, int key_columns, const std::vector<Aggregation>& ops,
                           std::uint64_t seed, cudaStream_t stream) {
  ReportDataset d;
  d.rows = rows;
  d.key_columns = key_columns;
  d.value_columns = static_cast<int>(ops.size());
  d.ops = ops;
  d.keys = DeviceBuffer<std::uint32_t>(rows * key_columns, stream);
  d.values = DeviceBuffer<std::int32_t>(rows * ops.size(), stream);
  gen::generate_key_columns(gen::KeySpec::uniform(unique), seed, key_columns, d.keys.data(), rows, stream);
  for (std::size_t v = 0; v < ops.size(); ++v)
    gen::generate_values<std::int32_t>(seed + 1 + v, 0, kValueMax, d.values.data() + v * rows, rows, stream);
  d.host_keys = d.keys.to_host(stream);
  d.host_values = d.values.to_host(stream);
  d.split_host_columns();
  // The checks' answer: the reference up to cpu::kOracleReferenceRows rows; above, the same
  // group-by sorted on all cores (the reference is the timed cpu_stl itself, seconds a run).
  d.expected_is_reference = rows <= cpu::kOracleReferenceRows;
  d.expected = d.expected_is_reference ? d.cpu_groupby()
                                       : reference::sorted_groupby(d.key_columns_host, d.value_columns_host, ops);
  return d;
}

}  // namespace

ReportDataset& dataset(PointContext& ctx, std::size_t rows, std::uint64_t unique, int key_columns,
                 const std::vector<Aggregation>& ops) {
  std::string key = "data:" + std::to_string(rows) + ":" + std::to_string(unique) + ":" + std::to_string(key_columns);
  for (Aggregation op : ops) key += std::string(":") + reference::to_string(op);
  if (rows > cpu::kOracleReferenceRows)
    ctx.note("oracle: the sort-based multi-threaded group-by (reference::sorted_groupby, equal to the reference)");
  return ctx.cached<ReportDataset>(key, [&] {
    ctx.drop_cached("data:");
    return make_dataset(rows, unique, key_columns, ops, ctx.seed(), ctx.stream());
  });
}

std::string difference_from_reference(const ReportDataset& d, const reference::GroupByResult& got) {
  return reference::compare(d.expected, got, 1e-9);
}

void verify_against(PointContext& ctx, const ReportDataset& d, const reference::GroupByResult& got) {
  const std::string diff = difference_from_reference(d, got);
  ctx.verify(diff.empty(), diff);
}

double mean_of(const std::vector<double>& x) {
  return x.empty() ? 0.0 : std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(x.size());
}

double sd_of(const std::vector<double>& x) {
  if (x.size() < 2) return 0.0;
  const double m = mean_of(x);
  double var = 0;
  for (double v : x) var += (v - m) * (v - m) / static_cast<double>(x.size() - 1);
  return std::sqrt(var);
}

// ---- the copies the report's times include ---------------------------------------------------

Staging& staged(ReportDataset& d, cudaStream_t stream) {
  if (!d.staging) {
    auto s = std::make_shared<Staging>();
    s->keys = PinnedBuffer<std::uint32_t>(d.host_keys.size());
    s->values = PinnedBuffer<std::int32_t>(d.host_values.size());
    std::copy(d.host_keys.begin(), d.host_keys.end(), s->keys.begin());
    std::copy(d.host_values.begin(), d.host_values.end(), s->values.begin());
    s->device_keys = DeviceBuffer<std::uint32_t>(d.host_keys.size(), stream);
    s->device_values = DeviceBuffer<std::int32_t>(d.host_values.size(), stream);
    const std::size_t groups = d.expected.groups();
    s->out_keys = PinnedBuffer<std::uint32_t>(groups * static_cast<std::size_t>(d.key_columns));
    s->out_exact = PinnedBuffer<std::int64_t>(groups * d.ops.size());
    s->out_real = PinnedBuffer<double>(groups * d.ops.size());
    d.staging = std::move(s);
  }
  return *d.staging;
}

bool copy_groups_to_host(const DeviceGroups& out, Staging& s, cudaStream_t stream) {
  const std::size_t g = out.groups;
  if (g * static_cast<std::size_t>(out.key_columns) > s.out_keys.size() || g * out.columns.size() > s.out_exact.size() ||
      out.keys.size() < g * static_cast<std::size_t>(out.key_columns))
    return false;
  if (g == 0) return true;
  HASHLAB_CUDA_CHECK(cudaMemcpyAsync(s.out_keys.data(), out.keys.data(), g * out.key_columns * sizeof(std::uint32_t),
                                     cudaMemcpyDeviceToHost, stream));
  for (std::size_t v = 0; v < out.columns.size(); ++v) {
    const OutputColumn& col = out.columns[v];
    if (!col.exact.empty()) {
      if (col.exact.size() < g) return false;
      HASHLAB_CUDA_CHECK(cudaMemcpyAsync(s.out_exact.data() + v * g, col.exact.data(), g * sizeof(std::int64_t),
                                         cudaMemcpyDeviceToHost, stream));
    } else if (!col.real.empty()) {
      if (col.real.size() < g) return false;
      HASHLAB_CUDA_CHECK(cudaMemcpyAsync(s.out_real.data() + v * g, col.real.data(), g * sizeof(double),
                                         cudaMemcpyDeviceToHost, stream));
    }
  }
  return true;
}

reference::GroupByResult host_groups(const DeviceGroups& out, const Staging& s) {
  reference::GroupByResult result;
  const std::size_t g = out.groups;
  result.keys.resize(out.key_columns);
  for (int c = 0; c < out.key_columns; ++c)
    result.keys[c].assign(s.out_keys.data() + c * g, s.out_keys.data() + (c + 1) * g);
  for (std::size_t v = 0; v < out.columns.size(); ++v) {
    reference::AggregateColumn a;
    a.op = out.columns[v].op;
    if (!out.columns[v].exact.empty()) a.exact.assign(s.out_exact.data() + v * g, s.out_exact.data() + (v + 1) * g);
    else if (!out.columns[v].real.empty()) a.real.assign(s.out_real.data() + v * g, s.out_real.data() + (v + 1) * g);
    result.aggregates.push_back(std::move(a));
  }
  result.sort_by_key();
  return result;
}

void report_phases(PointContext& ctx, const ReportDataset& d, HashGroupBy& groupby, const GroupByOptions& opt) {
  const std::vector<PhaseTiming> phases = ctx.time_phases([&](PhaseTimer& timer, cudaStream_t s) {
    const DeviceGroups phased = groupby.aggregate(d.input(), d.ops, opt, s, &timer);
    verify_against(ctx, d, phased.to_reference(s));  // every run, after its phases ended
  });
  const auto timing = [&phases](const std::string& name) {
    for (const PhaseTiming& p : phases)
      if (p.name == name) return p.timing;
    throw std::logic_error("report_phases: the group-by marked no phase '" + name + "'");
  };
  // Rates per item each phase handles: sampled pairs or triples, input rows, groups (the same in
  // every run: the samplers are seeded).
  ctx.report_time("predict_phase", timing("predict"), static_cast<double>(groupby.stats().sample.trials), "trials");
  ctx.report_time("fill_phase", timing("fill"), static_cast<double>(d.rows), "rows");
  ctx.report_time("extract_phase", timing("extract"), static_cast<double>(groupby.stats().groups), "groups");
}

void report_stats(PointContext& ctx, const GroupByStats& s, std::uint64_t true_cardinality) {
  ctx.report_value("relaunches", s.relaunches, "count");
  ctx.report_value("initial_table_size", static_cast<double>(s.initial_table_size), "slots");
  ctx.report_value("table_size", static_cast<double>(s.table_size), "slots");
  ctx.report_value("true_cardinality", static_cast<double>(true_cardinality), "groups");
  if (s.predicted_cardinality > 0) {
    ctx.report_value("predicted_cardinality", s.predicted_cardinality, "groups");
    ctx.report_value("sample_trials", static_cast<double>(s.sample.trials), "count");
    ctx.report_value("sample_equal_pairs", static_cast<double>(s.sample.equal_pairs), "count");
  }
}

void run_variant(PointContext& ctx, ReportDataset& d, const std::string& variant, double unique, bool with_copies) {
  const double rows = static_cast<double>(d.rows);
  if (variant == "cpu_stl") {
    reference::GroupByResult got;
    const auto t = ctx.time_host([&] { got = d.cpu_groupby(); });
    ctx.report_time("groupby", t, rows, "rows");
    if (d.expected_is_reference) {  // cpu_stl is the reference: checked against the sort-based group-by
      ctx.note("checked against reference::sorted_groupby (cpu_stl is the reference's algorithm)");
      const auto sorted = reference::sorted_groupby(d.key_columns_host, d.value_columns_host, d.ops);
      const std::string diff = reference::compare(sorted, got, 1e-9);
      ctx.verify(diff.empty(), diff);
    } else {
      verify_against(ctx, d, got);
    }
    return;
  }
  if (variant == "sort_thrust") {
    DeviceGroups out;
    const auto t = ctx.time_gpu([&](cudaStream_t s) { out = sort_groupby(d.input(), d.ops, s); });
    ctx.report_time("groupby", t, rows, "rows");
    verify_against(ctx, d, out.to_reference(ctx.stream()));
    if (with_copies)
      time_with_copies(ctx, d, [&](const GroupByInput<std::int32_t>& in, cudaStream_t s) {
        return sort_groupby(in, d.ops, s);
      });
    return;
  }
  GroupByOptions opt;
  opt.seed = ctx.seed();
  if (variant == "hash_cpu_sampling") {
    opt.sampling = Sampling::kCpu;
  } else if (variant == "hash_gpu_sampling") {
    opt.sampling = Sampling::kGpu;
  } else {  // hash_<factor>x: a fixed table of factor x the unique keys (Fig. 3), full tables allowed
    const double factor = std::stod(variant.substr(5, variant.size() - 6));
    opt.sampling = Sampling::kNone;
    opt.table_size = static_cast<std::size_t>(std::ceil(factor * unique));
    opt.relaunch_load = 1.0;
  }
  HashGroupBy groupby;
  DeviceGroups out;
  const auto t = ctx.time_gpu([&](cudaStream_t s) { out = groupby.aggregate(d.input(), d.ops, opt, s); });
  ctx.report_time("groupby", t, rows, "rows");
  report_stats(ctx, groupby.stats(), d.expected.groups());
  verify_against(ctx, d, out.to_reference(ctx.stream()));
  if (opt.sampling != Sampling::kNone) {
    // The prediction's share (Fig. 4's "overhead to do key sampling"): the phases, timed in
    // runs of their own (time_phases: warm-ups, then the repetitions).
    report_phases(ctx, d, groupby, opt);
    if (with_copies)
      time_with_copies(ctx, d, [&](const GroupByInput<std::int32_t>& in, cudaStream_t s) {
        return groupby.aggregate(in, d.ops, opt, s);
      });
  }
  if (opt.sampling == Sampling::kNone) {
    // Fig. 3b: the instrumented fillTable on the same table, untimed.
    opt.count_probes = true;
    const DeviceGroups counted = groupby.aggregate(d.input(), d.ops, opt, ctx.stream());
    ctx.report_value("probe_steps", static_cast<double>(groupby.stats().probe_steps), "count");
    ctx.report_value("probe_steps_per_row", static_cast<double>(groupby.stats().probe_steps) / rows, "count");
    verify_against(ctx, d, counted.to_reference(ctx.stream()));
  }
}

}  // namespace hashlab::rapids::experiments
