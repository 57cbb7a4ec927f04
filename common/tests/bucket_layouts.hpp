// The bucket numbers the bucket scatter's tests give their rows (bucket_scatter_gpu_test.cu on the
// GPU, bucket_scatter_emulation_test.cu on the CPU): random, all in the first or the last bucket,
// nine rows in ten in one bucket, or runs of one bucket.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hashlab::testing {

enum class Layout { kRandom, kOneBucket, kLastBucketOnly, kSkewed, kRunsOfBuckets };

inline std::string to_string(Layout l) {
  switch (l) {
    case Layout::kRandom: return "random";
    case Layout::kOneBucket: return "first";
    case Layout::kLastBucketOnly: return "last";
    case Layout::kSkewed: return "skewed";
    case Layout::kRunsOfBuckets: return "runs";
  }
  return "?";
}

/// n rows' buckets, each below `buckets`, drawn by xorshift from `seed`; kRunsOfBuckets gives
/// runs of `run` rows.
inline std::vector<std::uint32_t> buckets_of(std::size_t n, unsigned buckets, Layout layout, std::uint64_t seed,
                                             std::size_t run) {
  std::vector<std::uint32_t> out(n);
  std::uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
  for (std::size_t i = 0; i < n; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    switch (layout) {
      case Layout::kRandom: out[i] = static_cast<std::uint32_t>(x % buckets); break;
      case Layout::kOneBucket: out[i] = 0; break;
      case Layout::kLastBucketOnly: out[i] = buckets - 1; break;
      case Layout::kSkewed: out[i] = x % 10 < 9 ? buckets / 2 : static_cast<std::uint32_t>(x % buckets); break;
      case Layout::kRunsOfBuckets: out[i] = static_cast<std::uint32_t>((i / run) % buckets); break;
    }
  }
  return out;
}

}  // namespace hashlab::testing
