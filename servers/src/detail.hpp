// What the servers of one process share, and the backends' constructors (internal to servers/).
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <atomic>
#include <condition_variable>
#include <functional>
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
  /// What a server posts for its peers during one collective (valid from its begin_exchange to
  /// the end of every server's end_exchange).
  struct Slot {
    const void* data = nullptr;
    const ExchangePlan* plan = nullptr;
    std::size_t bytes = 0;
  };

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

  Slot& slot(int rank) { return slots_[static_cast<std::size_t>(rank)]; }

  /// The rendezvous of a collective that reads the peers' buffers (the local backend's). A
  /// barrier whose last server to arrive runs `check` over every server's slot while all the
  /// others wait at it (so every slot, and the buffers and plans it points to, is alive); every
  /// server returns the same verdict ("" when the slots agree), so a disagreement is found before
  /// any server copies anything. From then on every server counts as reading its peers' buffers
  /// until its end_exchange(). Throws GroupAborted when the group is aborted before the barrier
  /// completes (then nobody reads).
  std::string begin_exchange(const std::function<std::string(const std::vector<Slot>&)>& check);
  /// This server no longer reads its peers' buffers; waits until no server does, also when the
  /// group was aborted meanwhile (a reader only waits for its own stream, never for a peer), so
  /// that no server leaves a collective, returning or throwing, and frees a buffer that a peer's
  /// copy may still read. Never throws.
  void end_exchange() noexcept;


 private:
  std::vector<int> devices_;
  std::vector<Slot> slots_;
  mutable std::mutex mutex_;
  std::condition_variable arrived_cv_, readers_cv_;
  int arrived_ = 0;
  unsigned long long generation_ = 0;
  int readers_ = 0;       // servers between begin_exchange and end_exchange
  std::string verdict_;   // the last begin_exchange's check
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
