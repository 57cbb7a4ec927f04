// Launching p servers inside one process: one thread per server, each with its device current and
// a stream of its own, kept alive between runs (creating NCCL communicators takes a good part of a
// second, so experiments create a group once and run many joins on it).
//
//   servers::ServerGroup group({4, servers::Backend::kLocal});   // 4 servers; on one GPU they share it
//   group.run([&](servers::Communicator& comm) { ... });         // on every server; rethrows a failure
//
// The other launch mode, one process per GPU under mpirun, is MpiServer (mpi.hpp).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hashlab/servers/communicator.hpp"

namespace hashlab::servers {

struct GroupOptions {
  int servers = 1;
  Backend backend = Backend::kNccl;
  /// The device of each server; empty: server r on device r, or for the local backend on a host
  /// with fewer GPUs than servers, device r mod the GPU count (servers share GPUs).
  std::vector<int> devices;
};

class ServerGroup {
 public:
  /// Starts the servers' threads and their communicators. Throws std::invalid_argument when the
  /// host cannot hold the group (more servers than GPUs for NCCL, a device that does not exist,
  /// no NCCL in this build), and the first server's error when one fails to start.
  explicit ServerGroup(GroupOptions options);
  ~ServerGroup();
  ServerGroup(const ServerGroup&) = delete;
  ServerGroup& operator=(const ServerGroup&) = delete;

  int size() const;
  Backend backend() const;
  const std::vector<int>& devices() const;
  /// Whether two servers share a device (then times measure one GPU's work, not p GPUs').
  bool shares_devices() const;

  /// Runs work(comm) on every server, each on its own thread, and returns when all have
  /// finished. When a server throws, the group is aborted (the others end with GroupAborted at
  /// their next collective) and run() rethrows the first failing server's own exception. A
  /// group that failed cannot run again (failed() is true; run() throws std::logic_error).
  void run(const std::function<void(Communicator&)>& work);
  bool failed() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// CUDA devices on this host (0 without a GPU; never throws).
int device_count();

/// Sets NCCL_NVLS_ENABLE=0 unless the environment sets it already: NVLink multicast stays off
/// (see communicator.hpp). Called before every communicator is created; exposed for tools.
void keep_nvlink_multicast_off();

}  // namespace hashlab::servers
