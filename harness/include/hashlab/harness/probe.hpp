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

/// One measured limit, as every reader names it: its key in device.json (and in each sidecar's
/// hardware_limits, a claim's `limit`, the figures), what it measures and its unit. limit_fields()
/// is the one list of them: the probe's JSON is written and read by it, `hashlab probe` prints it,
/// `hashlab list --json` gives it, and device.json carries each field's label and unit for the
/// report (its "fields").
struct LimitField {
  const char* key;
  const char* label;
  const char* unit;
  using Member = double DeviceLimits::*;
  Member value;
};
const std::vector<LimitField>& limit_fields();

/// The NCCL all-to-all limits, one per GPU count and size: their key, label and unit, with the two
/// numbers named ({servers}, {mib}: MiB per GPU), as `hashlab list --json` gives them.
constexpr const char* kAllToAllKeyPattern = "all_to_all_gbps_p{servers}_{mib}mib";
constexpr const char* kAllToAllLabelPattern = "NCCL all-to-all, {servers} GPUs, {mib} MiB per GPU (to the others)";
constexpr const char* kAllToAllUnit = "GB/s per GPU";
/// One all-to-all limit's key ("all_to_all_gbps_p4_512mib") and label: the patterns filled in.
std::string all_to_all_key(int servers, std::uint64_t bytes_per_gpu);
std::string all_to_all_label(int servers, std::uint64_t bytes_per_gpu);

/// The limits as the JSON object device.json holds: the device, each field's value, the cuckoo
/// cost model's two constants, each all-to-all limit, and "fields": {key: {label, unit}}.
std::string device_limits_json(const DeviceLimits& limits);

/// Measures the limits on the current device (a few seconds). Throws without a GPU.
DeviceLimits probe_device();

/// Writes the limits (and the device's properties) as JSON to `path`.
void write_device_limits(const DeviceLimits& limits, const std::string& path);

/// Reads `<out_dir>/device.json` if `hashlab probe` wrote one for this device; else nothing.
std::optional<DeviceLimits> load_device_limits(const std::string& out_dir);


}  // namespace hashlab::harness
