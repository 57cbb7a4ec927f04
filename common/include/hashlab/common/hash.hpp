// The hash functions the five papers use, callable from host and device code.
#pragma once

#include <cstdint>

#include "hashlab/common/cuda_check.hpp"

namespace hashlab::hash {

// ---------------------------------------------------------------------------------------------
// Cuckoo hashing (Alcantara et al., section 4.3.1.1): h(k) = (a*k + b) mod p mod tableSize.
constexpr std::uint32_t kCuckooPrime = 334214459u;  // cuckoo 4.3.1.1

/// h(k) = (a*k + b) mod p mod table_size with a*k + b in 32-bit unsigned (wrapping) arithmetic,
/// as the chapter's CUDPP code computes it. The wrap matters: see CuckooMultiplyExactHash.
struct CuckooMultiplyHash {
  std::uint32_t a = 0;
  std::uint32_t b = 0;
  HASHLAB_HD std::uint32_t operator()(std::uint32_t key, std::uint32_t table_size) const {
    return (a * key + b) % kCuckooPrime % table_size;
  }
};

/// The textbook form, (a*k + b) mod p mod table_size computed in 64 bits without a wrap. It is
/// degenerate for 32-bit keys: p < 2^32, so keys equal mod p land in the same slot under EVERY
/// function, and a few such keys (common among millions of random 32-bit keys) make a cuckoo
/// table unbuildable. Kept to show exactly that (papers/cuckoo, "Deviations and choices").
struct CuckooMultiplyExactHash {
  std::uint32_t a = 0;
  std::uint32_t b = 0;
  HASHLAB_HD std::uint32_t operator()(std::uint32_t key, std::uint32_t table_size) const {
    const std::uint64_t mixed = static_cast<std::uint64_t>(a) * key + b;
    return static_cast<std::uint32_t>(mixed % kCuckooPrime) % table_size;
  }
};

/// The XOR variant the chapter found to spread some datasets better:
/// h(k) = ((a XOR k) + b) mod p mod table_size, the sum wrapping in 32 bits like the chapter's code.
struct CuckooXorHash {
  std::uint32_t a = 0;
  std::uint32_t b = 0;
  HASHLAB_HD std::uint32_t operator()(std::uint32_t key, std::uint32_t table_size) const {
    return ((a ^ key) + b) % kCuckooPrime % table_size;
  }
};

// ---------------------------------------------------------------------------------------------
// MurmurHash3 (Appleby): the finalisers, and the 32-bit hash of one 4-byte key (HashGraph).

/// MurmurHash3's 32-bit finaliser (a bijection on 32-bit words).
HASHLAB_HD std::uint32_t fmix32(std::uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

/// MurmurHash3's 64-bit finaliser (a bijection on 64-bit words).
HASHLAB_HD std::uint64_t fmix64(std::uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  k ^= k >> 33;
  return k;
}

HASHLAB_HD std::uint32_t rotl32(std::uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

/// MurmurHash3_x86_32 of the 4 little-endian bytes of `key`, with `seed`.
HASHLAB_HD std::uint32_t murmur3_32(std::uint32_t key, std::uint32_t seed = 0) {
  constexpr std::uint32_t c1 = 0xcc9e2d51u;
  constexpr std::uint32_t c2 = 0x1b873593u;
  std::uint32_t k = key * c1;
  k = rotl32(k, 15);
  k *= c2;
  std::uint32_t h = seed ^ k;
  h = rotl32(h, 13);
  h = h * 5u + 0xe6546b64u;
  h ^= 4u;  // length in bytes
  return fmix32(h);
}

// ---------------------------------------------------------------------------------------------
// RAPIDS group-by (Chen et al., section 3): hashcode(keys) = keys[0] + keys[1]*31 + ... +
// keys[K-1]*31^(K-1), with x*31 computed as (x << 5) - x, in wrapping 32-bit arithmetic.

HASHLAB_HD std::uint32_t times31(std::uint32_t x) { return (x << 5) - x; }

/// The polynomial hashcode of one row of `num_columns` keys; `key_at(c)` returns column c's key.
/// Horner's rule from the last column gives exactly sum keys[c] * 31^c.
template <class KeyAt>
HASHLAB_HD std::uint32_t rapids_hashcode(int num_columns, KeyAt key_at) {
  std::uint32_t h = 0;
  for (int c = num_columns - 1; c >= 0; --c) h = times31(h) + static_cast<std::uint32_t>(key_at(c));
  return h;
}

// ---------------------------------------------------------------------------------------------
// General-purpose mixing used by the data generator (not a paper's hash).

/// SplitMix64's output function (Steele et al.): derives independent 64-bit values from a seed.
HASHLAB_HD std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// Maps a 32-bit random word to [0, range) without division (Lemire's multiply-shift).
HASHLAB_HD std::uint32_t reduce_range(std::uint32_t word, std::uint32_t range) {
  return static_cast<std::uint32_t>((static_cast<std::uint64_t>(word) * range) >> 32);
}

}  // namespace hashlab::hash
