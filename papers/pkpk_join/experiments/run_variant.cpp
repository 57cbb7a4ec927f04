// One variant on one pair of tables (run_variant.cuh).
#include "run_variant.cuh"

#include <functional>
#include <string>
#include <vector>

#include "hashlab/common/threads.hpp"
#include "hashlab/pkpk_join/crystal_join.hpp"

namespace hashlab::pkpk::experiments {
namespace {

void report_bucket_skew(PointContext& ctx, const BspTrace& trace) {
  ctx.report_value("partitions", trace.partitions, "count");
  ctx.report_value("max_bucket", static_cast<double>(trace.max_bucket), "rows");
  ctx.report_value("mean_bucket", trace.mean_bucket, "rows");
  ctx.report_value("bucket_skew", static_cast<double>(trace.max_bucket) / trace.mean_bucket, "max/mean");
}

/// Per-kernel medians over the profiled runs of `join` (PointContext::time_phases: warm-ups, then
/// as many runs as the point has repetitions): "kernel_<step>_time" and "kernel_<step>_rate" rows,
/// the rate in what the step itself processed (PhaseTime::items: input rows for the steps that
/// pass over the data; samples, splitters or counts for those that never touch it), and
/// "kernel_sum_time", the sum of the steps' medians.
void report_kernels(PointContext& ctx, const std::function<void(cudaStream_t, PhaseTimer*)>& join) {
  const auto steps = ctx.time_phases([&](PhaseTimer& phases, cudaStream_t s) { join(s, &phases); });
  double total = 0;
  for (const auto& step : steps) {
    total += step.timing.median_ms;
    ctx.report_time("kernel_" + step.name, step.timing, step.items, step.unit);
  }
  ctx.report_value("kernel_sum_time", total, "ms");
}

/// The device memory `call` holds at its peak beyond what was in use before it (the inputs): the
/// high-water mark of the default pool's used memory, which every DeviceBuffer (and every cub
/// temporary of the joins) allocates from. Synchronises `stream` before and after.
double peak_device_bytes(cudaStream_t stream, const std::function<void()>& call) {
  HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  const DevicePeakScope scope;
  call();
  HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return static_cast<double>(scope.added());
}

/// Variant "h2d_pinned": the host-to-device copy of both tables (keys and values) from pinned
/// memory, the copy the report's nvprof table is 97% of. Timed like a join; verified by copying
/// the four device columns back and comparing them with the host tables. The untimed fill and
/// comparison run on all cores (four columns of up to 2 x 10^8 words).
void run_h2d_copy(PointContext& ctx, Input& in) {
  cudaStream_t st = ctx.stream();
  const std::vector<const Keys*> host = {&in.host_r_keys, &in.host_r_values, &in.host_s_keys, &in.host_s_values};
  std::vector<PinnedBuffer<std::uint32_t>> pinned;
  std::vector<DeviceBuffer<std::uint32_t>> device;
  pinned.reserve(host.size());
  device.reserve(host.size());
  double bytes = 0;
  for (const Keys* column : host) {
    pinned.emplace_back(column->size());
    std::uint32_t* to = pinned.back().data();
    cpu::parallel_for(column->size(), cpu::threads_for_items(column->size()),
                      [&](std::size_t i) { to[i] = (*column)[i]; });
    device.emplace_back(column->size(), st);
    bytes += static_cast<double>(column->size() * sizeof(std::uint32_t));
  }
  const auto t = ctx.time_gpu([&](cudaStream_t s) {
    for (std::size_t c = 0; c < host.size(); ++c) device[c].copy_from_host(pinned[c].data(), pinned[c].size(), s);
  });
  ctx.report_time("copy", t, bytes, "B");  // copy_rate in GB/s
  ctx.report_value("copy_bytes", bytes, "bytes");
  bool same = true;
  for (std::size_t c = 0; c < host.size() && same; ++c) {
    const Keys copied = device[c].to_host(st);
    const Keys& original = *host[c];
    same = copied.size() == original.size() &&
           cpu::first_index_where(copied.size(), [&](std::size_t i) { return copied[i] != original[i]; }) ==
               copied.size();
  }
  ctx.verify(same, "the copied columns differ from the host tables");
}

/// Variants "crystal" and "crystal_dense": Crystal's join (crystal_join.hpp) with its table sized
/// for R's key range, found once per input (untimed: Crystal's driver is handed its table size).
/// Where that range is more than Crystal's table can hold (its premise), the point is skipped,
/// saying so. Timed like the other joins; verified twice: Crystal's answer (the sum of value1 x
/// value2 over the matches) against the oracle's rows, and the rows of one more probe of the same
/// table (crystal_join_rows, untimed) against the oracle's.
void run_crystal(PointContext& ctx, Input& in, bool profile) {
  const KeyRange range = key_range(in.host_r_keys);
  if (const std::string why = crystal_premise_violation(range); !why.empty())
    throw harness::SkipPoint("Crystal's join does not apply: " + why);
  cudaStream_t st = ctx.stream();
  const auto join = [&](cudaStream_t s, PhaseTimer* phases) { return crystal_join(in.r(), in.s(), range, s, phases); };
  CrystalJoinResult result;
  const auto t = ctx.time_gpu([&](cudaStream_t s) { result = join(s, nullptr); });
  result = CrystalJoinResult{};
  ctx.report_value("peak_device_bytes", peak_device_bytes(st, [&] { result = join(st, nullptr); }), "bytes");
  ctx.report_time("join", t, static_cast<double>(in.spec.r_rows + in.spec.s_rows), "rows");
  ctx.report_value("table_slots", static_cast<double>(range.keys()), "slots");
  if (profile) report_kernels(ctx, join);
  const std::uint64_t sum = result.read(st);
  ctx.verify(sum == crystal_sum(in.expected), "Crystal's answer, the sum of value1 x value2 over the matches, " +
                                                  std::to_string(sum) + ", differs from the oracle's " +
                                                  std::to_string(crystal_sum(in.expected)));
  const JoinedRows rows = crystal_join_rows(in.r(), in.s(), range, st);
  ctx.report_value("rows_out", static_cast<double>(rows.size), "rows");
  ctx.note("Crystal's answer (the sum of value1 x value2 over the matches) and the rows of one more probe of its "
           "table checked");
  verify_rows(ctx, in, rows.to_host(st), true);
}

}  // namespace

/// The tables Crystal's own driver joins (src/ops/join.cu with its generator): R's keys |R| dense
/// values in random order, S's keys a random permutation of them, so every row of S matches.
/// Ours are 0 .. n - 1 (Crystal's 1 .. n).
gen::PkPkSpec crystal_dense_spec(std::uint64_t n) { return {n, n, n, 1.0}; }

/// One variant on one pair of tables: time, verify, and for BSP the bucket skew.
void run_variant(PointContext& ctx, const gen::PkPkSpec& spec, const BspOptions& bsp_options,
                 bool profile) {
  const Point& p = ctx.point();
  if (p.variant == "crystal_dense") {  // its own tables, not the point's
    run_crystal(ctx, input_for(ctx, crystal_dense_spec(spec.r_rows)), profile);
    return;
  }
  Input& in = input_for(ctx, spec);
  const double rows = static_cast<double>(spec.r_rows + spec.s_rows);
  cudaStream_t st = ctx.stream();
  if (p.variant == "cpu") {
    std::vector<JoinedRow> got;
    const auto t = ctx.time_host(
        [&] { got = cpu_join(in.host_r_keys, in.host_r_values, in.host_s_keys, in.host_s_values); });
    ctx.report_time("join", t, rows, "rows");
    ctx.report_value("rows_out", static_cast<double>(got.size()), "rows");
    verify_rows(ctx, in, std::move(got), true);
    return;
  }
  if (p.variant == "h2d_pinned") {
    run_h2d_copy(ctx, in);
    return;
  }
  if (p.variant == "crystal") {
    run_crystal(ctx, in, profile);
    return;
  }

  // The GPU join of this variant; with a PhaseTimer it marks its steps, without one (the timed
  // runs) it records no event.
  const bool bsp = p.variant == "bsp" || p.variant == "bsp_atomic";
  BspOptions options = bsp_options;
  options.atomic_scatter = p.variant == "bsp_atomic";
  std::function<JoinedRows(cudaStream_t, PhaseTimer*)> join;
  if (bsp)
    join = [&](cudaStream_t s, PhaseTimer* phases) { return bsp_join(in.r(), in.s(), s, options, nullptr, phases); };
  else if (p.variant == "sort_join")
    join = [&](cudaStream_t s, PhaseTimer* phases) { return sort_join(in.r(), in.s(), s, phases); };
  else if (p.variant == "sort_join_hmap")
    join = [&](cudaStream_t s, PhaseTimer* phases) {
      return hmap_sort_join(in.r(), in.s(), spec.key_domain, s, phases);
    };
  else
    join = [&](cudaStream_t s, PhaseTimer* phases) { return hash_join(in.r(), in.s(), s, phases); };

  JoinedRows out;
  const auto t = ctx.time_gpu([&](cudaStream_t s) { out = join(s, nullptr); });
  // The join's own device memory at its peak (scratch and output, not the input tables), from one
  // more untimed run; `out` from the timed runs is released first so that it is not counted. The
  // rows of this run are the ones verified.
  out = JoinedRows{};
  ctx.report_value("peak_device_bytes", peak_device_bytes(st, [&] { out = join(st, nullptr); }), "bytes");
  if (bsp) {  // the buckets of one traced, untimed run
    BspTrace trace;
    bsp_join(in.r(), in.s(), st, options, &trace);
    report_bucket_skew(ctx, trace);
  }
  ctx.report_time("join", t, rows, "rows");
  ctx.report_value("rows_out", static_cast<double>(out.size), "rows");
  if (profile) report_kernels(ctx, join);
  verify_rows(ctx, in, out.to_host(st), p.variant == "hash_join");
}

}  // namespace hashlab::pkpk::experiments
