#include "hashlab/common/host_memory.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "hashlab/common/memory.hpp"
#include "hashlab/common/threads.hpp"
#include "hashlab/common/units.hpp"

namespace hashlab::cpu {

void populate_pages(void* data, std::size_t bytes) {
#if defined(__linux__)
#ifndef MADV_POPULATE_WRITE
  constexpr int MADV_POPULATE_WRITE = 23;  // <linux/mman.h> of 5.14; older headers lack it
#endif
  if (data == nullptr || bytes < kPopulateMinBytes) return;
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = (reinterpret_cast<std::uintptr_t>(data) + page - 1) / page;  // whole pages only
  const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes) / page;
  if (end <= begin) return;
  const std::size_t pages = end - begin;
  // A thread per 4096 pages at least (16 MiB of 4 KiB pages): below that a thread costs more than
  // the faults it takes over. A failed call (an older kernel: EINVAL) leaves the pages to fault in
  // when written, which is all that the call saves.
  const unsigned threads = threads_for_items(pages, 4096);
  run_threads(threads, [&](unsigned t) {
    const std::uintptr_t first = begin + chunk_begin(t, threads, pages);
    const std::uintptr_t last = begin + chunk_begin(t + 1, threads, pages);
    if (last > first) madvise(reinterpret_cast<void*>(first * page), (last - first) * page, MADV_POPULATE_WRITE);
  });
#else
  (void)data;
  (void)bytes;
#endif
}

namespace {

constexpr std::size_t kUnknown = std::numeric_limits<std::size_t>::max();

/// The first number of a file ("max", a missing file: kUnknown).
std::size_t read_number(const std::string& path) {
  std::ifstream in(path);
  unsigned long long value = 0;
  if (!(in >> value)) return kUnknown;
  return static_cast<std::size_t>(value);
}

/// The value of `key` in a "key value" file such as memory.stat (0 when absent).
std::size_t stat_field(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string name;
  unsigned long long value = 0;
  while (in >> name >> value)
    if (name == key) return static_cast<std::size_t>(value);
  return 0;
}

/// What a memory cgroup folder leaves: its limit less its use, page cache that can be dropped
/// (inactive files) not counted as used. kUnknown without a limit.
std::size_t cgroup_left(const std::string& dir, bool v2) {
  const std::size_t limit = read_number(dir + (v2 ? "/memory.max" : "/memory.limit_in_bytes"));
  if (limit == kUnknown || limit >= (std::size_t{1} << 60)) return kUnknown;  // v1 writes 2^63 - 4096 for none
  const std::size_t used = read_number(dir + (v2 ? "/memory.current" : "/memory.usage_in_bytes"));
  if (used == kUnknown) return kUnknown;
  const std::size_t cache = stat_field(dir + "/memory.stat", v2 ? "inactive_file" : "total_inactive_file");
  const std::size_t working = used > cache ? used - cache : 0;
  return limit > working ? limit - working : 0;
}

/// The least that the process's memory cgroup, or one above it, leaves (kUnknown: no limit).
std::size_t cgroup_available() {
  std::ifstream in("/proc/self/cgroup");
  std::size_t least = kUnknown;
  for (std::string line; std::getline(in, line);) {
    // "0::/path" (v2) or "4:memory:/path" (v1).
    const auto first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const bool v2 = line.compare(0, first, "0") == 0 && controllers.empty();
    bool memory = v2;
    std::stringstream names(controllers);
    for (std::string c; std::getline(names, c, ',');) memory = memory || c == "memory";
    if (!memory) continue;
    const std::string root = v2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/memory";
    for (std::string path = line.substr(second + 1);; path = path.substr(0, path.rfind('/'))) {
      least = std::min(least, cgroup_left(root + (path == "/" ? "" : path), v2));
      if (path.empty() || path == "/") break;
    }
  }
  return least;
}

std::size_t meminfo_available() {
  std::ifstream in("/proc/meminfo");
  std::string name;
  unsigned long long kib = 0;
  std::string unit;
  while (in >> name >> kib) {
    std::getline(in, unit);
    if (name == "MemAvailable:") return static_cast<std::size_t>(kib) * 1024;
  }
  return kUnknown;
}

}  // namespace

std::size_t host_memory_available(std::string* how) {
  std::size_t available = meminfo_available();
  std::string source = available == kUnknown ? "" : "MemAvailable";
  const std::size_t cgroup = cgroup_available();
  if (cgroup < available) {
    available = cgroup;
    source = "the memory cgroup's limit";
  }
  if (const char* limit = std::getenv("HASHLAB_HOST_MEMORY_LIMIT"); limit != nullptr && *limit != '\0') {
    std::size_t bytes = 0;
    try {
      bytes = static_cast<std::size_t>(parse_bytes(limit));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("HASHLAB_HOST_MEMORY_LIMIT=") + limit + ": " + e.what());
    }
    if (bytes < available) {
      available = bytes;
      source = "HASHLAB_HOST_MEMORY_LIMIT";
    }
  }
  if (how != nullptr) *how = source;
  return available;
}

void require_host_memory(std::size_t bytes, const std::string& what) {
  std::string how;
  const std::size_t available = host_memory_available(&how);
  if (available == kUnknown || bytes <= available) return;
  throw OutOfHostMemory(what + " needs about " + format_bytes(bytes) + " of host memory; " + format_bytes(available) +
                        " available (" + how + ")");
}

}  // namespace hashlab::cpu
