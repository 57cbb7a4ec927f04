// A build without NCCL (CMake did not find it): the local backend only; asking for NCCL says why.
#include <stdexcept>

#include "detail.hpp"

namespace hashlab::servers {

bool nccl_built() { return false; }

namespace detail {
namespace {
[[noreturn]] void no_nccl() {
  throw std::invalid_argument(
      "this build of hashlab has no NCCL backend (CMake found no nccl.h and libnccl: install NCCL, or "
      "`pip install nvidia-nccl-cu13`, and configure again); the local backend runs every server in one process");
}
}  // namespace

NcclId nccl_unique_id() { no_nccl(); }

std::unique_ptr<Communicator> make_nccl_communicator(int, int, int, cudaStream_t, const NcclId&,
                                                     std::shared_ptr<GroupState>) {
  no_nccl();
}

}  // namespace detail
}  // namespace hashlab::servers
