// Internal helpers shared by the build files (not part of the public API).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <utility>

#include "hashlab/common/memory.hpp"
#include "hashlab/hashgraph/hashgraph.hpp"

namespace hashlab::hashgraph::detail {

/// Threads per block of V2's phase 3 (one block per bin).
constexpr int kPhase3Block = 256;

/// The largest number of vertices per bin whose counters fit in one block's shared memory on
/// the current device (opting in to the large shared-memory carve-out). Sets the kernel's
/// attribute on first use.
std::uint32_t phase3_max_shared_vertices();

/// Runs the steps of one build; with a trace, brackets each with CUDA events on the build's
/// stream, and finish() waits for the last one and writes the times into the trace. Without a
/// trace the steps run untouched.
class StepTimer {
 public:
  explicit StepTimer(BuildTrace* trace) : trace_(trace) {
    if (trace_ != nullptr) trace_->clear();
  }

  template <class Step>
  void run(const char* name, std::uint64_t items, const char* unit, cudaStream_t stream, Step&& step) {
    if (trace_ == nullptr) {
      step();
      return;
    }
    timers_.emplace_back(std::piecewise_construct, std::forward_as_tuple(BuildStep{name, items, unit, 0.0}),
                         std::forward_as_tuple());
    timers_.back().second.start(stream);
    step();
    timers_.back().second.stop(stream);
  }

  /// Fills the trace (waits for each step's stop event); nothing without a trace.
  void finish() {
    if (trace_ == nullptr) return;
    for (auto& [step, timer] : timers_) {
      step.ms = timer.elapsed_ms();
      trace_->push_back(step);
    }
    timers_.clear();
  }

 private:
  BuildTrace* trace_;
  std::deque<std::pair<BuildStep, EventTimer>> timers_;  // a deque: events never move once recorded
};

}  // namespace hashlab::hashgraph::detail
