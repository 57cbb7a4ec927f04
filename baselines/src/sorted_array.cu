// Sorted array + binary search (see hashlab/baselines/sorted_array.hpp).
#include "hashlab/baselines/sorted_array.hpp"

#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/launch.cuh"
#include "hashlab/common/primitives.hpp"
#include "hashlab/common/search.hpp"
#include "hashlab/common/sentinels.hpp"

namespace hashlab::baseline {
namespace {

__global__ void binary_search_kernel(const std::uint32_t* keys, const std::uint32_t* values, std::size_t size,
                                     const std::uint32_t* queries, std::size_t n, std::uint32_t* values_out) {
  for (const std::size_t i : grid_stride(n)) {
    const std::uint32_t q = queries[i];
    const std::size_t at = lower_bound(keys, size, q);
    values_out[i] = (at < size && keys[at] == q) ? values[at] : kNotFound;
  }
}

}  // namespace

void SortedArray::build(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, cudaStream_t stream) {
  keys_ = DeviceBuffer<std::uint32_t>(n, stream);
  values_ = DeviceBuffer<std::uint32_t>(n, stream);
  if (n == 0) return;
  HASHLAB_CUDA_CHECK(cudaMemcpyAsync(keys_.data(), keys, n * sizeof(std::uint32_t), cudaMemcpyDeviceToDevice, stream));
  HASHLAB_CUDA_CHECK(cudaMemcpyAsync(values_.data(), values, n * sizeof(std::uint32_t), cudaMemcpyDeviceToDevice, stream));
  prim::sort_pairs(keys_.data(), values_.data(), n, stream);
}

void SortedArray::find(const std::uint32_t* queries, std::size_t n, std::uint32_t* values_out,
                       cudaStream_t stream) const {
  if (n == 0) return;
  binary_search_kernel<<<grid_for(n), kDefaultBlock, 0, stream>>>(keys_.data(), values_.data(), keys_.size(), queries,
                                                                  n, values_out);
  HASHLAB_CHECK_LAUNCH();
}

}  // namespace hashlab::baseline
