// Fig. 2: the device time of each phase of SP-EGA (5) and LPHGA (3), uniform keys, L = n.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "experiments.hpp"
#include "hashlab/ega/sp_ega.hpp"
#include "sp_inputs.cuh"

namespace hashlab::ega::experiments {
namespace {

// Per-phase device times (CUDA events between phases), median over the repetitions.
void run_sp_breakdown(PointContext& ctx) {
  const Point& p = ctx.point();
  const std::size_t n = p.n;
  const cudaStream_t stream = ctx.stream();
  auto& in = sp_input(ctx, gen::KeySpec::uniform(std::max<std::uint64_t>(1, std::llround(p.param_value * n))));
  const bool sp = p.variant == "sp_ega";
  const int phases = sp ? 5 : 3;
  std::unique_ptr<SpEga> ega;
  std::unique_ptr<Lphga> lphga;
  if (sp) ega = std::make_unique<SpEga>(n, stream);
  else lphga = std::make_unique<Lphga>(n, stream);
  std::vector<Event> events(phases + 1);
  std::vector<std::vector<double>> times(phases);
  Groups out;
  const int reps = ctx.options().effective_repetitions() + ctx.options().warmups;
  for (int r = 0; r < reps; ++r) {
    if (sp) ega->load(in.keys.data(), in.values.data(), n, kOp, stream);
    else lphga->load(in.keys.data(), in.values.data(), n, kOp, stream);
    events[0].record(stream);
    auto hook = [&](int phase, cudaStream_t s) { events[phase].record(s); };
    out = sp ? ega->run(n, kOp, stream, hook) : lphga->run(n, kOp, stream, hook);
    events[phases].synchronize();
    if (r < ctx.options().warmups) continue;
    for (int ph = 0; ph < phases; ++ph) {
      float ms = 0;
      HASHLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, events[ph].get(), events[ph + 1].get()));
      times[ph].push_back(ms);
    }
  }
  double total = 0;
  for (int ph = 0; ph < phases; ++ph) {
    auto& t = times[ph];
    std::sort(t.begin(), t.end());
    const double median = t.empty() ? 0 : t[t.size() / 2];
    total += median;
    ctx.report_value("phase" + std::to_string(ph + 1) + "_time", median, "ms");
  }
  ctx.report_value("total_time", total, "ms");
  if (n > kFullCheckRows) verify_sampled(ctx, in.expected, out.keys, out.aggregates, out.count);
  else verify_groups(ctx, in.expected, out.to_reference(kOp, stream));
}

}  // namespace

harness::Experiment sp_breakdown() {
  return make_experiment(
      "ega", "sp_breakdown", "Fig. 2 (SP-EGA's five phases): time per phase",
      "device time of each phase of SP-EGA (5) and LPHGA (3: aggregate, scan, collect), uniform keys, L = n",
      {"sp_ega", "lphga"},
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, {sp_n(o)}, "load_factor", {0.5, 0.9, 0.99});
      },
      run_sp_breakdown);
}

}  // namespace hashlab::ega::experiments
