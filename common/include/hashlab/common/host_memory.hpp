// Large host vectors whose pages are faulted in on all cores. A fresh page of host memory costs a
// fault on the thread that first writes it: std::vector<T>(n) zeroes its n elements on one thread,
// and at the GBs a check brings back from the GPU that took 0.45 s per GB on the H100 machine's
// host, against 0.1 s per GB to write pages already there (scripts/host_memory_bench.cu,
// results/reference/h100_80gb_hbm3/logs/host_memory_costs.log).
//
//   std::vector<std::uint32_t> keys = cpu::zeroed_vector<std::uint32_t>(n);  // then fill it
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace hashlab::cpu {

/// Faults in the whole pages of [data, data + bytes) for writing, on all cores (Linux's
/// madvise(MADV_POPULATE_WRITE), 5.14 and later), keeping their contents. Does nothing below
/// kPopulateMinBytes, or where the kernel lacks the call: the pages then fault in when written.
void populate_pages(void* data, std::size_t bytes);
inline constexpr std::size_t kPopulateMinBytes = std::size_t{16} << 20;

/// std::vector<T>(n), value-initialised as that is, with its storage faulted in on all cores
/// first (populate_pages), so that the zeroing writes pages already there.
template <class T>
std::vector<T> zeroed_vector(std::size_t n) {
  std::vector<T> out;
  out.reserve(n);
  if (n > 0) populate_pages(out.data(), n * sizeof(T));
  out.resize(n);
  return out;
}

/// The host memory this process can still take, in bytes: the kernel's MemAvailable
/// (/proc/meminfo), less where the process's memory cgroup (v2 memory.max, v1
/// memory.limit_in_bytes, of it and of every cgroup above it) leaves less, and at most
/// $HASHLAB_HOST_MEMORY_LIMIT when that is set (a size such as 4GiB: plan for a smaller machine).
/// `how` (optional) says where the figure came from. SIZE_MAX when nothing can be read.
std::size_t host_memory_available(std::string* how = nullptr);

/// Throws OutOfHostMemory ("<what> needs about 12.0 GiB of host memory; 7.5 GiB available
/// (MemAvailable)") unless `bytes` fit in host_memory_available(): checked before a large read
/// or generation, so that it ends with a message rather than the kernel's out-of-memory kill.
void require_host_memory(std::size_t bytes, const std::string& what);

}  // namespace hashlab::cpu
