// The second launch mode: one process per GPU, started by mpirun, so that the same algorithms run
// across hosts. Rank r's server uses the GPU of its local rank on its host; rank 0 creates the
// NCCL id and MPI broadcasts it. Built as the library hashlab_servers_mpi when CMake finds MPI.
//
//   int main(int argc, char** argv) {
//     servers::MpiServer server(&argc, &argv);                 // MPI_Init, the NCCL communicator
//     return server.run([&](servers::Communicator& comm) { ... });
//   }
//   $ mpirun -np 4 ./program                                  # one host, four GPUs
//   $ mpirun -np 8 --host a:4,b:4 ./program                   # two hosts of four GPUs each
//
// A failure that every server shares (an error at a phase boundary: bad input) makes every
// process return the same exit status with the same message (printed by server 0). A failure of
// one server alone is printed by that server, which then ends every process with MPI_Abort:
// never a hang.
#pragma once

#include <functional>
#include <memory>

#include "hashlab/servers/communicator.hpp"

namespace hashlab::servers {

class MpiServer {
 public:
  /// MPI_Init, this process's GPU (its rank among the processes of its host), the NCCL
  /// communicator of all processes. A process without a GPU of its own (more processes on a host
  /// than GPUs) prints why and ends every process (MPI_Abort).
  MpiServer(int* argc, char*** argv);
  /// Destroys the communicator and calls MPI_Finalize.
  ~MpiServer();
  MpiServer(const MpiServer&) = delete;
  MpiServer& operator=(const MpiServer&) = delete;

  Communicator& communicator();
  /// Runs work(communicator()) and returns the exit status: 0, or 2 for bad input
  /// (std::invalid_argument) and 1 for another error that every server shares. A failure of this
  /// server alone never returns: it is printed and every process ends (MPI_Abort, status 1).
  int run(const std::function<void(Communicator&)>& work);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hashlab::servers
