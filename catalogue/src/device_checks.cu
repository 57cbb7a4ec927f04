// The checks of device columns that the catalogue makes before an algorithm reads them (an empty
// key the algorithm reserves, values beyond what it reads, a NaN), without copying them to the host.
#include <cub/device/device_reduce.cuh>

#include "detail.hpp"
#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/launch.cuh"

namespace hashlab::catalogue::detail {
namespace {

__global__ void first_nan_kernel(const double* values, std::size_t n, unsigned long long* first) {
  for (const std::size_t i : grid_stride(n))
    if (isnan(values[i])) atomicMin(first, static_cast<unsigned long long>(i));
}

}  // namespace

std::size_t device_first_nan(const double* values, std::size_t n, cudaStream_t stream) {
  if (n == 0) return 0;
  DeviceBuffer<unsigned long long> first(1, stream);
  first.fill_bytes(0xff, stream);  // no NaN: the largest value, read back as n below
  first_nan_kernel<<<grid_for(n), kDefaultBlock, 0, stream>>>(values, n, first.data());
  HASHLAB_CHECK_LAUNCH();
  const unsigned long long row = read_device_value(first.data(), stream);
  return row < n ? static_cast<std::size_t>(row) : n;
}

std::uint32_t device_max(const std::uint32_t* values, std::size_t n, cudaStream_t stream) {
  if (n == 0) return 0;
  DeviceBuffer<std::uint32_t> result(1, stream);
  std::size_t bytes = 0;
  HASHLAB_CUDA_CHECK(cub::DeviceReduce::Max(nullptr, bytes, values, result.data(), n, stream));
  DeviceBuffer<unsigned char> temp(bytes, stream);
  HASHLAB_CUDA_CHECK(cub::DeviceReduce::Max(temp.data(), bytes, values, result.data(), n, stream));
  return read_device_value(result.data(), stream);
}

}  // namespace hashlab::catalogue::detail
