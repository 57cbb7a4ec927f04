// The cuckoo hash functions of section 4.3.1.1, h_i(k) = (a_i * k + b_i) mod p mod tableSize, and
// the parameters of section 4.3.1.1 that go with them (number of functions, table size, the
// eviction limit max_iterations = 7 lg N). Host and device callable.
//
// Arithmetic: a_i * k + b_i is computed in 32-bit unsigned (wrapping) arithmetic, as the
// chapter's CUDPP code does, then reduced mod p and mod tableSize. The exact form (64-bit
// arithmetic, no wrap; common/hash.hpp's CuckooMultiplyHash) is offered as kMultiplyExact for
// comparison only: since p < 2^32, two keys equal mod p get equal slots under EVERY function
// (a_i * k + b_i mod p depends on k mod p only), so 5 such keys among random 32-bit keys make a
// 4-function table unbuildable, and at 32M random keys that happens in every attempt (README,
// "Deviations and choices"; test HashFunctions.ExactFormCollidesInEveryFunction).
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/sentinels.hpp"

namespace hashlab::cuckoo {

constexpr std::uint32_t kPrime = 334214459u;        // cuckoo 4.3.1.1
using hashlab::kEmptyKey;                           // cuckoo 4.3.1.2: the empty slot's key
using hashlab::kNotFound;                           // cuckoo Listing 4.2's NOT_FOUND value
constexpr int kMinHashFunctions = 2;
constexpr int kMaxHashFunctions = 5;                // the chapter measures 2..5 functions
constexpr int kDefaultHashFunctions = 4;            // cuckoo 4.3.1.1
constexpr double kDefaultSpaceFactor = 1.25;        // cuckoo 4.3.1.1: tableSize = 1.25 N
constexpr std::uint32_t kIterationsPerLgN = 7;      // cuckoo 4.3.1.1: max_iterations = 7 lg N
constexpr int kDefaultBlockSize = 64;               // cuckoo 4.3.1.2: construction block size
constexpr int kDefaultMaxAttempts = 25;             // our cap on build attempts (README)

enum class HashKind {
  kMultiply,       // (a*k + b) mod 2^32 mod p mod size: the chapter's code (default)
  kXor,            // ((a XOR k) + b) mod 2^32 mod p mod size: the chapter's XOR variant
  kMultiplyExact,  // (a*k + b) mod p mod size without wrap: degenerate, see above
};

const char* to_string(HashKind kind);
/// Parses "multiply", "xor", "multiply_exact"; throws std::invalid_argument.
HashKind parse_hash_kind(const std::string& name);

/// The constants a_i, b_i of one hash function.
struct HashConstants {
  std::uint32_t a = 1;
  std::uint32_t b = 0;
};

/// One hash function's slot for `key` in a table of `table_size` slots.
template <HashKind Kind>
HASHLAB_HD std::uint32_t hash_slot(HashConstants c, std::uint32_t key, std::uint32_t table_size) {
  if constexpr (Kind == HashKind::kMultiply) {
    return (c.a * key + c.b) % kPrime % table_size;  // wraps mod 2^32 like the chapter's code
  } else if constexpr (Kind == HashKind::kXor) {
    return ((c.a ^ key) + c.b) % kPrime % table_size;
  } else {
    const std::uint64_t exact = static_cast<std::uint64_t>(c.a) * key + c.b;
    return static_cast<std::uint32_t>(exact % kPrime) % table_size;
  }
}

HASHLAB_HD std::uint32_t hash_slot(HashKind kind, HashConstants c, std::uint32_t key, std::uint32_t table_size) {
  switch (kind) {
    case HashKind::kXor: return hash_slot<HashKind::kXor>(c, key, table_size);
    case HashKind::kMultiplyExact: return hash_slot<HashKind::kMultiplyExact>(c, key, table_size);
    default: return hash_slot<HashKind::kMultiply>(c, key, table_size);
  }
}

/// h_1 .. h_count of one build attempt over a table of `table_size` slots.
struct HashFunctions {
  HashKind kind = HashKind::kMultiply;
  int count = kDefaultHashFunctions;
  std::uint32_t table_size = 1;
  HashConstants c[kMaxHashFunctions];

  /// h_{i+1}(key) (i counts from 0).
  HASHLAB_HD std::uint32_t operator()(int i, std::uint32_t key) const { return hash_slot(kind, c[i], key, table_size); }

  /// Fresh random constants (section 4.3.1.2: drawn again for every build attempt): a in
  /// [1, p) and odd (so that a*k mod 2^32 is a bijection of the keys), b in [0, p).
  static HashFunctions draw(HashKind kind, int count, std::uint32_t table_size, std::mt19937_64& rng);
};

/// Where an item evicted from slot `from` goes next (section 4.3.1.2), given its slots
/// loc[0..K) = h_1(k) .. h_K(k): the slot of the function after the first one that points to
/// `from`, round robin, skipping functions that point to `from` too (the chapter's suggested fix
/// for the short-circuit of Listing 4.1, which would send the item back into the slot it just
/// left when two of its functions agree). `from` itself only when all K slots are `from`.
template <int K>
HASHLAB_HD std::uint32_t next_location(const std::uint32_t (&loc)[K], std::uint32_t from) {
  bool passed = false;  // seen the first function that points to `from`
  bool done = false;
  std::uint32_t next = loc[0];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int t = 0; t < 2 * K; ++t) {
    const std::uint32_t l = loc[t % K];
    if (!done) {
      if (passed && l != from) {
        next = l;
        done = true;
      } else if (l == from) {
        passed = true;
      }
    }
  }
  return done ? next : (passed ? from : loc[0]);
}

/// Listing 4.1 as printed: the slot of the function after the FIRST function that points to
/// `from` (if location == location_1 then location_2, else if ... == location_2 then location_3,
/// ..., else location_1). When two consecutive functions of a key give the same slot, an item
/// evicted from it goes straight back into it (evicting the item that evicted it), so it never
/// moves on to its later slots; section 4.3.1.2 says this leaves the failure rate unaffected
/// except for tables of a few hundred items (`RoundRobin::kShortCircuit`, measured by the
/// `short_circuit` experiment).
template <int K>
HASHLAB_HD std::uint32_t next_location_short_circuit(const std::uint32_t (&loc)[K], std::uint32_t from) {
  std::uint32_t next = loc[0];
  bool done = false;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int i = 0; i + 1 < K; ++i) {
    if (!done && loc[i] == from) {
      next = loc[i + 1];
      done = true;
    }
  }
  return next;
}

/// Which of the two round-robin rules above an evicted item follows.
enum class RoundRobin {
  kSkipRepeatedSlots,  // next_location: the chapter's suggested fix (default)
  kShortCircuit,       // next_location_short_circuit: Listing 4.1 as printed
};

const char* to_string(RoundRobin rule);

/// max_iterations = 7 lg N (section 4.3.1.1), lg rounded up, at least 7 (N <= 2).
std::uint32_t default_max_iterations(std::uint64_t n);

/// tableSize = ceil(space_factor * N), at least 1. Throws std::invalid_argument when the factor is
/// below 1 or the table would exceed p slots (the hash range: slots >= p are never used).
std::uint32_t table_size_for(std::uint64_t n, double space_factor);

}  // namespace hashlab::cuckoo
