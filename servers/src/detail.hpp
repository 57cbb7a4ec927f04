// What the servers of one process share, and the backends' constructors (internal to servers/).
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "hashlab/servers/communicator.hpp"

namespace hashlab::servers::detail {

/// The state the servers of one process share: whether the group was aborted and why, and the
/// rendezvous of the local backend (a barrier with a generation count, and the slots where each
/// server posts what its peers copy from during a collective).
class GroupState {
 public:
  explicit GroupState(std::vector<int> devices) : devices_(std::move(devices)), slots_(devices_.size()) {}

  int size() const { return static_cast<int>(devices_.size()); }
  int device_of(int rank) const { return devices_[static_cast<std::size_t>(rank)]; }

  /// Marks the group aborted; the first reason is kept. Wakes every server waiting at the barrier.
  void abort(const std::string& reason);
  bool aborted() const { return aborted_.load(std::memory_order_acquire); }
  std::string reason() const;
  /// Throws GroupAborted(reason) when aborted.
  void throw_if_aborted() const;

  /// Waits until every server has arrived (a barrier); throws GroupAborted when the group is
  /// aborted before or while waiting.
  void arrive_and_wait();

  /// What a server posts for its peers during one collective (valid between its two barriers).
  struct Slot {
    const void* data = nullptr;
    const ExchangePlan* plan = nullptr;
    std::size_t bytes = 0;
  };
  Slot& slot(int rank) { return slots_[static_cast<std::size_t>(rank)]; }

 private:
  std::vector<int> devices_;
  std::vector<Slot> slots_;
  mutable std::mutex mutex_;
  std::condition_variable arrived_cv_;
  int arrived_ = 0;
  unsigned long long generation_ = 0;
  std::atomic<bool> aborted_{false};
  std::string reason_;
};

/// The opaque NCCL id (ncclUniqueId is 128 bytes), so that this header does not need nccl.h.
using NcclId = std::array<char, 128>;

/// A new id from ncclGetUniqueId (throws std::invalid_argument in a build without NCCL).
NcclId nccl_unique_id();

/// The in-process backend's server `rank` of `state`'s group.
std::unique_ptr<Communicator> make_local_communicator(int rank, cudaStream_t stream, std::shared_ptr<GroupState> state);

/// The NCCL backend's server `rank` of `size`, on the current device, joined through `id`.
/// Created non-blocking: while the other servers join, it watches `state` for an abort.
std::unique_ptr<Communicator> make_nccl_communicator(int rank, int size, int device, cudaStream_t stream,
                                                     const NcclId& id, std::shared_ptr<GroupState> state);

}  // namespace hashlab::servers::detail
