// MpiServer: one server per MPI process, its NCCL id broadcast by MPI (mpi.hpp).
#include "hashlab/servers/mpi.hpp"

#include <mpi.h>

#include <cstdio>
#include <iostream>

#include "../src/detail.hpp"
#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/servers/group.hpp"

namespace hashlab::servers {

struct MpiServer::Impl {
  int rank = 0;
  int size = 1;
  std::unique_ptr<Stream> stream;
  std::shared_ptr<detail::GroupState> state;
  std::unique_ptr<Communicator> comm;
};

namespace {

[[noreturn]] void end_every_process(int rank, int size, const std::string& what, int status) {
  std::fprintf(stderr, "hashlab: server %d of %d: %s (ending every server)\n", rank, size, what.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, status);
  std::abort();  // MPI_Abort does not return
}

}  // namespace

MpiServer::MpiServer(int* argc, char*** argv) : impl_(std::make_unique<Impl>()) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &impl_->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &impl_->size);
  // The processes of this host, to give each its own GPU.
  MPI_Comm host;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, impl_->rank, MPI_INFO_NULL, &host);
  int local_rank = 0, local_size = 1;
  MPI_Comm_rank(host, &local_rank);
  MPI_Comm_size(host, &local_size);
  MPI_Comm_free(&host);
  try {
    const int gpus = device_count();
    if (local_rank >= gpus)
      throw std::invalid_argument(std::to_string(local_size) + " processes on this host, which has " +
                                  std::to_string(gpus) + " GPU" + (gpus == 1 ? "" : "s") +
                                  ": NCCL needs a GPU of its own for every server (start at most that many "
                                  "processes per host: mpirun --host name:" + std::to_string(gpus) + ")");
    HASHLAB_CUDA_CHECK(cudaSetDevice(local_rank));
    detail::NcclId id{};
    if (impl_->rank == 0) id = detail::nccl_unique_id();
    MPI_Bcast(id.data(), static_cast<int>(id.size()), MPI_BYTE, 0, MPI_COMM_WORLD);
    impl_->stream = std::make_unique<Stream>();
    impl_->state = std::make_shared<detail::GroupState>(std::vector<int>{local_rank});
    impl_->comm = detail::make_nccl_communicator(impl_->rank, impl_->size, local_rank, impl_->stream->get(), id,
                                                 impl_->state);
  } catch (const std::exception& e) {
    end_every_process(impl_->rank, impl_->size, e.what(), 1);
  }
}

MpiServer::~MpiServer() {
  impl_->comm.reset();
  impl_->stream.reset();
  MPI_Finalize();
}

Communicator& MpiServer::communicator() { return *impl_->comm; }

int MpiServer::run(const std::function<void(Communicator&)>& work) {
  Communicator& comm = *impl_->comm;
  comm.clear_boundary_failure();
  try {
    work(comm);
    return 0;
  } catch (const std::exception& e) {
    if (!comm.failed_at_boundary()) end_every_process(impl_->rank, impl_->size, e.what(), 1);
    if (impl_->rank == 0) std::fprintf(stderr, "hashlab: %s\n", e.what());
    return dynamic_cast<const std::invalid_argument*>(&e) != nullptr ? 2 : 1;
  }
}

}  // namespace hashlab::servers
