// Device time per phase of one run, with CUDA events: the one per-phase timer of the suite. An
// algorithm that can report its phases (RAPIDS' prediction / fillTable / extraction, the BSP join's
// kernels, HashGraph's build steps, EGA's phases) takes an optional PhaseTimer* and marks them;
// without one it runs untouched, so timed runs hold no extra event in the stream. The harness's
// PointContext::time_phases repeats such a run and reports each phase's median.
//
//   PhaseTimer phases;
//   phases.run("hash", stream, n, "keys", [&] { hash_kernel<<<..., stream>>>(...); });
//   phases.begin("count", stream, n, "keys");    // or mark boundaries: begin() ends the open phase
//   count_kernel<<<..., stream>>>(...);
//   phases.end(stream);
//   for (const PhaseTime& p : phases.results()) ...   // waits for the last event
#pragma once

#include <cuda_runtime_api.h>

#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "hashlab/common/memory.hpp"

namespace hashlab {

/// One timed phase of a run.
struct PhaseTime {
  std::string name;
  double ms = 0;
  double items = 0;  // what the phase itself processed (its rate's numerator): rows, keys, samples
  std::string unit;  // ... and what they are: "rows", "keys", "vertices", "samples"
};

class PhaseTimer {
 public:
  /// Starts phase `name` on `stream`, ending the phase open before it (if any).
  void begin(std::string name, cudaStream_t stream, double items = 0, std::string unit = {}) {
    end(stream);
    Phase& phase = phases_.emplace_back();
    phase.time.name = std::move(name);
    phase.time.items = items;
    phase.time.unit = std::move(unit);
    phase.timer.start(stream);
    open_ = true;
  }

  /// Ends the open phase (nothing when none is open).
  void end(cudaStream_t stream) {
    if (!open_) return;
    phases_.back().timer.stop(stream);
    open_ = false;
  }

  /// begin(name) .. step() .. end().
  template <class Step>
  void run(std::string name, cudaStream_t stream, double items, std::string unit, Step&& step) {
    begin(std::move(name), stream, items, std::move(unit));
    step();
    end(stream);
  }

  /// Every ended phase in the order it began, with its time (waits for its stop event).
  std::vector<PhaseTime> results() const {
    std::vector<PhaseTime> out;
    for (std::size_t i = 0; i < phases_.size(); ++i) {
      if (open_ && i + 1 == phases_.size()) break;
      out.push_back(phases_[i].time);
      out.back().ms = phases_[i].timer.elapsed_ms();
    }
    return out;
  }

  /// Forgets every phase (a timer reused for the next run).
  void clear() {
    phases_.clear();
    open_ = false;
  }

 private:
  struct Phase {
    PhaseTime time;
    EventTimer timer;
  };
  std::deque<Phase> phases_;  // a deque: recorded events never move
  bool open_ = false;
};

/// Marks phases on `timer` when there is one: the form algorithms use for their optional timer.
template <class Step>
void timed_phase(PhaseTimer* timer, std::string name, cudaStream_t stream, double items, std::string unit,
                 Step&& step) {
  if (timer == nullptr) {
    step();
    return;
  }
  timer->run(std::move(name), stream, items, std::move(unit), std::forward<Step>(step));
}

}  // namespace hashlab
