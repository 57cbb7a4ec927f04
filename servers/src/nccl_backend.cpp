// The NCCL backend: one GPU per server. Communicators are created non-blocking
// (ncclConfig_t::blocking = 0), so that no call ever blocks a server's thread: every NCCL call
// is followed by a poll of ncclCommGetAsyncError, and every wait for the stream by the group's
// abort flag. A server whose group was aborted aborts its own communicator (ncclCommAbort ends
// the NCCL kernels that wait for a peer that will never come) and throws GroupAborted.
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <utility>

#include "detail.hpp"
#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/servers/group.hpp"

namespace hashlab::servers {

bool nccl_built() { return true; }

namespace detail {
namespace {

static_assert(sizeof(ncclUniqueId) == sizeof(NcclId), "ncclUniqueId is 128 bytes");

std::string nccl_failure(ncclResult_t result, const char* call, ncclComm_t comm) {
  std::string text = std::string("NCCL error in ") + call + ": " + ncclGetErrorString(result);
  const char* last = ncclGetLastError(comm);
  if (last != nullptr && *last != '\0') text += " (" + std::string(last) + ")";
  return text;
}

class NcclCommunicator final : public Communicator {
 public:
  NcclCommunicator(int rank, int size, int device, cudaStream_t stream, const NcclId& id,
                   std::shared_ptr<GroupState> state)
      : Communicator(rank, size, device, stream), state_(std::move(state)) {
    keep_nvlink_multicast_off();
    ncclUniqueId unique;
    std::memcpy(&unique, id.data(), sizeof unique);
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    call(ncclCommInitRankConfig(&comm_, size, unique, rank, &config), "ncclCommInitRankConfig");
  }

  ~NcclCommunicator() override {
    if (comm_ == nullptr || aborted_) return;
    // Finalize flushes what is still in flight (every server of a healthy group finalizes at the
    // same time, each on its own thread); after a failure only ncclCommAbort is left.
    ncclResult_t state = ncclCommFinalize(comm_);
    while (state == ncclInProgress && !state_->aborted()) {
      if (ncclCommGetAsyncError(comm_, &state) != ncclSuccess) state = ncclInternalError;
      std::this_thread::yield();
    }
    if (state == ncclSuccess) ncclCommDestroy(comm_);
    else ncclCommAbort(comm_);
  }

  Backend backend() const override { return Backend::kNccl; }

  void all_gather_bytes(const void* send, void* recv, std::size_t bytes) override {
    check_group();
    if (bytes > 0) call(ncclAllGather(send, recv, bytes, ncclChar, comm_, stream()), "ncclAllGather");
    synchronize();
  }

  void all_to_all_bytes(const void* send, const ExchangePlan& plan, void* recv) override {
    all_to_all_many({{send, plan, recv}});
  }

