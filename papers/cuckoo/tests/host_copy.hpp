// Test helper: copies device memory to the host in the order of `stream` (the tables' streams are
// non-blocking, so a plain cudaMemcpy would not wait for their kernels).
#pragma once

#include <cuda_runtime_api.h>

#include <vector>

#include "hashlab/common/cuda_check.hpp"

namespace hashlab::cuckoo::test_support {

template <class T>
std::vector<T> host_copy(const T* device, std::size_t n, cudaStream_t stream) {
  std::vector<T> out(n);
  if (n > 0) {
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(out.data(), device, n * sizeof(T), cudaMemcpyDeviceToHost, stream));
    HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  return out;
}

}  // namespace hashlab::cuckoo::test_support
