// A parallel LSD radix sort on the CPU, by a 32-bit key: the suite's checks sort what a GPU
// algorithm returned (up to 10^8 groups or 2 x 10^8 joined rows) before comparing it with the
// reference, and a single-threaded sort of that size took seconds of each point's wall time.
//
//   cpu::radix_sort(rows, [](const JoinedRow& r) { return r.key; });
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "hashlab/common/host_memory.hpp"
#include "hashlab/common/scatter.hpp"
#include "hashlab/common/threads.hpp"

namespace hashlab::cpu {

/// Sorts `items` by key_of(item) (a std::uint32_t), stably: four 8-bit passes, each the parallel
/// bucket scatter (scatter.hpp); a pass over a byte that every key shares moves nothing. Needs a
/// buffer as large as `items` (T must be trivially copyable and default-constructible).
template <class T, class KeyOf>
void radix_sort(std::vector<T>& items, KeyOf key_of, unsigned threads = 0) {
  const std::size_t n = items.size();
  if (n < 2) return;
  if (threads == 0) threads = threads_for_items(n);
  std::unique_ptr<T[]> buffer(new T[n]);  // default-initialised: no pass over it before the scatter
  populate_pages(buffer.get(), n * sizeof(T));  // but its pages faulted in on all cores
  T* from = items.data();
  T* to = buffer.get();
  for (int shift = 0; shift < 32; shift += 8) {
    const Scatter pass = scatter_by_bucket(
        n, threads, 256, [&](std::size_t i) { return (static_cast<std::uint32_t>(key_of(from[i])) >> shift) & 0xffu; },
        [&](std::size_t i, std::size_t destination) { to[destination] = from[i]; },
        /*skip_single_bucket=*/true);
    if (pass.moved) std::swap(from, to);
  }
  if (from != items.data()) parallel_for(n, threads, [&](std::size_t i) { items[i] = from[i]; });
}

}  // namespace hashlab::cpu
