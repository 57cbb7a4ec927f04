// Shared between the BSP join and its comparators: per-kernel profiling and the report's step 9
// (the adjacent compare) with the compaction of its output.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "hashlab/common/memory.hpp"
#include "hashlab/pkpk_join/pkpk_join.hpp"

namespace hashlab::pkpk::detail {

/// Times named steps with CUDA events when enabled (the report's nvprof table); otherwise runs
/// them untouched, so unprofiled runs hold no event in the stream.
class KernelProfiler {
 public:
  explicit KernelProfiler(bool enabled) : enabled_(enabled) {}

  /// Runs `step`, named `name`, which processes `items` of `item_unit` (its rate's numerator:
  /// what the step itself reads, not the join's input unless it passes over it).
  template <class Step>
  void run(const char* name, cudaStream_t stream, double items, const char* item_unit, Step&& step) {
    if (!enabled_) {
      step();
      return;
    }
    steps_.push_back({name, items, item_unit, {}});
    steps_.back().timer.start(stream);
    step();
    steps_.back().timer.stop(stream);
  }

  /// Every step's time (waits for the last event); empty when disabled.
  std::vector<KernelTime> results() const {
    std::vector<KernelTime> out;
    for (const auto& s : steps_) out.push_back({s.name, s.timer.elapsed_ms(), s.items, s.item_unit});
    return out;
  }

 private:
  struct Step {
    std::string name;
    double items;
    std::string item_unit;
    EventTimer timer;
  };
  bool enabled_;
  std::deque<Step> steps_;
};

/// Step 9 on a globally sorted array of packed elements: compare each element with its
/// neighbour, compact the matches with a scan into (key, value1, value2) rows. Synchronises
/// once; throws std::invalid_argument naming a key that appears twice in one table.
JoinedRows join_sorted(const std::uint64_t* sorted, std::size_t n, const TableView& r, const TableView& s,
                       cudaStream_t stream, KernelProfiler& profiler);

}  // namespace hashlab::pkpk::detail