  void all_to_all_many(const std::vector<Exchange>& exchanges) override {
    const auto me = static_cast<std::size_t>(rank());
    for (const Exchange& e : exchanges) {
      const ExchangePlan& plan = e.plan_bytes;
      if (plan.size != size() || plan.rank != rank())
        throw std::logic_error(who() + ": an exchange plan of server " + std::to_string(plan.rank) + " of " +
                               std::to_string(plan.size));
      if (plan.send_counts[me] != plan.recv_counts[me])
        throw std::logic_error(who() + ": its exchange plan sends itself " + std::to_string(plan.send_counts[me]) +
                               " bytes but expects " + std::to_string(plan.recv_counts[me]));
    }
    check_group();
    // This server's own shares are device copies, on a stream of their own beside the NCCL group
    // (NVLink, not the copies' share of device memory bandwidth, bounds the exchange); the others
    // are one NCCL group of sends and receives over every exchange (zero-byte pairs are left out
    // on both sides: the plans agree on every count), so that NCCL moves them together and the
    // server waits once, for both.
    const bool copies = std::any_of(exchanges.begin(), exchanges.end(),
                                    [&](const Exchange& e) { return e.plan_bytes.send_counts[me] > 0; });
    if (copies && !own_copies_) own_copies_ = std::make_unique<OwnCopies>();
    {
      // However this block ends (a failed NCCL or CUDA call throws), the server's stream waits for
      // the copies queued so far: a buffer the caller then frees on it is not written afterwards.
      JoinOnExit join(copies ? own_copies_.get() : nullptr, stream());
      if (copies) {
        own_copies_->inputs_ready.record(stream());
        HASHLAB_CUDA_CHECK(cudaStreamWaitEvent(own_copies_->stream, own_copies_->inputs_ready.get(), 0));
        for (const Exchange& e : exchanges)
          if (e.plan_bytes.send_counts[me] > 0)
            HASHLAB_CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(e.recv) + e.plan_bytes.recv_offsets[me],
                                               static_cast<const char*>(e.send) + e.plan_bytes.send_offsets[me],
                                               e.plan_bytes.send_counts[me], cudaMemcpyDeviceToDevice,
                                               own_copies_->stream));
      }
      // Inside the group the calls only enqueue: their results are checked, and the wait for the
      // non-blocking communicator comes after ncclGroupEnd. A call that fails inside the group ends
      // the group before it is reported (call() aborts the communicator and throws): a group left
      // open would hold this thread's next NCCL calls.
      ncclResult_t failed = ncclSuccess;
      const char* failed_call = nullptr;
      const auto enqueue = [&](ncclResult_t result, const char* what) {
        if (result != ncclSuccess && result != ncclInProgress && failed == ncclSuccess) failed = result, failed_call = what;
        return failed == ncclSuccess;
      };
      call(ncclGroupStart(), "ncclGroupStart", false);
      for (const Exchange& e : exchanges) {
        const ExchangePlan& plan = e.plan_bytes;
        for (int peer = 0; peer < size() && failed == ncclSuccess; ++peer) {
          const auto d = static_cast<std::size_t>(peer);
          if (d == me) continue;
          if (plan.send_counts[d] > 0 &&
              !enqueue(ncclSend(static_cast<const char*>(e.send) + plan.send_offsets[d], plan.send_counts[d], ncclChar,
                                peer, comm_, stream()),
                       "ncclSend"))
            break;
          if (plan.recv_counts[d] > 0)
            enqueue(ncclRecv(static_cast<char*>(e.recv) + plan.recv_offsets[d], plan.recv_counts[d], ncclChar, peer,
                             comm_, stream()),
                    "ncclRecv");
        }
      }
      const ncclResult_t ended = ncclGroupEnd();
      if (failed != ncclSuccess) call(failed, failed_call, false);  // throws
      call(ended, "ncclGroupEnd");
      join.now();
    }
    synchronize();
  }

