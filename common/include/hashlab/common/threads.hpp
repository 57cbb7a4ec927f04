// CPU parallelism of the suite, on std::thread: the multi-threaded baselines, MP-EGA's CPU tile
// driver and its CPU finish, and the checks of large outputs against their references (sorting,
// comparing) use these, and nothing else.
//
//   hashlab::cpu::run_threads(8, [&](unsigned t) { ... rows [chunk_begin(t, 8, n), chunk_begin(t + 1, 8, n)) ... });
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace hashlab::cpu {

/// Threads to use by default: the machine's hardware threads.
unsigned default_threads();

/// Runs fn(t) for t in [0, threads) on as many threads (the caller's included) and rethrows the
/// first exception any of them threw (after all have ended).
template <class Fn>
void run_threads(unsigned threads, Fn&& fn) {
  if (threads <= 1) {
    fn(0u);
    return;
  }
  std::vector<std::exception_ptr> errors(threads);
  auto guarded = [&](unsigned t) {
    try {
      fn(t);
    } catch (...) {
      errors[t] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  try {
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(guarded, t);
  } catch (...) {
    for (auto& thread : pool) thread.join();
    throw;
  }
  guarded(0);
  for (auto& thread : pool) thread.join();
  for (auto& error : errors)
    if (error) std::rethrow_exception(error);
}

/// Thread t's rows of n: [chunk_begin(t), chunk_begin(t + 1)), floor(n t / threads) without the
/// overflow of n * t.
inline std::size_t chunk_begin(unsigned t, unsigned threads, std::size_t n) {
  return n / threads * t + n % threads * t / threads;
}

/// fn(i) for every i in [0, n) on `threads` threads, thread t taking [chunk_begin(t), chunk_begin(t + 1)).
template <class Fn>
void parallel_for(std::size_t n, unsigned threads, Fn&& fn) {
  run_threads(threads, [&](unsigned t) {
    for (std::size_t i = chunk_begin(t, threads, n), end = chunk_begin(t + 1, threads, n); i < end; ++i) fn(i);
  });
}

/// Threads worth using for a pass over n items: one per `per_thread` items (64Ki by default: below
/// that, starting threads costs more than it saves), at most default_threads().
inline unsigned threads_for_items(std::size_t n, std::size_t per_thread = std::size_t{1} << 16) {
  const std::size_t wanted = std::max<std::size_t>(1, n / per_thread);
  return static_cast<unsigned>(std::min<std::size_t>(wanted, default_threads()));
}

/// The smallest i in [0, n) for which pred(i) holds, or n when none does: each thread scans its
/// chunk up to its first hit (a check that compares an output with its reference row by row).
template <class Pred>
std::size_t first_index_where(std::size_t n, Pred pred, unsigned threads = 0) {
  if (threads == 0) threads = threads_for_items(n);
  std::vector<std::size_t> first(threads, n);
  run_threads(threads, [&](unsigned t) {
    for (std::size_t i = chunk_begin(t, threads, n), end = chunk_begin(t + 1, threads, n); i < end; ++i)
      if (pred(i)) {
        first[t] = i;
        return;
      }
  });
  return *std::min_element(first.begin(), first.end());
}

}  // namespace hashlab::cpu
