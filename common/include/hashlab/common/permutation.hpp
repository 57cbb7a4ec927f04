// A seeded pseudo-random permutation of [0, domain), evaluated at any index in O(1) on host or
// device: a balanced Feistel network over the smallest even bit width that covers the domain,
// with cycle walking to stay inside it. The generator draws distinct keys and shuffles rows
// with it, so "unique keys" need no sort and host and device agree bit for bit.
#pragma once

#include <cstdint>

#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/hash.hpp"

namespace hashlab {

class RandomPermutation {
 public:
  static constexpr int kRounds = 6;

  RandomPermutation() = default;
  /// A permutation of [0, domain); domain in [1, 2^32].
  RandomPermutation(std::uint64_t domain, std::uint64_t seed) : domain_(domain) {
    int bits = 2;
    while (bits < 64 && (std::uint64_t{1} << bits) < domain) ++bits;
    if (bits % 2 != 0) ++bits;
    half_bits_ = bits / 2;
    half_mask_ = static_cast<std::uint32_t>((std::uint64_t{1} << half_bits_) - 1);
    std::uint64_t s = seed;
    for (int r = 0; r < kRounds; ++r) {
      s = hash::splitmix64(s);
      round_keys_[r] = static_cast<std::uint32_t>(s >> 32);
    }
  }

  HASHLAB_HD std::uint64_t domain() const { return domain_; }

  /// The image of `x` (x < domain).
  HASHLAB_HD std::uint32_t operator()(std::uint64_t x) const {
    std::uint64_t y = encrypt(x);
    while (y >= domain_) y = encrypt(y);  // cycle walking: the cycle through x returns below domain
    return static_cast<std::uint32_t>(y);
  }

 private:
  HASHLAB_HD std::uint64_t encrypt(std::uint64_t x) const {
    std::uint32_t left = static_cast<std::uint32_t>(x >> half_bits_) & half_mask_;
    std::uint32_t right = static_cast<std::uint32_t>(x) & half_mask_;
    for (int r = 0; r < kRounds; ++r) {
      const std::uint32_t f = hash::fmix32(right ^ round_keys_[r]) & half_mask_;
      const std::uint32_t next = left ^ f;
      left = right;
      right = next;
    }
    return (static_cast<std::uint64_t>(left) << half_bits_) | right;
  }

  std::uint64_t domain_ = 1;
  int half_bits_ = 1;
  std::uint32_t half_mask_ = 1;
  std::uint32_t round_keys_[kRounds] = {};
};

}  // namespace hashlab
