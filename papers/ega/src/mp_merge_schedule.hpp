// Which merged partition is copied into the merged layout by a merge thread and which one a
// stream worker gathers or copies itself, and waiting for the copies (MP-EGA's processing phase,
// mp_process.cpp). Private to the module.
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "hashlab/ega/mp_ega.hpp"

namespace hashlab::ega {

// How each merged partition (by its position i in the processing order) reaches the GPU:
// - kHost: merge threads copy the merged partitions in processing order and mark each merged;
//   the stream workers wait for theirs. The merged layout is the one the paper copies to the
//   GPU; only the waiting is ours.
// - kGpuGather: no host copies; the stream workers gather every partition's pieces.
// - kPieceCopies: no host copies; the stream workers copy every partition's pieces one by one.
// - kHostAndGather: merge threads copy from the back of the order, the stream workers take the
//   front; a worker gathers a partition no merge thread has claimed, else waits for its copy.
class MpEga::MergeSchedule {
 public:
  MergeSchedule(MergeCopy mode, std::size_t count, std::chrono::steady_clock::time_point merge_start)
      : mode_(mode), count_(count), state_(count, State::kFree), back_(count),
        merge_end_(copies_merged_partitions(mode) ? merge_start : std::chrono::steady_clock::now()) {}

  /// A merge thread: copies partitions (copy(i)) until none is left to it.
  template <class Copy>
  void merge_worker(Copy&& copy) {
    try {
      for (std::size_t i = 0; take(i);) {
        copy(i);
        {
          std::lock_guard<std::mutex> lock(mutex_);
          state_[i] = State::kMerged;
        }
        merged_.notify_all();
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      failed_ = true;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    merge_end_ = std::max(merge_end_, std::chrono::steady_clock::now());
    merged_.notify_all();
  }

  /// A stream worker's claim on partition i: true when it is (or will be) copied on the host
  /// (returns once it is), false when the worker gathers it.
  bool claim(std::size_t i) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (mode_ != MergeCopy::kHost && state_[i] == State::kFree) {
      state_[i] = State::kGathered;
      return false;
    }
    merged_.wait(lock, [&] { return state_[i] == State::kMerged || failed_; });
    if (state_[i] != State::kMerged) throw std::runtime_error("MP-EGA: the CPU merge of the tiles' partitions failed");
    return true;
  }

  /// After an error: the merge threads stop after their current copy.
  void stop() {
    std::lock_guard<std::mutex> lock(mutex_);
    front_ = count_;
    back_ = 0;
  }

  std::chrono::steady_clock::time_point merge_end() const { return merge_end_; }

 private:
  enum class State : char { kFree, kCopying, kMerged, kGathered };

  /// The next partition for a merge thread (kHost: from the front; else from the back, skipping
  /// those the stream workers took), marked as being copied.
  bool take(std::size_t& i) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (mode_ == MergeCopy::kHost) {
      if (front_ == count_) return false;
      i = front_++;
    } else {
      while (back_ > 0 && state_[back_ - 1] != State::kFree) --back_;
      if (back_ == 0) return false;  // the stream workers took the rest
      i = --back_;
    }
    state_[i] = State::kCopying;
    return true;
  }

  const MergeCopy mode_;
  const std::size_t count_;
  std::mutex mutex_;
  std::condition_variable merged_;
  std::vector<State> state_;
  bool failed_ = false;
  std::size_t front_ = 0, back_;
  std::chrono::steady_clock::time_point merge_end_;
};

}  // namespace hashlab::ega
