// The stable parallel bucket scatter (a radix-partitioning pass on the CPU): each thread counts
// its chunk's rows per bucket, the counts are scanned bucket-major then thread, and each thread
// moves its rows to their positions, so a bucket's rows are contiguous and in input order. The
// CPU baselines partition with it; MP-EGA's CPU tile driver (EGA 4.2.5) is the same pass.
//
//   Scatter s = scatter_by_bucket(n, threads, buckets, [&](std::size_t i) { return bucket(keys[i]); },
//                                 [&](std::size_t i, std::size_t to) { out[to] = keys[i]; });
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "hashlab/common/threads.hpp"

namespace hashlab::cpu {

struct Scatter {
  std::vector<std::size_t> offsets;  // bucket b holds output rows [offsets[b], offsets[b + 1])
  bool moved = true;                 // false when skipped (every row in one bucket)
};

/// Moves rows [0, n) into `buckets` buckets: move(i, destination) for every i, where rows of a
/// bucket are contiguous and in input order. bucket_of(i) is called twice per row (count, move)
/// and may throw (the first exception is rethrown). With skip_single_bucket, nothing moves when
/// all rows share a bucket (a radix-sort pass over a digit that never changes).
template <class BucketOf, class Move>
Scatter scatter_by_bucket(std::size_t n, unsigned threads, std::size_t buckets, BucketOf bucket_of, Move move,
                          bool skip_single_bucket = false) {
  threads = std::max(threads, 1u);
  std::vector<std::size_t> cursor(std::size_t{threads} * buckets);
  run_threads(threads, [&](unsigned t) {
    std::vector<std::size_t> histogram(buckets);  // private: no false sharing while counting
    for (std::size_t i = chunk_begin(t, threads, n), end = chunk_begin(t + 1, threads, n); i < end; ++i)
      ++histogram[bucket_of(i)];
    std::copy(histogram.begin(), histogram.end(), cursor.begin() + static_cast<std::ptrdiff_t>(t * buckets));
  });

  Scatter out;
  out.offsets.resize(buckets + 1);
  std::size_t total = 0;
  for (std::size_t b = 0; b < buckets; ++b) {
    out.offsets[b] = total;
    for (unsigned t = 0; t < threads; ++t) {
      const std::size_t count = cursor[t * buckets + b];
      cursor[t * buckets + b] = total;
      total += count;
    }
    if (skip_single_bucket && total - out.offsets[b] == n) {
      out.moved = false;
      return out;
    }
  }
  out.offsets[buckets] = total;

  run_threads(threads, [&](unsigned t) {
    std::vector<std::size_t> next(cursor.begin() + static_cast<std::ptrdiff_t>(t * buckets),
                                  cursor.begin() + static_cast<std::ptrdiff_t>((t + 1) * buckets));
    for (std::size_t i = chunk_begin(t, threads, n), end = chunk_begin(t + 1, threads, n); i < end; ++i)
      move(i, next[bucket_of(i)]++);
  });
  return out;
}

}  // namespace hashlab::cpu
