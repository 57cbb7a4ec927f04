// Internal: Thrust temporary storage from the stream-ordered pool (memory.hpp), so that Thrust
// calls inside timed regions do not pay cudaMalloc.
#pragma once

#include <thrust/execution_policy.h>
#include <thrust/system/cuda/execution_policy.h>

#include <cstddef>

#include "hashlab/common/memory.hpp"

namespace hashlab::rapids::detail {

struct PoolAllocator {
  using value_type = char;
  cudaStream_t stream = nullptr;

  char* allocate(std::ptrdiff_t bytes) {
    return static_cast<char*>(hashlab::detail::device_allocate(static_cast<std::size_t>(bytes), stream));
  }
  void deallocate(char* ptr, std::size_t) { hashlab::detail::device_free(ptr, stream); }
};

/// The policy every Thrust call of the module uses: the pool, on `stream`.
inline auto thrust_policy(PoolAllocator& alloc) { return thrust::cuda::par_nosync(alloc).on(alloc.stream); }

}  // namespace hashlab::rapids::detail
