// Shared between the BSP join and its comparators: per-kernel profiling and the report's step 9
// (the adjacent compare) with the compaction of its output.
#pragma once

#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "hashlab/common/memory.hpp"
#include "hashlab/pkpk_join/pkpk_join.hpp"

namespace hashlab::pkpk::detail {

/// Times named steps with CUDA events when enabled (the report's nvprof table); otherwise runs
/// them untouched, so unprofiled runs hold no event in the stream.
class KernelProfiler {
 public:
  explicit KernelProfiler(bool enabled) : enabled_(enabled) {}

  template <class Step>
  void run(const char* name, cudaStream_t stream, Step&& step) {
    if (!enabled_) {
      step();
      return;
    }
    timers_.emplace_back(std::piecewise_construct, std::forward_as_tuple(name), std::forward_as_tuple());
    timers_.back().second.start(stream);
    step();
    timers_.back().second.stop(stream);
  }

  /// Every step's time (waits for the last event); empty when disabled.
  std::vector<KernelTime> results() const {
    std::vector<KernelTime> out;
    for (const auto& [name, timer] : timers_) out.push_back({name, timer.elapsed_ms()});
    return out;
  }

 private:
  bool enabled_;
  std::deque<std::pair<std::string, EventTimer>> timers_;
};

/// Step 9 on a globally sorted array of packed elements: compare each element with its
/// neighbour, compact the matches with a scan into (key, value1, value2) rows. Synchronises
/// once; throws std::invalid_argument naming a key that appears twice in one table.
JoinedRows join_sorted(const std::uint64_t* sorted, std::size_t n, const TableView& r, const TableView& s,
                       cudaStream_t stream, KernelProfiler& profiler);

}  // namespace hashlab::pkpk::detail
