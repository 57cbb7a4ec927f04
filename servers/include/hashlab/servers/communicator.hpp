// The servers of the massively parallel computation (MPC) model as GPUs: p servers, each with its
// rank, its device and its stream, and the few collectives that the algorithms of the suite need
// (Hu, Yi and Tao's model, on which Dash's Pk-Pk report builds: one round gathers samples, one
// all-to-all sends every row to its server, then each server works alone).
//
//   servers::ServerGroup group({/*servers=*/4, servers::Backend::kNccl});   // group.hpp
//   group.run([&](servers::Communicator& comm) {
//     ... local work on comm.stream(), on comm.device() ...
//     comm.all_gather(samples.data(), all_samples.data(), k);          // device buffers
//     comm.all_to_all(rows.data(), plan, received.data());             // variable sizes (plan.hpp)
//     comm.phase_boundary(error);          // every server learns whether any server failed
//   });
//
// Two backends stand behind this one interface:
//   - kNccl: one GPU per server, NCCL's collectives; in one process (a thread per server,
//     ServerGroup) or one process per GPU under mpirun (mpi.hpp). NCCL refuses two ranks on
//     one device.
//   - kLocal: every server a thread of one process, any devices, the same GPU allowed (tests,
//     teaching, a host with one GPU); collectives are cudaMemcpyPeerAsync copies between the
//     servers' buffers, ordered by a rendezvous of the threads.
//
// Rules every algorithm on servers follows (they are what makes a failure end every server):
//   1. Every server calls the same collectives in the same order.
//   2. A collective returns only when this server's part of it is complete (its stream has
//      passed it). So no later local work, and no local synchronisation, waits on a peer: a
//      failed peer can never hang a server outside a collective, and inside one every wait
//      watches for the group's abort.
//   3. Local work between collectives runs in a try block; its error is handed to the next
//      phase_boundary(), which all-gathers an error flag: if any server failed, every server
//      throws the first failing server's error (bad input such as a repeated primary key on one
//      server thus reaches every server as the same std::invalid_argument).
//   4. An error that escapes (a failed CUDA call inside a collective, say) aborts the group:
//      the other servers' next collective or wait throws GroupAborted with the reason. In one
//      process the group's shared state carries the abort (and each NCCL communicator is
//      aborted with ncclCommAbort by its own thread); across processes the launcher ends every
//      process (MPI_Abort) after printing the error.
//
// NVLink multicast (NVLS) stays off: the NCCL backend sets NCCL_NVLS_ENABLE=0 in the environment
// before it creates a communicator, unless the user set the variable, and nothing here calls
// cuMulticastCreate. On a host whose GPUs others share, multicast objects can take GPUs out of
// service.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "hashlab/servers/plan.hpp"

namespace hashlab::servers {

enum class Backend {
  kNccl,   // NCCL, one GPU per server
  kLocal,  // in-process copies, any devices (servers may share one GPU)
};

/// "nccl" or "local".
const char* to_string(Backend backend);
/// Parses "nccl" or "local"; throws std::invalid_argument naming the accepted values.
Backend parse_backend(const std::string& name);
/// Whether this build has the NCCL backend (CMake found NCCL).
bool nccl_built();

/// Thrown on a server when another server of its group failed: what() gives the first failure.
class GroupAborted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A failed NCCL call; what() names the call, NCCL's error string and its last message.
class NcclError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One server's view of its group. Created by ServerGroup (group.hpp) or MpiServer (mpi.hpp); the
/// algorithms take a Communicator& and run on every server.
class Communicator {
 public:
  virtual ~Communicator() = default;
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int device() const { return device_; }
  cudaStream_t stream() const { return stream_; }
  virtual Backend backend() const = 0;
  /// A label for messages: "server 2 of 4".
  std::string who() const;

  // ---- collectives (rules 1 and 2 above) ------------------------------------------------------

  /// recv[s * bytes, (s + 1) * bytes) = server s's `send` (device memory of this server's device).
  /// `bytes` is the same on every server (the local backend refuses sizes that disagree with a
  /// std::logic_error on every server, before any copy).
  virtual void all_gather_bytes(const void* send, void* recv, std::size_t bytes) = 0;
  /// Server s's send[plan_s.send_offsets[d], + send_counts[d]) lands in server d's
  /// recv[plan_d.recv_offsets[s], + recv_counts[s]), counts and offsets in bytes here. The plans
  /// must agree (ExchangePlan::from_counts on the same matrix). The local backend sees every
  /// server's plan and refuses a disagreement with a std::logic_error on every server, before
  /// any copy; an NCCL server sees only its own plan and refuses one that disagrees with itself
  /// (what it sends itself against what it expects from itself): a disagreement between NCCL
  /// servers is the caller's to avoid.
  virtual void all_to_all_bytes(const void* send, const ExchangePlan& plan_bytes, void* recv) = 0;
  /// One all_to_all_bytes of several buffers (the columns of a table, or two tables), each with
  /// its own plan: the same result as one call per exchange in turn. The NCCL backend sends them
  /// as one group of sends and receives and waits once; the local backend copies them in turn.
  struct Exchange {
    const void* send = nullptr;
    ExchangePlan plan_bytes;
    void* recv = nullptr;
  };
  virtual void all_to_all_many(const std::vector<Exchange>& exchanges) {
    for (const Exchange& e : exchanges) all_to_all_bytes(e.send, e.plan_bytes, e.recv);
  }
  /// The same as all_gather_bytes for a small host value (out holds size() * bytes).
  virtual void all_gather_host_bytes(const void* value, void* out, std::size_t bytes) = 0;
  /// Every server waits for every other (and for its own stream).
  void barrier();

