// `hashlab probe`: device copy bandwidth, random 8-byte atomic and read rates on tables much
// larger than L2 (and on smaller ones, to show the cache), and host-to-device rates.
#include "hashlab/harness/probe.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/device.hpp"
#include "hashlab/common/hash.hpp"
#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/launch.cuh"
#include "hashlab/common/memory.hpp"
#include "hashlab/harness/json.hpp"
#include "hashlab/servers/bandwidth.hpp"

namespace hashlab::harness {
namespace {

constexpr int kRepetitions = 7;

enum class Access { kExch, kCas, kRead };

// Each operation touches a pseudo-random slot of a power-of-two table: no spatial locality, as
// in a hash table insert (exch / CAS) or lookup (read).
template <Access kAccess>
__global__ void random_access_kernel(unsigned long long* table, std::uint64_t mask, std::uint64_t ops,
                                     std::uint64_t salt, unsigned long long* sink) {
  unsigned long long acc = 0;
  for (const std::uint64_t i : grid_stride(ops)) {
    const std::uint64_t slot = hash::fmix64(i ^ salt) & mask;
    if constexpr (kAccess == Access::kExch) acc += atomicExch(table + slot, i);
    else if constexpr (kAccess == Access::kCas) acc += atomicCAS(table + slot, i, i + 1);
    else acc += table[slot];
  }
  if (acc == 0x5eed5eed5eedull) *sink = acc;  // keeps the loads alive; practically never taken
}

template <class Run>
double median_ms(Run&& run, cudaStream_t stream) {
  run();  // warm-up
  HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> times;
  EventTimer timer;
  for (int r = 0; r < kRepetitions; ++r) {
    timer.start(stream);
    run();
    timer.stop(stream);
    times.push_back(timer.elapsed_ms());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

template <Access kAccess>
double random_rate_gops(std::size_t table_bytes, cudaStream_t stream) {
  const std::size_t slots = table_bytes / sizeof(unsigned long long);
  DeviceBuffer<unsigned long long> table(slots, stream);
  DeviceBuffer<unsigned long long> sink(1, stream);
  table.fill_bytes(0x11, stream);  // a written table: never time on a buffer nobody wrote
  const std::uint64_t ops = std::max<std::uint64_t>(slots, std::uint64_t{1} << 26);
  std::uint64_t salt = 1;
  const double ms = median_ms(
      [&] {
        random_access_kernel<kAccess><<<grid_for(ops, 256, 1u << 20), 256, 0, stream>>>(table.data(), slots - 1, ops,
                                                                                        salt++, sink.data());
        HASHLAB_CHECK_LAUNCH();
      },
      stream);
  return static_cast<double>(ops) / (ms * 1e-3) / 1e9;
}

double copy_gbps(std::size_t bytes, cudaStream_t stream) {
  DeviceBuffer<unsigned char> src(bytes, stream), dst(bytes, stream);
  src.fill_bytes(0x5a, stream);
  const double ms = median_ms(
      [&] { HASHLAB_CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, stream)); },
      stream);
  return 2.0 * static_cast<double>(bytes) / (ms * 1e-3) / 1e9;  // bytes read + bytes written
}

double h2d_gbps(const void* host, std::size_t bytes, cudaStream_t stream) {
  DeviceBuffer<unsigned char> dst(bytes, stream);
  const double ms = median_ms(
      [&] { HASHLAB_CUDA_CHECK(cudaMemcpyAsync(dst.data(), host, bytes, cudaMemcpyHostToDevice, stream)); }, stream);
  return static_cast<double>(bytes) / (ms * 1e-3) / 1e9;
}

// NCCL's all-to-all between 2, 4 and 8 of this host's GPUs (as many as it has), at the sizes the
// issue measured with PyTorch (64 MiB, 512 MiB, 2 GiB per GPU) where two such buffers fit.
std::vector<AllToAllLimit> probe_all_to_all() {
  std::vector<AllToAllLimit> limits;
  const int gpus = servers::device_count();
  if (gpus < 2 || !servers::nccl_built()) return limits;
  std::size_t free_bytes = 0, total_bytes = 0;
  device_memory(free_bytes, total_bytes);
  for (int p = 2; p <= gpus && p <= 8; p *= 2) {
    servers::ServerGroup group({p, servers::Backend::kNccl, {}});
    for (const std::uint64_t bytes : {std::uint64_t{64} << 20, std::uint64_t{512} << 20, std::uint64_t{2} << 30}) {
      if (3 * bytes > free_bytes) continue;
      const servers::AllToAllTiming t = servers::measure_all_to_all(group, bytes, kRepetitions);
      limits.push_back({p, bytes, t.gbps_per_server()});
    }
  }
  return limits;
}

}  // namespace

DeviceLimits probe_device() {
  std::string why;
  if (!gpu_available(&why)) throw std::runtime_error("hashlab probe needs a CUDA GPU (" + why + ")");
  Stream stream;
  DeviceLimits limits;
  limits.device = device_info().name;

  std::size_t free_bytes = 0, total_bytes = 0;
  device_memory(free_bytes, total_bytes);
  // "Much larger than L2": 2 GiB where it fits (docs/design.md's figures use >= 1 GiB tables).
  std::size_t large = std::size_t{2} << 30;
  while (large > (std::size_t{256} << 20) && large * 2 > free_bytes) large /= 2;

  limits.copy_gbps = copy_gbps(std::min<std::size_t>(large / 2, std::size_t{1} << 30), stream);
  limits.atomic_exch_gops_large = random_rate_gops<Access::kExch>(large, stream);
  limits.atomic_cas_gops_large = random_rate_gops<Access::kCas>(large, stream);
  limits.random_read_gops_large = random_rate_gops<Access::kRead>(large, stream);
  limits.atomic_exch_gops_128mib = random_rate_gops<Access::kExch>(std::size_t{128} << 20, stream);
  limits.atomic_exch_gops_8mib = random_rate_gops<Access::kExch>(std::size_t{8} << 20, stream);

  const std::size_t transfer = std::size_t{256} << 20;
  PinnedBuffer<unsigned char> pinned(transfer);
  std::memset(pinned.data(), 0x3c, transfer);
  limits.h2d_pinned_gbps = h2d_gbps(pinned.data(), transfer, stream);
  std::vector<unsigned char> pageable(transfer, 0x3c);
  limits.h2d_pageable_gbps = h2d_gbps(pageable.data(), transfer, stream);
  limits.all_to_all = probe_all_to_all();
  return limits;
}

const std::vector<LimitField>& limit_fields() {
  static const std::vector<LimitField> fields = {
      {"copy_gbps", "device-to-device copy (bytes read + written)", "GB/s", &DeviceLimits::copy_gbps},
      {"atomic_exch_gops_large", "random 8-byte atomicExch, >= 1 GiB table", "G ops/s",
       &DeviceLimits::atomic_exch_gops_large},
      {"atomic_cas_gops_large", "random 8-byte atomicCAS, >= 1 GiB table", "G ops/s",
       &DeviceLimits::atomic_cas_gops_large},
      {"atomic_exch_gops_128mib", "random 8-byte atomicExch, 128 MiB table", "G ops/s",
       &DeviceLimits::atomic_exch_gops_128mib},
      {"atomic_exch_gops_8mib", "random 8-byte atomicExch, 8 MiB table (in L2)", "G ops/s",
       &DeviceLimits::atomic_exch_gops_8mib},
      {"random_read_gops_large", "random 8-byte reads, >= 1 GiB table", "G reads/s",
       &DeviceLimits::random_read_gops_large},
      {"h2d_pinned_gbps", "host to device, pinned", "GB/s", &DeviceLimits::h2d_pinned_gbps},
      {"h2d_pageable_gbps", "host to device, pageable", "GB/s", &DeviceLimits::h2d_pageable_gbps},
  };
  return fields;
}

namespace {

// An all-to-all pattern with its {servers} and {mib} filled in.
std::string fill_all_to_all(std::string pattern, int servers, std::uint64_t bytes_per_gpu) {
  for (const auto& [name, value] : {std::pair<std::string, std::string>{"{servers}", std::to_string(servers)},
                                    {"{mib}", std::to_string(bytes_per_gpu >> 20)}})
    for (auto at = pattern.find(name); at != std::string::npos; at = pattern.find(name))
      pattern.replace(at, name.size(), value);
  return pattern;
}

}  // namespace

std::string all_to_all_key(int servers, std::uint64_t bytes_per_gpu) {
  return fill_all_to_all(kAllToAllKeyPattern, servers, bytes_per_gpu);
}

std::string all_to_all_label(int servers, std::uint64_t bytes_per_gpu) {
  return fill_all_to_all(kAllToAllLabelPattern, servers, bytes_per_gpu);
}

std::string device_limits_json(const DeviceLimits& limits) {
  JsonWriter json;
  json.begin_object();
  json.field("device", limits.device);
  for (const LimitField& f : limit_fields()) json.field(f.key, limits.*f.value);
  json.field("t_uncoalesced_ns", limits.t_uncoalesced_ns());
  json.field("t_coalesced_ns", limits.t_coalesced_ns());
  for (const AllToAllLimit& a : limits.all_to_all) json.field(all_to_all_key(a.servers, a.bytes_per_gpu), a.gbps_per_gpu);
  json.begin_object("fields");
  const auto describe = [&](const std::string& key, const std::string& label, const char* unit) {
    json.begin_object(key);
    json.field("label", label);
    json.field("unit", std::string(unit));
    json.end_object();
  };
  for (const LimitField& f : limit_fields()) describe(f.key, f.label, f.unit);
  for (const AllToAllLimit& a : limits.all_to_all)
    describe(all_to_all_key(a.servers, a.bytes_per_gpu), all_to_all_label(a.servers, a.bytes_per_gpu), kAllToAllUnit);
  json.end_object();
  json.end_object();
  return json.str();
}

void write_device_limits(const DeviceLimits& limits, const std::string& path) {
  const auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << device_limits_json(limits) << "\n";
}

std::optional<DeviceLimits> load_device_limits(const std::string& out_dir) {
  const auto path = std::filesystem::path(out_dir) / "device.json";
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  std::map<std::string, double> numbers;
  std::map<std::string, std::string> strings;
  read_flat_json(text.str(), numbers, strings);
  DeviceLimits limits;
  limits.device = strings["device"];
  if (gpu_available() && limits.device != device_info().name) return std::nullopt;  // another GPU's figures
  for (const LimitField& f : limit_fields()) limits.*f.value = numbers[f.key];
  for (const auto& [key, value] : numbers) {
    int servers = 0;
    unsigned long long mib = 0;
    if (std::sscanf(key.c_str(), "all_to_all_gbps_p%d_%llumib", &servers, &mib) == 2)
      limits.all_to_all.push_back({servers, static_cast<std::uint64_t>(mib) << 20, value});
  }
  if (limits.copy_gbps <= 0 || limits.atomic_exch_gops_large <= 0) return std::nullopt;
  return limits;
}

}  // namespace hashlab::harness
