#include "hashlab/common/device.hpp"

#include <cuda_runtime_api.h>

#include "hashlab/common/cuda_check.hpp"

namespace hashlab {

bool gpu_available(std::string* why) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free error so later calls start clean
    if (why) *why = std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err);
    return false;
  }
  if (count == 0) {
    if (why) *why = "the CUDA driver reports no device";
    return false;
  }
  return true;
}

DeviceInfo device_info() {
  int device = 0;
  HASHLAB_CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  HASHLAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  DeviceInfo info;
  info.name = prop.name;
  info.compute_major = prop.major;
  info.compute_minor = prop.minor;
  info.multiprocessors = prop.multiProcessorCount;
  info.global_memory_bytes = prop.totalGlobalMem;
  info.l2_cache_bytes = static_cast<std::size_t>(prop.l2CacheSize);
  info.memory_bus_width_bits = prop.memoryBusWidth;
  HASHLAB_CUDA_CHECK(cudaDeviceGetAttribute(&info.memory_clock_khz, cudaDevAttrMemoryClockRate, device));
  HASHLAB_CUDA_CHECK(cudaDeviceGetAttribute(&info.clock_khz, cudaDevAttrClockRate, device));
  HASHLAB_CUDA_CHECK(cudaDriverGetVersion(&info.driver_version));
  HASHLAB_CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
  return info;
}

std::string device_label() { return gpu_available() ? device_info().name : std::string("cpu-only"); }

void device_memory(std::size_t& free_bytes, std::size_t& total_bytes) {
  HASHLAB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
}

}  // namespace hashlab
