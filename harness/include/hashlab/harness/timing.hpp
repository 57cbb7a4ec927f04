// The suite's one timing routine (docs/design.md, "Timing"): warm-up runs, then timed
// repetitions, reported as their median, minimum and maximum. Every experiment point is timed
// with it (PointContext::time_gpu and friends hand it the run's options); the own-data commands,
// the catalogue's users and the Python package call it directly:
//
//   hashlab::harness::TimingPlan plan;                // 1 warm-up; 5 repetitions (3 for runs >= 250 ms)
//   hashlab::harness::Timing t = hashlab::harness::time_gpu(plan, stream,
//       [&](cudaStream_t s) { groupby.run(s); },      // timed with CUDA events
//       [&](cudaStream_t s) { groupby.prepare(s); }); // untimed, before every run
//   std::printf("median %.3f ms of %d runs\n", t.median_ms, t.repetitions);
//
// Nothing but `run` is in the timed region: `reset` runs before it, untimed, every time.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <string>
#include <vector>

#include "hashlab/common/phase_timer.hpp"

namespace hashlab::harness {

/// Median, minimum and maximum of the timed repetitions, in milliseconds.
struct Timing {
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  int repetitions = 0;
};

/// The median, minimum and maximum of measured times in ms (the median of an even count is the
/// mean of the middle two). Throws std::invalid_argument when empty.
Timing summarize(std::vector<double> ms);

/// How many runs to time. With `repetitions` > 0 exactly that many; else `short_repetitions`, or
/// `long_repetitions` when the last warm-up took at least `long_run_ms` on the timing's own clock
/// (long runs are the single-threaded CPU baselines at 10^8 rows and the GPU group-bys near a full
/// table: fewer repetitions of them keep a run's length in hand).
struct TimingPlan {
  int warmups = 1;
  int repetitions = 0;
  int short_repetitions = 5;
  int long_repetitions = 3;
  double long_run_ms = 250;

  /// The repetitions after a warm-up of `warmup_ms` (negative: no warm-up ran).
  int repetitions_after(double warmup_ms) const;
  /// Throws std::invalid_argument for negative warm-ups or no repetitions.
  void validate() const;
};

/// Which clock times a run: CUDA events on the stream (GPU work), or the host's steady clock
/// (CPU work, and work that mixes host and device, like MP-EGA's).
enum class Clock { kDevice, kHost };
const char* to_string(Clock clock);  // "CUDA events", "host clock"

/// Times `run` on `stream` with CUDA events.
Timing time_gpu(const TimingPlan& plan, cudaStream_t stream, const std::function<void(cudaStream_t)>& run,
                const std::function<void(cudaStream_t)>& reset = {});

/// Times `run` on the host's steady clock (the stream is not used).
Timing time_host(const TimingPlan& plan, const std::function<void()>& run, const std::function<void()>& reset = {});

/// time_gpu or time_host by `clock`; host work gets the stream too (and may ignore it).
Timing time_on(Clock clock, const TimingPlan& plan, cudaStream_t stream, const std::function<void(cudaStream_t)>& run,
               const std::function<void(cudaStream_t)>& reset = {});

/// One phase's times over the repetitions of time_phases.
struct PhaseTiming {
  std::string name;
  double items = 0;  // as the algorithm marked them (PhaseTime)
  std::string unit;
  Timing timing;
};

/// The phases of a run, timed with the same warm-ups and repetitions: `run` marks them on the
/// PhaseTimer it is handed (an algorithm's optional timer, common/phase_timer.hpp). Returns each
/// phase's median, minimum and maximum over the repetitions, in the order they ran; every run
/// must mark the same phases (std::logic_error otherwise).
std::vector<PhaseTiming> time_phases(const TimingPlan& plan, cudaStream_t stream,
                                     const std::function<void(PhaseTimer&, cudaStream_t)>& run,
                                     const std::function<void(cudaStream_t)>& reset = {});

/// The same for a run that times its phases itself and returns them (the same phases, in the
/// same order, every run): the servers of servers/ each mark their phases on a PhaseTimer of their
/// own device's stream, and the run combines them (the slowest server's time per phase).
std::vector<PhaseTiming> time_measured_phases(const TimingPlan& plan, const std::function<std::vector<PhaseTime>()>& run,
                                              const std::function<void()>& reset = {});

}  // namespace hashlab::harness
