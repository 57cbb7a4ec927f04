// The shared input, verification and variants of the SP-EGA experiments (sp_inputs.cuh).
#include "sp_inputs.cuh"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
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

namespace {

// SP-EGA or LPHGA on L = n: the counted run first (build_and_count), then the timed runs, each
// after the input's load into red (untimed: in the paper the pairs lie in red).
template <class Algorithm>
void run_ega(PointContext& ctx, SpInput& in) {
  const std::size_t n = ctx.point().n;
  auto algorithm = build_and_count<Algorithm>(ctx, in);
  Groups out;
  const auto t = ctx.time_gpu([&](cudaStream_t s) { out = algorithm->run(n, kOp, s); },
                              [&](cudaStream_t s) { algorithm->load(in.keys.data(), in.values.data(), n, kOp, s); });
  ctx.report_time("groupby", t, static_cast<double>(n), "rows");
  if constexpr (std::is_same_v<Algorithm, SpEga>) {
    const auto& c = algorithm->last_counts();
    ctx.report_value("phase1_hashed_pairs", 1.0 - static_cast<double>(c.unhashed_pairs) / std::max<double>(1, n), "fraction");
    ctx.report_value("phase4_load_factor", static_cast<double>(c.probe_table_groups) / std::max<double>(1, n), "groups/L");
  }
  verify_groups(ctx, in.expected, out.to_reference(kOp, ctx.stream()));
}

// The sort-based group-by (CUB radix sort + reduce-by-key, baselines/).
void run_sort(PointContext& ctx, SpInput& in) {
  const std::size_t n = ctx.point().n;
  baseline::DeviceGroups out;
  const auto t = ctx.time_gpu(
      [&](cudaStream_t s) { out = baseline::sort_groupby(in.keys.data(), in.values.data(), n, kOp, s); });
  ctx.report_time("groupby", t, static_cast<double>(n), "rows");
  verify_groups(ctx, in.expected, out.to_reference(kOp, ctx.stream()));
}

/// The SP-EGA experiments' variants, each with its run: the one place that names them.
struct SpVariant {
  const char* name;
  void (*run)(PointContext&, SpInput&);
};
constexpr SpVariant kSpVariants[] = {{"sp_ega", run_ega<SpEga>}, {"lphga", run_ega<Lphga>}, {"sort", run_sort}};

}  // namespace

Variants sp_variants() {
  Variants names;
  for (const auto& v : kSpVariants) names.push_back(v.name);
  return names;
}

void run_sp_variant(PointContext& ctx, SpInput& in) {
  const Point& p = ctx.point();
  const double groups = static_cast<double>(in.expected.groups());
  ctx.report_value("load_factor_measured", groups / std::max<double>(1, p.n), "groups/L");
  for (const auto& v : kSpVariants)
    if (p.variant == v.name) return v.run(ctx, in);
  throw std::invalid_argument("ega: no SP-EGA variant '" + p.variant + "'");
}

void run_sp_groups(PointContext& ctx) {
  const auto& p = ctx.point();
  run_sp_variant(ctx, sp_input(ctx, gen::KeySpec::uniform(static_cast<std::uint64_t>(std::llround(p.param_value)))));
}

std::uint64_t sp_n(const RunOptions& o) { return o.pick_size(5000000, 100000000); }

}  // namespace hashlab::ega::experiments
