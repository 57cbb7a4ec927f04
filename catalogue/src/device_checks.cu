// The checks of device columns that the catalogue makes before an algorithm reads them (an empty
// key the algorithm reserves, values beyond what it reads), without copying them to the host.
#include <cub/device/device_reduce.cuh>

#include "detail.hpp"
#include "hashlab/common/cuda_check.hpp"

namespace hashlab::catalogue::detail {

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
