// CUDA error checking: every failing call is reported with its text, file and line, as an
// exception (library code never exits; the CLI reports and sets the exit status).
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

#if defined(__CUDACC__)
#define HASHLAB_HD __host__ __device__ __forceinline__
#define HASHLAB_DEVICE __device__ __forceinline__
#else
#define HASHLAB_HD inline
#define HASHLAB_DEVICE inline
#endif

namespace hashlab {

/// A failed CUDA runtime or library call; what() names the call, the error, file and line.
class CudaError : public std::runtime_error {
 public:
  CudaError(const std::string& what, int code) : std::runtime_error(what), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

namespace detail {
[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line);
[[noreturn]] void throw_library_error(const char* library, int status, const char* call,
                                      const char* file, int line);
}  // namespace detail

}  // namespace hashlab

/// Checks a CUDA runtime call: HASHLAB_CUDA_CHECK(cudaMemsetAsync(p, 0, bytes, stream));
#define HASHLAB_CUDA_CHECK(call)                                                  \
  do {                                                                            \
    const cudaError_t hashlab_err_ = (call);                                      \
    if (hashlab_err_ != cudaSuccess)                                              \
      ::hashlab::detail::throw_cuda_error(hashlab_err_, #call, __FILE__, __LINE__); \
  } while (0)

/// Checks the launch that precedes it (configuration errors, and earlier asynchronous faults).
#define HASHLAB_CHECK_LAUNCH() HASHLAB_CUDA_CHECK(cudaGetLastError())

/// Checks a CUDA library call (cuRAND and the like) whose success status is 0.
#define HASHLAB_LIB_CHECK(library, call)                                                    \
  do {                                                                                      \
    const int hashlab_status_ = static_cast<int>(call);                                     \
    if (hashlab_status_ != 0)                                                               \
      ::hashlab::detail::throw_library_error(library, hashlab_status_, #call, __FILE__, __LINE__); \
  } while (0)
