#include "hashlab/common/host_memory.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

#include "hashlab/common/threads.hpp"

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

}  // namespace hashlab::cpu
