// The in-process backend: the servers are threads of one process, on any devices (the same GPU
// allowed). A collective is a rendezvous of the threads: each server waits for its own stream
// (its send data are complete), posts where its data lie, meets the others at the barrier, copies
// what it receives from its peers' buffers on its own stream (cudaMemcpyPeerAsync, a plain
// device copy when the peer is on the same GPU), waits for the copies, and meets the others again
// before anyone may reuse a buffer that was read.
#include <cstring>
#include <stdexcept>
#include <string>

#include "detail.hpp"
#include "hashlab/common/cuda_check.hpp"

namespace hashlab::servers::detail {
namespace {

class LocalCommunicator final : public Communicator {
 public:
  LocalCommunicator(int rank, cudaStream_t stream, std::shared_ptr<GroupState> state)
      : Communicator(rank, state->size(), state->device_of(rank), stream), state_(std::move(state)) {}

  Backend backend() const override { return Backend::kLocal; }

  void all_gather_bytes(const void* send, void* recv, std::size_t bytes) override {
    collective(send, nullptr, bytes, [&](int peer, const GroupState::Slot& slot) {
      copy(static_cast<char*>(recv) + static_cast<std::size_t>(peer) * bytes, slot.data, peer, bytes);
    });
  }

  void all_to_all_bytes(const void* send, const ExchangePlan& plan, void* recv) override {
    if (plan.size != size() || plan.rank != rank())
      throw std::logic_error(who() + ": an exchange plan of server " + std::to_string(plan.rank) + " of " +
                             std::to_string(plan.size));
    collective(send, &plan, 0, [&](int peer, const GroupState::Slot& slot) {
      const auto me = static_cast<std::size_t>(rank());
      const auto from = static_cast<std::size_t>(peer);
      const std::uint64_t bytes = slot.plan->send_counts[me];
      if (bytes != plan.recv_counts[from])
        throw std::logic_error(who() + " expects " + std::to_string(plan.recv_counts[from]) + " bytes from server " +
                               std::to_string(peer) + ", which sends " + std::to_string(bytes) +
                               " (the servers' exchange plans disagree)");
      copy(static_cast<char*>(recv) + plan.recv_offsets[from],
           static_cast<const char*>(slot.data) + slot.plan->send_offsets[me], peer, bytes);
    });
  }

  void all_gather_host_bytes(const void* value, void* out, std::size_t bytes) override {
    check_group();
    GroupState::Slot& mine = state_->slot(rank());
    mine = {value, nullptr, bytes};
    state_->arrive_and_wait();
    for (int peer = 0; peer < size(); ++peer)
      std::memcpy(static_cast<char*>(out) + static_cast<std::size_t>(peer) * bytes, state_->slot(peer).data, bytes);
    state_->arrive_and_wait();
  }

  void abort(const std::string& reason) override { state_->abort(reason); }

 protected:
  void check_group() override { state_->throw_if_aborted(); }
  void barrier_impl() override { state_->arrive_and_wait(); }

 private:
  template <class CopyFrom>
  void collective(const void* send, const ExchangePlan* plan, std::size_t bytes, CopyFrom&& copy_from) {
    synchronize();  // this server's send data are complete
    state_->slot(rank()) = {send, plan, bytes};
    state_->arrive_and_wait();
    for (int peer = 0; peer < size(); ++peer) copy_from(peer, state_->slot(peer));
    synchronize();  // everything this server receives has arrived
    state_->arrive_and_wait();  // nobody reads this server's send buffer any more
  }

  void copy(void* to, const void* from, int peer, std::size_t bytes) {
    if (bytes == 0) return;
    HASHLAB_CUDA_CHECK(cudaMemcpyPeerAsync(to, device(), from, state_->device_of(peer), bytes, stream()));
  }

  std::shared_ptr<GroupState> state_;
};

}  // namespace

std::unique_ptr<Communicator> make_local_communicator(int rank, cudaStream_t stream, std::shared_ptr<GroupState> state) {
  return std::make_unique<LocalCommunicator>(rank, stream, std::move(state));
}

}  // namespace hashlab::servers::detail