  template <class T>
  void all_gather(const T* send, T* recv, std::size_t count) {
    all_gather_bytes(send, recv, count * sizeof(T));
  }
  /// Variable sizes: server s's `count_s` elements at recv[offset_s], offsets from the counts in
  /// server order; returns the counts (one all_gather_host, then one all_to_all).
  template <class T>
  std::vector<std::uint64_t> all_gather_v(const T* send, std::size_t count, T* recv) {
    const std::vector<std::uint64_t> counts = all_gather_host<std::uint64_t>(count);
    all_to_all_bytes(send, ExchangePlan::broadcast(counts, rank_).scaled(sizeof(T)), recv);
    return counts;
  }
  /// Counts and offsets of `plan` in elements of T.
  template <class T>
  void all_to_all(const T* send, const ExchangePlan& plan, T* recv) {
    all_to_all_bytes(send, plan.scaled(sizeof(T)), recv);
  }
  template <class T>
  std::vector<T> all_gather_host(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>, "host collectives copy bytes");
    std::vector<T> out(static_cast<std::size_t>(size_));
    all_gather_host_bytes(&value, out.data(), sizeof(T));
    return out;
  }
  /// Each server's vector of `count` values, server after server (count equal on every server).
  template <class T>
  std::vector<T> all_gather_host(const std::vector<T>& values) {
    static_assert(std::is_trivially_copyable_v<T>, "host collectives copy bytes");
    std::vector<T> out(values.size() * static_cast<std::size_t>(size_));
    all_gather_host_bytes(values.data(), out.data(), values.size() * sizeof(T));
    return out;
  }
  std::uint64_t all_reduce_max(std::uint64_t value);
  std::uint64_t all_reduce_sum(std::uint64_t value);

  // ---- failures (rules 3 and 4) ---------------------------------------------------------------

  /// The error flag all-reduced at a phase boundary. Every server passes what its local work
  /// since the last boundary threw (nullptr when nothing). When no server failed this returns;
  /// otherwise every server throws the failure of the lowest failing server, its message
  /// prefixed with "server r of p: " and `phase`: std::invalid_argument for bad input,
  /// OutOfDeviceMemory for a device allocation that did not fit, std::runtime_error otherwise.
  void phase_boundary(const std::exception_ptr& error, const std::string& phase);
  /// Whether the last error this server threw came from phase_boundary, where every server threw
  /// the same error at the same point: the group is still usable and need not be aborted. The
  /// launchers read it, and clear it before each run.
  bool failed_at_boundary() const { return failed_at_boundary_; }
  void clear_boundary_failure() { failed_at_boundary_ = false; }

  /// Ends the group: every server's next collective or wait throws GroupAborted(reason).
  /// Called by the launchers when a server's work throws; safe to call more than once.
  virtual void abort(const std::string& reason) = 0;

  /// Waits for this server's stream while watching for the group's abort and for NCCL's
  /// asynchronous errors (never a hang on a failed peer). Collectives call it; algorithms may.
  void synchronize();

 protected:
  Communicator(int rank, int size, int device, cudaStream_t stream)
      : rank_(rank), size_(size), device_(device), stream_(stream) {}
  /// Throws GroupAborted when the group was aborted, NcclError on an asynchronous NCCL error.
  virtual void check_group() = 0;
  /// The backend's barrier (after this server's stream is idle).
  virtual void barrier_impl() = 0;

 private:
  int rank_;
  int size_;
  int device_;
  cudaStream_t stream_;
  bool failed_at_boundary_ = false;
};

/// Runs `step` and returns what it threw (nullptr when nothing): the local work of a phase, whose
/// error goes to the next Communicator::phase_boundary (rule 3).
template <class Step>
std::exception_ptr guarded(Step&& step) {
  try {
    step();
  } catch (...) {
    return std::current_exception();
  }
  return nullptr;
}

}  // namespace hashlab::servers
