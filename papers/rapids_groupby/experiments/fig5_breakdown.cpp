// Fig. 5: 100M rows (both profiles), 10K keys: H2D copy, prediction, fillTable, extraction, D2H
// copy; the whole group-by beside sort-based; a histogram of the whole input as the prediction.
#include "experiments.hpp"
#include "hashlab/common/memory.hpp"
#include "inputs.cuh"

namespace hashlab::rapids::experiments {
namespace {

// Section 5: "there are ways to predict the hash table size in other ways like histogramming the
// entire input space but this would incur larger overheads". The histogram of every key tuple,
// built with the group-by's own table at the only size that is safe without a prediction (2.6 x
// the rows, the report's factor applied to the largest possible N): a count per group, whose
// number of groups is the exact N. Timed whole (table, fill, used-slot search), as
// `predict_phase_time` beside the samplers' predictions.
void run_histogram_prediction(PointContext& ctx, ReportDataset& d) {
  const double rows = static_cast<double>(d.rows);
  GroupByInput<std::int32_t> in = d.input();
  in.value_columns = 1;  // a count needs a column; its values are not read
  GroupByOptions opt;
  opt.sampling = Sampling::kNone;
  opt.table_size = table_size_for(rows);
  HashGroupBy groupby;
  DeviceGroups out;
  const auto t = ctx.time_gpu([&](cudaStream_t s) { out = groupby.aggregate(in, {Aggregation::kCount}, opt, s); });
  ctx.report_time("predict_phase", t, rows, "rows");
  ctx.report_value("predicted_cardinality", static_cast<double>(out.groups), "groups");
  ctx.report_value("table_size", static_cast<double>(groupby.stats().table_size), "slots");
  ctx.report_value("relaunches", groupby.stats().relaunches, "count");
  // The histogram's product is the set of key tuples and their counts: the keys must be the
  // reference's groups exactly, and the counts must add up to the rows.
  const reference::GroupByResult got = out.to_reference(ctx.stream());
  std::int64_t counted = 0;
  for (std::int64_t c : got.aggregates.at(0).exact) counted += c;
  ctx.verify(got.keys == d.expected.keys, "the histogram's key tuples differ from the reference's groups");
  ctx.verify(counted == static_cast<std::int64_t>(d.rows),
             "the histogram counts " + std::to_string(counted) + " rows of " + std::to_string(d.rows));
}

void run_fig5(PointContext& ctx) {
  const Point& p = ctx.point();
  constexpr std::uint64_t kUnique = 10000;  // section 5
  ReportDataset& d = dataset(ctx, p.n, kUnique, kKeyColumns, kReportOps);
  const double rows = static_cast<double>(p.n);
  if (p.variant == "sort_thrust") {
    run_variant(ctx, d, p.variant, kUnique, /*with_copies=*/true);
    return;
  }
  if (p.variant == "histogram_prediction") {
    run_histogram_prediction(ctx, d);
    return;
  }
  GroupByOptions opt;
  opt.seed = ctx.seed();
  opt.sampling = p.variant == "hash_cpu_sampling" ? Sampling::kCpu : Sampling::kGpu;
  HashGroupBy groupby;
  DeviceGroups out;
  // The whole group-by with the data already on the GPU (the 20 ms bar).
  const auto whole = ctx.time_gpu([&](cudaStream_t s) { out = groupby.aggregate(d.input(), d.ops, opt, s); });
  ctx.report_time("groupby", whole, rows, "rows");
  report_stats(ctx, groupby.stats(), d.expected.groups());
  verify_against(ctx, d, out.to_reference(ctx.stream()));
  // The report's GPU time (268.7 ms): the same call from pinned host input to host output.
  time_with_copies(ctx, d, [&](const GroupByInput<std::int32_t>& in, cudaStream_t s) {
    return groupby.aggregate(in, d.ops, opt, s);
  });

  // The phases, as nvprof showed them: H2D copy of the input (pinned), prediction, fillTable,
  // extraction, D2H copy of the result.
  // The copy alone, between the staging's pinned and device buffers (those of the timing with
  // the copies above).
  Staging& staging = staged(d, ctx.stream());
  const auto h2d = ctx.time_gpu([&](cudaStream_t s) {
    staging.device_keys.copy_from_host(staging.keys.data(), staging.keys.size(), s);
    staging.device_values.copy_from_host(staging.values.data(), staging.values.size(), s);
  });
  ctx.report_time("h2d", h2d, rows, "rows");
  ctx.verify(staging.device_keys.to_host(ctx.stream()) == d.host_keys &&
                 staging.device_values.to_host(ctx.stream()) == d.host_values,
             "the host-to-device copy differs from the input");

  report_phases(ctx, d, groupby, opt);
  out = groupby.aggregate(d.input(), d.ops, opt, ctx.stream());

  PinnedBuffer<std::uint32_t> out_keys(out.keys.size());
  PinnedBuffer<std::int64_t> out_exact(out.groups * out.columns.size());
  const auto d2h = ctx.time_gpu([&](cudaStream_t s) {
    if (out.groups == 0) return;
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(out_keys.data(), out.keys.data(), out.keys.bytes(), cudaMemcpyDeviceToHost, s));
    for (std::size_t v = 0; v < out.columns.size(); ++v)
      HASHLAB_CUDA_CHECK(cudaMemcpyAsync(out_exact.data() + v * out.groups, out.columns[v].exact.data(),
                                         out.columns[v].exact.bytes(), cudaMemcpyDeviceToHost, s));
  });
  ctx.report_time("d2h", d2h, static_cast<double>(out.groups), "groups");
  verify_against(ctx, d, out.to_reference(ctx.stream()));
}

}  // namespace

harness::Experiment fig5_breakdown() {
  return make_experiment(
      "rapids_groupby", "fig5_breakdown", "Fig. 5",
      "time of each phase: 100M rows, 10K keys, 2 key / 3 value columns; whole group-by (with and without the "
      "copies) vs sort-based; a histogram of the whole input as the prediction",
      {"hash_gpu_sampling", "hash_cpu_sampling", "sort_thrust", "histogram_prediction"},
      [](const RunOptions& o, const Variants& v) { return sweep(v, {o.pick_size(100000000, 100000000)}); }, run_fig5);
}

}  // namespace hashlab::rapids::experiments
