// Whether a CUDA GPU is present, and what it is.
#pragma once

#include <cstddef>
#include <string>

namespace hashlab {

/// True when at least one usable CUDA device is present. On false, `why` (if given) says why
/// (no driver, no device, ...). Never throws.
bool gpu_available(std::string* why = nullptr);

/// Properties of the current device, as written into every result's JSON sidecar.
struct DeviceInfo {
  std::string name;            // e.g. "NVIDIA H100 80GB HBM3"
  int compute_major = 0;
  int compute_minor = 0;
  int multiprocessors = 0;
  std::size_t global_memory_bytes = 0;
  std::size_t l2_cache_bytes = 0;
  int memory_bus_width_bits = 0;
  int memory_clock_khz = 0;
  int clock_khz = 0;
  int driver_version = 0;
  int runtime_version = 0;
};

/// The current device's properties; throws CudaError when there is no GPU.
DeviceInfo device_info();

/// A short device label for result rows: the device name, or "cpu-only" without a GPU.
std::string device_label();

/// Free and total device memory in bytes (throws without a GPU).
void device_memory(std::size_t& free_bytes, std::size_t& total_bytes);

}  // namespace hashlab
