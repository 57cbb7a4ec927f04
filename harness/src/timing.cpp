// The timing routine (timing.hpp): warm-ups, then the repetitions, each measured on its own clock.
#include "hashlab/harness/timing.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/memory.hpp"

namespace hashlab::harness {
namespace {

// Runs `one_run_ms` (which returns the measured milliseconds of one run) `plan.warmups` times,
// then as many times as the plan asks after the last warm-up, and summarises the timed runs.
Timing repeat(const TimingPlan& plan, const std::function<double()>& one_run_ms) {
  plan.validate();
  double warmup_ms = -1;
  for (int w = 0; w < plan.warmups; ++w) warmup_ms = one_run_ms();
  const int repetitions = plan.repetitions_after(warmup_ms);
  std::vector<double> ms;
  ms.reserve(repetitions);
  for (int r = 0; r < repetitions; ++r) ms.push_back(one_run_ms());
  return summarize(std::move(ms));
}

}  // namespace

Timing summarize(std::vector<double> ms) {
  if (ms.empty()) throw std::invalid_argument("summarize: no times");
  std::sort(ms.begin(), ms.end());
  const std::size_t n = ms.size();
  const double median = n % 2 == 1 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
  return {median, ms.front(), ms.back(), static_cast<int>(n)};
}

int TimingPlan::repetitions_after(double warmup_ms) const {
  if (repetitions > 0) return repetitions;
  return warmup_ms >= long_run_ms ? long_repetitions : short_repetitions;
}

void TimingPlan::validate() const {
  if (warmups < 0) throw std::invalid_argument("timing: " + std::to_string(warmups) + " warm-up runs (at least 0)");
  if (repetitions < 0 || short_repetitions < 1 || long_repetitions < 1)
    throw std::invalid_argument("timing: every timing needs at least one timed run");
}

const char* to_string(Clock clock) { return clock == Clock::kDevice ? "CUDA events" : "host clock"; }

Timing time_gpu(const TimingPlan& plan, cudaStream_t stream, const std::function<void(cudaStream_t)>& run,
                const std::function<void(cudaStream_t)>& reset) {
  EventTimer timer;
  const Timing timing = repeat(plan, [&] {
    if (reset) reset(stream);
    timer.start(stream);
    run(stream);
    timer.stop(stream);
    return timer.elapsed_ms();
  });
  HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return timing;
}

Timing time_host(const TimingPlan& plan, const std::function<void()>& run, const std::function<void()>& reset) {
  return repeat(plan, [&] {
    if (reset) reset();
    const auto start = std::chrono::steady_clock::now();
    run();
    const auto stop = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::milli>(stop - start).count();
  });
}

Timing time_on(Clock clock, const TimingPlan& plan, cudaStream_t stream, const std::function<void(cudaStream_t)>& run,
               const std::function<void(cudaStream_t)>& reset) {
  if (clock == Clock::kDevice) return time_gpu(plan, stream, run, reset);
  return time_host(plan, [&] { run(stream); }, reset ? std::function<void()>([&] { reset(stream); }) : nullptr);
}

std::vector<PhaseTiming> time_phases(const TimingPlan& plan, cudaStream_t stream,
                                     const std::function<void(PhaseTimer&, cudaStream_t)>& run,
                                     const std::function<void(cudaStream_t)>& reset) {
  PhaseTimer timer;
  return time_measured_phases(
      plan,
      [&] {
        timer.clear();
        run(timer, stream);
        return timer.results();
      },
      reset ? std::function<void()>([&] { reset(stream); }) : nullptr);
}

std::vector<PhaseTiming> time_measured_phases(const TimingPlan& plan, const std::function<std::vector<PhaseTime>()>& run,
                                              const std::function<void()>& reset) {
  std::vector<PhaseTiming> phases;
  std::vector<std::vector<double>> times;
  int runs = 0;
  // One run; its phases after the warm-ups are recorded. Returns their sum.
  auto one_run = [&] {
    if (reset) reset();
    const std::vector<PhaseTime> marked = run();
    const bool warmup = runs++ < plan.warmups;
    if (runs == 1)
      for (const auto& p : marked) phases.push_back({p.name, p.items, p.unit, {}});
    if (marked.size() != phases.size())
      throw std::logic_error("time_phases: a run marked " + std::to_string(marked.size()) + " phases, the first " +
                             std::to_string(phases.size()));
    times.resize(phases.size());
    double total = 0;
    for (std::size_t i = 0; i < marked.size(); ++i) {
      if (marked[i].name != phases[i].name)
        throw std::logic_error("time_phases: phase " + std::to_string(i) + " is '" + marked[i].name + "', was '" +
                               phases[i].name + "'");
      if (!warmup) times[i].push_back(marked[i].ms);
      total += marked[i].ms;
    }
    return total;
  };
  repeat(plan, one_run);
  for (std::size_t i = 0; i < phases.size(); ++i) phases[i].timing = summarize(times[i]);
  return phases;
}

}  // namespace hashlab::harness
