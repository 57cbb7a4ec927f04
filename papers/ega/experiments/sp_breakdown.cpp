// Fig. 2: the device time of each phase of SP-EGA (5) and LPHGA (3), uniform keys, L = n.
#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "experiments.hpp"
#include "hashlab/ega/sp_ega.hpp"
#include "sp_inputs.cuh"

namespace hashlab::ega::experiments {
namespace {

// Per-phase device times: the run's phase hook marks the phases on the timer of
// PointContext::time_phases (its warm-ups, repetitions and medians); the load is untimed.
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
  const auto phase_name = [](int phase) { return "phase" + std::to_string(phase); };
  Groups out;
  const std::vector<harness::PhaseTiming> timings = ctx.time_phases(
      [&](PhaseTimer& timer, cudaStream_t s) {
        timer.begin(phase_name(1), s);
        // Called after phase `phase` has been enqueued: the next phase begins, or the last ends.
        const PhaseHook hook = [&](int phase, cudaStream_t hook_stream) {
          if (phase < phases) timer.begin(phase_name(phase + 1), hook_stream);
          else timer.end(hook_stream);
        };
        out = sp ? ega->run(n, kOp, s, hook) : lphga->run(n, kOp, s, hook);
      },
      [&](cudaStream_t s) {
        if (sp) ega->load(in.keys.data(), in.values.data(), n, kOp, s);
        else lphga->load(in.keys.data(), in.values.data(), n, kOp, s);
      });
  if (timings.size() != static_cast<std::size_t>(phases))
    throw std::logic_error("sp_breakdown: the run marked " + std::to_string(timings.size()) + " phases, not " +
                           std::to_string(phases));
  // Each phase's median, minimum and maximum over the repetitions ("phase<k>_time", and its rate in
  // input rows per second), so that a claim on a phase's share is judged at the worst repetition; the
  // total is the sum of the medians (plots/quantities.py recomputes its range from the phases').
  double total = 0;
  for (int ph = 1; ph <= phases; ++ph) {
    const harness::Timing& timing = timings[ph - 1].timing;
    total += timing.median_ms;
    ctx.report_time(phase_name(ph), timing, static_cast<double>(n), "rows");
  }
  ctx.report_value("total_time", total, "ms");
  verify_groups(ctx, in.expected, out.to_reference(kOp, stream));
}

}  // namespace

harness::Experiment sp_breakdown() {
  return make_experiment(
      "ega", "sp_breakdown", "Fig. 2 (SP-EGA's five phases)",
      "time per phase: the device time of each phase of SP-EGA (5) and LPHGA (3: aggregate, scan, collect), "
      "uniform keys, L = n",
      {"sp_ega", "lphga"},
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, {sp_n(o)}, "load_factor", {0.5, 0.9, 0.99});
      },
      run_sp_breakdown);
}

}  // namespace hashlab::ega::experiments
