#include "hashlab/common/cuda_check.hpp"

#include <sstream>

namespace hashlab::detail {

void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  // A failed runtime call also becomes the thread's "last error"; once it is reported here it must
  // not linger, or the next unrelated HASHLAB_CHECK_LAUNCH would report it again (a sticky error,
  // which poisons the context, stays whatever this does).
  cudaGetLastError();
  std::ostringstream msg;
  msg << "CUDA error " << cudaGetErrorName(err) << " (" << cudaGetErrorString(err) << ") in " << call
      << " at " << file << ":" << line;
  throw CudaError(msg.str(), static_cast<int>(err));
}

void throw_library_error(const char* library, int status, const char* call, const char* file, int line) {
  std::ostringstream msg;
  msg << library << " error " << status << " in " << call << " at " << file << ":" << line;
  throw CudaError(msg.str(), status);
}

}  // namespace hashlab::detail
