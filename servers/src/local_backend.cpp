// The in-process backend: the servers are threads of one process, on any devices (the same GPU
// allowed). A collective is a rendezvous of the threads: each server waits for its own stream
// (its send data are complete) and posts where its data lie; the last server to arrive checks
// that every server's sizes agree, before anyone copies; then each server copies what it
// receives from its peers' buffers on its own stream (cudaMemcpyPeerAsync, a plain device copy
// when the peer is on the same GPU) and waits for its copies. No server leaves the collective,
// returning or throwing, before every server's copies are complete: a server that leaves frees
// its buffers, which a peer's copy may still be reading.
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>

#include "detail.hpp"
#include "hashlab/common/cuda_check.hpp"

namespace hashlab::servers::detail {
namespace {

using Slots = std::vector<GroupState::Slot>;

/// Every server gives the same number of bytes (an all-gather); "" when they do.
std::string check_equal_sizes(const Slots& slots, const char* collective) {
  for (std::size_t s = 1; s < slots.size(); ++s)
    if (slots[s].bytes != slots[0].bytes)
      return std::string("the servers' ") + collective + " sizes disagree: server 0 gives " +
             std::to_string(slots[0].bytes) + " bytes, server " + std::to_string(s) + " gives " +
             std::to_string(slots[s].bytes);
  return "";
}

/// Every server's plan sends each peer what the peer's plan expects from it; "" when they agree.
std::string check_plans_agree(const Slots& slots) {
  const std::size_t p = slots.size();
  for (std::size_t s = 0; s < p; ++s) {
    const ExchangePlan* plan = slots[s].plan;
    if (plan == nullptr || plan->send_counts.size() != p || plan->send_offsets.size() != p ||
        plan->recv_counts.size() != p || plan->recv_offsets.size() != p)
      return "server " + std::to_string(s) + "'s exchange plan is not a plan for " + std::to_string(p) + " servers";
  }
  for (std::size_t s = 0; s < p; ++s)
    for (std::size_t d = 0; d < p; ++d) {
      const std::uint64_t sends = slots[s].plan->send_counts[d], expects = slots[d].plan->recv_counts[s];
      if (sends != expects && s == d)
        return "server " + std::to_string(s) + "'s exchange plan sends itself " + std::to_string(sends) +
               " bytes but expects " + std::to_string(expects);
      if (sends != expects)
        return "the servers' exchange plans disagree: server " + std::to_string(s) + " sends " +
               std::to_string(sends) + " bytes to server " + std::to_string(d) + ", which expects " +
               std::to_string(expects) + " (every server builds its plan from the same count matrix)";
    }
  return "";
}

class LocalCommunicator final : public Communicator {
 public:
  LocalCommunicator(int rank, cudaStream_t stream, std::shared_ptr<GroupState> state)
      : Communicator(rank, state->size(), state->device_of(rank), stream), state_(std::move(state)) {}

  Backend backend() const override { return Backend::kLocal; }

  void all_gather_bytes(const void* send, void* recv, std::size_t bytes) override {
    collective(
        {send, nullptr, bytes}, [](const Slots& slots) { return check_equal_sizes(slots, "all-gather"); },
        [&](int peer, const GroupState::Slot& slot) {
          copy(static_cast<char*>(recv) + static_cast<std::size_t>(peer) * bytes, slot.data, peer, bytes);
        });
  }

  void all_to_all_bytes(const void* send, const ExchangePlan& plan, void* recv) override {
    if (plan.size != size() || plan.rank != rank())
      throw std::logic_error(who() + ": an exchange plan of server " + std::to_string(plan.rank) + " of " +
                             std::to_string(plan.size));
    collective({send, &plan, 0}, check_plans_agree, [&](int peer, const GroupState::Slot& slot) {
      // The plans agree (checked before any copy): the peer sends what this plan expects.
      const auto me = static_cast<std::size_t>(rank());
      const auto from = static_cast<std::size_t>(peer);
      copy(static_cast<char*>(recv) + plan.recv_offsets[from],
           static_cast<const char*>(slot.data) + slot.plan->send_offsets[me], peer, plan.recv_counts[from]);
    });
  }

  void all_gather_host_bytes(const void* value, void* out, std::size_t bytes) override {
    check_group();
    state_->slot(rank()) = {value, nullptr, bytes};
    const std::string disagreement =
        state_->begin_exchange([](const Slots& slots) { return check_equal_sizes(slots, "host all-gather"); });
    Leaving leaving(*this);
    if (!disagreement.empty()) throw std::logic_error(who() + ": " + disagreement);
    for (int peer = 0; peer < size(); ++peer)
      std::memcpy(static_cast<char*>(out) + static_cast<std::size_t>(peer) * bytes, state_->slot(peer).data, bytes);
  }

  void abort(const std::string& reason) override { state_->abort(reason); }

 protected:
  void check_group() override { state_->throw_if_aborted(); }
  void barrier_impl() override { state_->arrive_and_wait(); }

 private:
  /// Leaving a collective after begin_exchange: on an error, this server's own copies are drained
  /// first (they wait on no peer); then it waits until no server reads a peer's buffer any more.
  class Leaving {
   public:
    explicit Leaving(LocalCommunicator& comm) : comm_(comm), exceptions_(std::uncaught_exceptions()) {}
    ~Leaving() {
      if (std::uncaught_exceptions() > exceptions_) {
        // The error in flight is the one reported: the drain's own error, if any, is cleared so
        // that no later check reports it again.
        if (cudaStreamSynchronize(comm_.stream()) != cudaSuccess) (void)cudaGetLastError();
      }
      comm_.state_->end_exchange();
    }
    Leaving(const Leaving&) = delete;
    Leaving& operator=(const Leaving&) = delete;

   private:
    LocalCommunicator& comm_;
    int exceptions_;
  };

  template <class Check, class CopyFrom>
  void collective(const GroupState::Slot& mine, Check&& check, CopyFrom&& copy_from) {
    synchronize();  // this server's send data are complete
    state_->slot(rank()) = mine;
    const std::string disagreement = state_->begin_exchange(check);
    Leaving leaving(*this);
    if (!disagreement.empty()) throw std::logic_error(who() + ": " + disagreement);
    for (int peer = 0; peer < size(); ++peer) copy_from(peer, state_->slot(peer));
    synchronize();  // everything this server receives has arrived
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