  void all_gather_host_bytes(const void* value, void* out, std::size_t bytes) override {
    if (bytes == 0) return;
    DeviceBuffer<char> staging(bytes * (static_cast<std::size_t>(size()) + 1), stream());
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(staging.data(), value, bytes, cudaMemcpyHostToDevice, stream()));
    all_gather_bytes(staging.data(), staging.data() + bytes, bytes);
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(out, staging.data() + bytes, bytes * static_cast<std::size_t>(size()),
                                       cudaMemcpyDeviceToHost, stream()));
    synchronize();
  }

  void abort(const std::string& reason) override {
    state_->abort(reason);
    abort_communicator();
  }

 protected:
  void check_group() override {
    if (state_->aborted()) {
      abort_communicator();
      throw GroupAborted("the server group was aborted: " + state_->reason());
    }
    if (aborted_) throw GroupAborted(who() + ": its NCCL communicator was aborted");
    ncclResult_t async = ncclSuccess;
    const ncclResult_t queried = ncclCommGetAsyncError(comm_, &async);
    const ncclResult_t result = queried != ncclSuccess ? queried : async;
    if (result != ncclSuccess && result != ncclInProgress) {
      const std::string reason = who() + ": " + nccl_failure(result, "an asynchronous NCCL operation", comm_);
      state_->abort(reason);
      abort_communicator();
      throw NcclError(reason);
    }
  }

  void barrier_impl() override {
    DeviceBuffer<int> flag(1, stream());
    flag.fill_bytes(0, stream());
    check_group();
    call(ncclAllReduce(flag.data(), flag.data(), 1, ncclInt, ncclSum, comm_, stream()), "ncclAllReduce");
    synchronize();
  }

 private:
  /// Checks a call's immediate result, then (`wait`) waits, watching the group, while the
  /// non-blocking communicator still works on it.
  void call(ncclResult_t result, const char* what, bool wait = true) {
    if (result != ncclSuccess && result != ncclInProgress) {
      const std::string reason = who() + ": " + nccl_failure(result, what, comm_);
      state_->abort(reason);
      abort_communicator();
      throw NcclError(reason);
    }
    if (!wait) return;
    for (int polls = 0;; ++polls) {
      ncclResult_t async = ncclSuccess;
      if (comm_ == nullptr) return;
      const ncclResult_t queried = ncclCommGetAsyncError(comm_, &async);
      if (queried == ncclSuccess && async == ncclSuccess) return;
      if (queried != ncclSuccess || async != ncclInProgress) {
        const std::string reason = who() + ": " + nccl_failure(queried != ncclSuccess ? queried : async, what, comm_);
        state_->abort(reason);
        abort_communicator();
        throw NcclError(reason);
      }
      if (state_->aborted()) {
        abort_communicator();
        throw GroupAborted("the server group was aborted: " + state_->reason());
      }
      if (polls < 2000) std::this_thread::yield();
      else std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }

  void abort_communicator() {
    if (comm_ != nullptr && !aborted_) {
      aborted_ = true;
      ncclCommAbort(comm_);
    }
  }

  /// The stream of this server's copies to itself in all_to_all_many, made on first use (on the
  /// server's thread, its device current), and the events that order it with the server's stream.
  struct OwnCopies {
    Stream stream;
    Event inputs_ready, done;
  };

  /// The server's stream waits for what `copies` queued on its stream: now() (checked) on the way
  /// out of a call, or the destructor (unchecked: an exception is already on its way).
  class JoinOnExit {
   public:
    JoinOnExit(OwnCopies* copies, cudaStream_t stream) : copies_(copies), stream_(stream) {}
    JoinOnExit(const JoinOnExit&) = delete;
    JoinOnExit& operator=(const JoinOnExit&) = delete;
    ~JoinOnExit() {
      if (copies_ == nullptr) return;
      if (cudaEventRecord(copies_->done.get(), copies_->stream) == cudaSuccess)
        cudaStreamWaitEvent(stream_, copies_->done.get(), 0);
    }
    void now() {
      if (copies_ == nullptr) return;
      OwnCopies* copies = std::exchange(copies_, nullptr);
      copies->done.record(copies->stream);
      HASHLAB_CUDA_CHECK(cudaStreamWaitEvent(stream_, copies->done.get(), 0));
    }

   private:
    OwnCopies* copies_;
    cudaStream_t stream_;
  };

  std::shared_ptr<GroupState> state_;
  std::unique_ptr<OwnCopies> own_copies_;
  ncclComm_t comm_ = nullptr;
  bool aborted_ = false;
};

}  // namespace

NcclId nccl_unique_id() {
  keep_nvlink_multicast_off();
  ncclUniqueId unique;
  const ncclResult_t result = ncclGetUniqueId(&unique);
  if (result != ncclSuccess) throw NcclError(nccl_failure(result, "ncclGetUniqueId", nullptr));
  NcclId id;
  std::memcpy(id.data(), &unique, sizeof unique);
  return id;
}

std::unique_ptr<Communicator> make_nccl_communicator(int rank, int size, int device, cudaStream_t stream,
                                                     const NcclId& id, std::shared_ptr<GroupState> state) {
  return std::make_unique<NcclCommunicator>(rank, size, device, stream, id, std::move(state));
}

}  // namespace detail
}  // namespace hashlab::servers
