// The backend-independent half of the communicator: the error flag of the phase boundaries, the
// watched wait, the small reductions, and the shared state of one process's servers.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include "detail.hpp"
#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/memory.hpp"

namespace hashlab::servers {

const char* to_string(Backend backend) { return backend == Backend::kNccl ? "nccl" : "local"; }

Backend parse_backend(const std::string& name) {
  if (name == "nccl") return Backend::kNccl;
  if (name == "local") return Backend::kLocal;
  throw std::invalid_argument("unknown servers backend '" + name +
                              "' (nccl: one GPU per server; local: servers in one process, GPUs may be shared)");
}

std::string Communicator::who() const {
  return "server " + std::to_string(rank_) + " of " + std::to_string(size_);
}

void Communicator::synchronize() {
  // Polls rather than blocks: a blocked thread could not see that its group was aborted.
  for (int polls = 0;; ++polls) {
    const cudaError_t status = cudaStreamQuery(stream_);
    if (status == cudaSuccess) return;
    if (status != cudaErrorNotReady) HASHLAB_CUDA_CHECK(status);
    check_group();
    if (polls < 2000) std::this_thread::yield();
    else std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

void Communicator::barrier() {
  synchronize();
  barrier_impl();
}

std::uint64_t Communicator::all_reduce_max(std::uint64_t value) {
  const auto all = all_gather_host(value);
  return *std::max_element(all.begin(), all.end());
}

std::uint64_t Communicator::all_reduce_sum(std::uint64_t value) {
  std::uint64_t sum = 0;
  for (const std::uint64_t v : all_gather_host(value)) sum += v;
  return sum;
}

namespace {

// The error flag of a phase boundary, with enough of the message to say what went wrong.
enum class FailureKind : std::int32_t { kNone = 0, kInvalidArgument, kOutOfDeviceMemory, kOther };
struct Failure {
  FailureKind kind = FailureKind::kNone;
  char message[1020] = {};
};

Failure describe(const std::exception_ptr& error) {
  Failure failure;
  if (!error) return failure;
  std::string what;
  try {
    std::rethrow_exception(error);
  } catch (const std::invalid_argument& e) {
    failure.kind = FailureKind::kInvalidArgument;
    what = e.what();
  } catch (const OutOfDeviceMemory& e) {
    failure.kind = FailureKind::kOutOfDeviceMemory;
    what = e.what();
  } catch (const std::exception& e) {
    failure.kind = FailureKind::kOther;
    what = e.what();
  } catch (...) {
    failure.kind = FailureKind::kOther;
    what = "an exception that is not a std::exception";
  }
  std::strncpy(failure.message, what.c_str(), sizeof failure.message - 1);
  return failure;
}

}  // namespace

void Communicator::phase_boundary(const std::exception_ptr& error, const std::string& phase) {
  const std::vector<Failure> all = all_gather_host(describe(error));
  for (int r = 0; r < size_; ++r) {
    const Failure& f = all[static_cast<std::size_t>(r)];
    if (f.kind == FailureKind::kNone) continue;
    const std::string text = "server " + std::to_string(r) + " of " + std::to_string(size_) + " (" + phase +
                             "): " + std::string(f.message, strnlen(f.message, sizeof f.message));
    failed_at_boundary_ = true;
    if (f.kind == FailureKind::kInvalidArgument) throw std::invalid_argument(text);
    if (f.kind == FailureKind::kOutOfDeviceMemory) throw OutOfDeviceMemory(text);
    throw std::runtime_error(text);
  }
}

namespace detail {

void GroupState::abort(const std::string& reason) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!aborted_.load(std::memory_order_relaxed)) reason_ = reason;
    aborted_.store(true, std::memory_order_release);
  }
  arrived_cv_.notify_all();
}

std::string GroupState::reason() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return reason_;
}

void GroupState::throw_if_aborted() const {
  if (aborted()) throw GroupAborted("the server group was aborted: " + reason());
}

void GroupState::arrive_and_wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (aborted_.load(std::memory_order_relaxed)) throw GroupAborted("the server group was aborted: " + reason_);
  const unsigned long long generation = generation_;
  if (++arrived_ == size()) {
    arrived_ = 0;
    ++generation_;
    lock.unlock();
    arrived_cv_.notify_all();
    return;
  }
  arrived_cv_.wait(lock, [&] { return generation_ != generation || aborted_.load(std::memory_order_relaxed); });
  if (generation_ == generation) throw GroupAborted("the server group was aborted: " + reason_);
}

std::string GroupState::begin_exchange(const std::function<std::string(const std::vector<Slot>&)>& check) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (aborted_.load(std::memory_order_relaxed)) throw GroupAborted("the server group was aborted: " + reason_);
  const unsigned long long generation = generation_;
  if (++arrived_ == size()) {
    // The last to arrive: every other server waits here with its slot posted.
    arrived_ = 0;
    try {
      verdict_ = check ? check(slots_) : std::string();
    } catch (const std::exception& e) {
      verdict_ = e.what();
    }
    readers_ = size();
    ++generation_;
    std::string verdict = verdict_;
    lock.unlock();
    arrived_cv_.notify_all();
    return verdict;
  }
  arrived_cv_.wait(lock, [&] { return generation_ != generation || aborted_.load(std::memory_order_relaxed); });
  if (generation_ == generation) throw GroupAborted("the server group was aborted: " + reason_);
  // The next exchange cannot have overwritten the verdict: it needs this server at its barrier.
  return verdict_;
}

void GroupState::end_exchange() noexcept {
  std::unique_lock<std::mutex> lock(mutex_);
  if (--readers_ == 0) {
    lock.unlock();
    readers_cv_.notify_all();
    return;
  }
  // readers_ cannot rise again before this server leaves: the next exchange needs it at its barrier.
  readers_cv_.wait(lock, [&] { return readers_ == 0; });
}

}  // namespace detail
}  // namespace hashlab::servers
