// The shared input, verification and variants of the SP-EGA experiments (sp_inputs.cuh).
#include "sp_inputs.cuh"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "hashlab/baselines/groupby.hpp"
#include "hashlab/ega/sp_ega.hpp"

namespace hashlab::ega::experiments {
namespace {

// The device memory an algorithm holds at its peak: the high-water mark of the default memory pool
// (where every DeviceBuffer lives, CUB's scratch included) above its use when this is constructed.
class PoolPeak {
 public:
  double mebibytes() const { return static_cast<double>(scope_.added()) / (1 << 20); }

 private:
  DevicePeakScope scope_;
};

// One untimed run with the counting kernels (4.1.6's probing distance, SpEga::run_counted): the
// probe steps and atomics per input pair, and the device memory the algorithm held at its peak
// (its buffers built in this run, so that the peak covers them). The counted run's group count
// is checked; the timed runs' output is verified in full afterwards.
template <class Algorithm>
std::unique_ptr<Algorithm> build_and_count(PointContext& ctx, SpInput& in) {
  const std::size_t n = ctx.point().n;
  const cudaStream_t stream = ctx.stream();
  PoolPeak peak;
  auto algorithm = std::make_unique<Algorithm>(n, stream);
  algorithm->load(in.keys.data(), in.values.data(), n, kOp, stream);
  WorkCounts work;
  const Groups counted = algorithm->run_counted(n, kOp, stream, work);
  HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  ctx.report_value("device_memory", peak.mebibytes(), "MiB");
  const double pairs = std::max<double>(1, static_cast<double>(n));
  ctx.report_value("probe_steps_per_pair", static_cast<double>(work.probe_steps) / pairs, "slots");
  ctx.report_value("atomics_per_pair", static_cast<double>(work.atomics) / pairs, "atomics");
  ctx.report_value("table_accesses_per_pair", static_cast<double>(work.table_accesses) / pairs, "lookups");
  ctx.verify(counted.count == in.expected.groups(),
             "the counted run found " + std::to_string(counted.count) + " groups, expected " +
                 std::to_string(in.expected.groups()));
  return algorithm;
}

}  // namespace

SpInput& sp_input(PointContext& ctx, const gen::KeySpec& spec) {
  const std::uint64_t n = ctx.point().n;
  note_oracle(ctx, n);
  return ctx.cached<SpInput>("sp:" + std::to_string(n) + ":" + spec.describe(), [&] {
    ctx.drop_cached("sp:");
    gen::validate(spec, n);
    SpInput in;
    in.keys = DeviceBuffer<std::uint32_t>(n, ctx.stream());
    in.values = DeviceBuffer<std::uint32_t>(n, ctx.stream());
    gen::generate_keys(spec, ctx.seed(), in.keys.data(), n, ctx.stream());
    gen::generate_values<std::uint32_t>(ctx.seed() + 1, 0, 1000000, in.values.data(), n, ctx.stream());
    in.expected = oracle(in.keys.to_host(ctx.stream()), in.values.to_host(ctx.stream()));
    return in;
  });
}

void run_sp_variant(PointContext& ctx, SpInput& in) {
  const Point& p = ctx.point();
  const std::size_t n = p.n;
  const cudaStream_t stream = ctx.stream();
  const double groups = static_cast<double>(in.expected.groups());
  ctx.report_value("load_factor_measured", groups / std::max<double>(1, n), "groups/L");
  if (p.variant == "sp_ega") {
    auto owned = build_and_count<SpEga>(ctx, in);
    SpEga& ega = *owned;
    Groups out;
    const auto t = ctx.time_gpu([&](cudaStream_t s) { out = ega.run(n, kOp, s); },
                                [&](cudaStream_t s) { ega.load(in.keys.data(), in.values.data(), n, kOp, s); });
    ctx.report_time("groupby", t, static_cast<double>(n), "rows");
    const auto& c = ega.last_counts();
    ctx.report_value("phase1_hashed_pairs", 1.0 - static_cast<double>(c.unhashed_pairs) / std::max<double>(1, n), "fraction");
    ctx.report_value("phase4_load_factor", static_cast<double>(c.probe_table_groups) / std::max<double>(1, n), "groups/L");
    verify_groups(ctx, in.expected, out.to_reference(kOp, stream));
  } else if (p.variant == "lphga") {
    auto owned = build_and_count<Lphga>(ctx, in);
    Lphga& lphga = *owned;
    Groups out;
    const auto t = ctx.time_gpu([&](cudaStream_t s) { out = lphga.run(n, kOp, s); },
                                [&](cudaStream_t s) { lphga.load(in.keys.data(), in.values.data(), n, kOp, s); });
    ctx.report_time("groupby", t, static_cast<double>(n), "rows");
    verify_groups(ctx, in.expected, out.to_reference(kOp, stream));
  } else {  // sort: CUB radix sort + reduce-by-key (common/baselines)
    baseline::DeviceGroups out;
    const auto t = ctx.time_gpu(
        [&](cudaStream_t s) { out = baseline::sort_groupby(in.keys.data(), in.values.data(), n, kOp, s); });
    ctx.report_time("groupby", t, static_cast<double>(n), "rows");
    verify_groups(ctx, in.expected, out.to_reference(kOp, stream));
  }
}

void run_sp_groups(PointContext& ctx) {
  const auto& p = ctx.point();
  run_sp_variant(ctx, sp_input(ctx, gen::KeySpec::uniform(static_cast<std::uint64_t>(std::llround(p.param_value)))));
}

std::uint64_t sp_n(const RunOptions& o) { return o.pick_size(5000000, 100000000); }

}  // namespace hashlab::ega::experiments
