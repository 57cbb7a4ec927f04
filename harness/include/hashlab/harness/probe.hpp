// `hashlab probe`: the measured hardware limits that every figure is compared against (docs/design.md
// "Measured hardware limits") and that the cuckoo cost model (section 4.5.3) takes its two
// constants from.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hashlab::harness {

/// The NCCL all-to-all between `servers` GPUs of this host (servers/bandwidth.hpp): each GPU holds
/// bytes_per_gpu and sends (p - 1) / p of it to the others; gbps_per_gpu is that over the time.
struct AllToAllLimit {
  int servers = 0;
  std::uint64_t bytes_per_gpu = 0;
  double gbps_per_gpu = 0;
};

struct DeviceLimits {
  std::string device;
  double copy_gbps = 0;                 // device-to-device copy, bytes read + written
  double atomic_exch_gops_large = 0;    // random 8-byte atomicExch, table >= 1 GiB
  double atomic_cas_gops_large = 0;     // random 8-byte atomicCAS, table >= 1 GiB
  double atomic_exch_gops_128mib = 0;
  double atomic_exch_gops_8mib = 0;     // fits in L2
  double random_read_gops_large = 0;    // random 8-byte reads, table >= 1 GiB
  double h2d_pinned_gbps = 0;
  double h2d_pageable_gbps = 0;
  /// On a host with several GPUs (and NCCL): p = 2, 4, 8 GPUs as the host has them, at 64 MiB,
  /// 512 MiB and 2 GiB per GPU as they fit. Empty on a host with one GPU.
  std::vector<AllToAllLimit> all_to_all;

  /// Cuckoo 4.5.3: the cost of one random update (ns) and of one unit-stride 8-byte access (ns).
  double t_uncoalesced_ns() const { return 1.0 / atomic_exch_gops_large; }
  double t_coalesced_ns() const { return 8.0 / copy_gbps; }
};

/// Measures the limits on the current device (a few seconds). Throws without a GPU.
DeviceLimits probe_device();

/// Writes the limits (and the device's properties) as JSON to `path`.
void write_device_limits(const DeviceLimits& limits, const std::string& path);

/// Reads `<out_dir>/device.json` if `hashlab probe` wrote one for this device; else nothing.
std::optional<DeviceLimits> load_device_limits(const std::string& out_dir);


}  // namespace hashlab::harness
