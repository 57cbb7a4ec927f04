// The papers' hash functions on the host: known values, the 64-bit arithmetic the cuckoo
// hashes need, and the properties the tables rely on (bijective finalisers, results in range).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "hashlab/common/hash.hpp"

namespace hashlab::hash {
namespace {

// ---- MurmurHash3 ------------------------------------------------------------------------------

struct MurmurCase {
  std::uint32_t key;
  std::uint32_t seed;
  std::uint32_t expected;  // Python: mmh3.hash(key.to_bytes(4, 'little'), seed, signed=False)
};

TEST(Murmur3, MatchesReferenceImplementationOnKnownValues) {
  const std::array<MurmurCase, 6> cases = {{
      {0u, 0u, 593689054u},
      {1u, 0u, 4226891818u},
      {42u, 0u, 3160117731u},
      {0xdeadbeefu, 0u, 3247690076u},
      {42u, 7u, 3673154614u},
      {0xffffffffu, 123u, 2166887825u},
  }};
  for (const auto& c : cases) EXPECT_EQ(murmur3_32(c.key, c.seed), c.expected) << "key " << c.key << " seed " << c.seed;
}

TEST(Murmur3, SeedDefaultsToZero) { EXPECT_EQ(murmur3_32(42u), murmur3_32(42u, 0u)); }

// ---- finalisers -------------------------------------------------------------------------------

TEST(Fmix, MapsZeroToZero) {
  EXPECT_EQ(fmix32(0u), 0u);
  EXPECT_EQ(fmix64(0ull), 0ull);
}

TEST(Fmix, Fmix32HasNoCollisionsOnAMillionConsecutiveInputs) {
  constexpr std::uint32_t kInputs = 1u << 20;
  std::vector<std::uint32_t> images(kInputs);
  for (std::uint32_t x = 0; x < kInputs; ++x) images[x] = fmix32(x + 0x7fff0000u);  // crosses 2^31
  std::sort(images.begin(), images.end());
  EXPECT_EQ(std::adjacent_find(images.begin(), images.end()), images.end());
}

TEST(Fmix, Fmix64HasNoCollisionsOnAMillionConsecutiveInputs) {
  constexpr std::uint64_t kInputs = 1u << 20;
  std::vector<std::uint64_t> images(kInputs);
  for (std::uint64_t x = 0; x < kInputs; ++x) images[x] = fmix64(x + 0xffffffff00000000ull);
  std::sort(images.begin(), images.end());
  EXPECT_EQ(std::adjacent_find(images.begin(), images.end()), images.end());
}

TEST(Fmix, Rotl32RotatesBitsAround) {
  EXPECT_EQ(rotl32(0x80000001u, 1), 0x00000003u);
  EXPECT_EQ(rotl32(0x12345678u, 8), 0x34567812u);
  EXPECT_EQ(rotl32(0x12345678u, 31), 0x091a2b3cu);
}

// ---- cuckoo hashing ---------------------------------------------------------------------------

struct CuckooCase {
  std::uint32_t a, b, key, table_size;
  std::uint32_t wrapped;  // ((a op key) + b) mod 2^32 mod 334214459 mod table_size (the chapter's code)
  std::uint32_t exact;    // the same without the mod 2^32
};

TEST(CuckooHash, MultiplyHashWrapsInThirtyTwoBitsLikeTheChaptersCode) {
  // The first two products exceed 2^32, so the two forms differ there.
  const std::array<CuckooCase, 4> cases = {{
      {2654435761u, 12345u, 4000000000u, 1000003u, 808472u, 655795u},
      {4294967291u, 4294967295u, 4294967295u, 1u << 20, 4u, 783959u},
      {1u, 0u, 7u, 10u, 7u, 7u},
      {3u, 5u, kCuckooPrime, 997u, 5u, 5u},  // 3p + 5 = 5 mod p
  }};
  for (const auto& c : cases) {
    const std::uint64_t wide = std::uint64_t{c.a} * c.key + c.b;
    EXPECT_EQ(wide % (std::uint64_t{1} << 32) % kCuckooPrime % c.table_size, c.wrapped);
    EXPECT_EQ(wide % kCuckooPrime % c.table_size, c.exact);
    EXPECT_EQ((CuckooMultiplyHash{c.a, c.b}(c.key, c.table_size)), c.wrapped)
        << "a=" << c.a << " b=" << c.b << " key=" << c.key << " size=" << c.table_size;
    EXPECT_EQ((CuckooMultiplyExactHash{c.a, c.b}(c.key, c.table_size)), c.exact)
        << "a=" << c.a << " b=" << c.b << " key=" << c.key << " size=" << c.table_size;
  }
}

TEST(CuckooHash, XorHashWrapsInThirtyTwoBits) {
  const std::array<CuckooCase, 3> cases = {{
      {0xffffffffu, 0xffffffffu, 1u, 1000u, 785u, 114u},
      {0x12345678u, 0x9abcdef0u, 0xfedcba98u, 65536u, 35950u, 22639u},
      {0u, 0u, kCuckooPrime + 1, 100u, 1u, 1u},
  }};
  for (const auto& c : cases) {
    const std::uint64_t wide = std::uint64_t{c.a ^ c.key} + c.b;
    EXPECT_EQ(wide % (std::uint64_t{1} << 32) % kCuckooPrime % c.table_size, c.wrapped);
    EXPECT_EQ((CuckooXorHash{c.a, c.b}(c.key, c.table_size)), c.wrapped)
        << "a=" << c.a << " b=" << c.b << " key=" << c.key << " size=" << c.table_size;
  }
}

TEST(CuckooHash, ExactFormSendsKeysEqualModPToOneSlotUnderEveryFunction) {
  // Why the suite uses the wrapping form: k and k + p collide in every exact function, while
  // the wrapping functions separate most such pairs.
  std::uint64_t state = 7;
  int wrapped_collisions = 0;
  const int trials = 1000;
  for (int i = 0; i < trials; ++i) {
    state = splitmix64(state);
    const auto a = static_cast<std::uint32_t>(state) | 1u;
    const auto b = static_cast<std::uint32_t>(state >> 32);
    const auto key = static_cast<std::uint32_t>(splitmix64(state ^ 3) % kCuckooPrime);
    const std::uint32_t size = 41943040u;  // 1.25 x 32M
    ASSERT_EQ((CuckooMultiplyExactHash{a, b}(key, size)), (CuckooMultiplyExactHash{a, b}(key + kCuckooPrime, size)));
    wrapped_collisions += CuckooMultiplyHash{a, b}(key, size) == CuckooMultiplyHash{a, b}(key + kCuckooPrime, size);
  }
  EXPECT_LT(wrapped_collisions, trials / 100);
}

TEST(CuckooHash, ResultsLieInsideTheTable) {
  std::uint64_t state = 1;
  for (int i = 0; i < 100000; ++i) {
    state = splitmix64(state);
    const auto a = static_cast<std::uint32_t>(state);
    const auto b = static_cast<std::uint32_t>(state >> 32);
    const auto key = static_cast<std::uint32_t>(splitmix64(state ^ 1));
    const std::uint32_t size = 1 + static_cast<std::uint32_t>(splitmix64(state ^ 2) % 5000000);
    ASSERT_LT((CuckooMultiplyHash{a, b}(key, size)), size);
    ASSERT_LT((CuckooMultiplyExactHash{a, b}(key, size)), size);
    ASSERT_LT((CuckooXorHash{a, b}(key, size)), size);
  }
}

// ---- RAPIDS hashcode --------------------------------------------------------------------------

TEST(RapidsHashcode, Times31EqualsMultiplicationBy31WithWraparound) {
  for (std::uint32_t x : {0u, 1u, 2u, 31u, 1000u, 0x04210842u, 0x08421085u, 0x7fffffffu, 0x80000000u, 0xfffffffeu,
                          0xffffffffu})
    EXPECT_EQ(times31(x), static_cast<std::uint32_t>(x * 31u)) << "x=" << x;
  std::uint64_t state = 7;
  for (int i = 0; i < 100000; ++i) {
    state = splitmix64(state);
    const auto x = static_cast<std::uint32_t>(state);
    ASSERT_EQ(times31(x), static_cast<std::uint32_t>(x * 31u)) << "x=" << x;
  }
}

TEST(RapidsHashcode, IsThePolynomialInPowersOf31) {
  const std::uint32_t keys[3] = {1u, 2u, 3u};
  EXPECT_EQ(rapids_hashcode(3, [&](int c) { return keys[c]; }), 1u + 2u * 31u + 3u * 961u);
  EXPECT_EQ(rapids_hashcode(3, [&](int c) { return keys[c]; }), 2946u);
}

TEST(RapidsHashcode, WrapsAroundInThirtyTwoBits) {
  std::uint64_t state = 11;
  for (int i = 0; i < 10000; ++i) {
    std::uint32_t k[3];
    for (auto& key : k) key = static_cast<std::uint32_t>(state = splitmix64(state));
    const std::uint32_t expected = k[0] + k[1] * 31u + k[2] * 961u;  // unsigned: wraps
    ASSERT_EQ(rapids_hashcode(3, [&](int c) { return k[c]; }), expected);
  }
  const std::uint32_t all_ones[3] = {0xffffffffu, 0xffffffffu, 0xffffffffu};
  EXPECT_EQ(rapids_hashcode(3, [&](int c) { return all_ones[c]; }), 4294966303u);
}

TEST(RapidsHashcode, OneColumnIsTheKeyItself) {
  EXPECT_EQ(rapids_hashcode(1, [](int) { return 123456789u; }), 123456789u);
  EXPECT_EQ(rapids_hashcode(0, [](int) { return 5u; }), 0u);
}

// ---- generator mixing -------------------------------------------------------------------------

TEST(SplitMix64, MatchesTheReferenceSequence) {
  // SplitMix64 (Steele et al.) seeded with 0 outputs 0xe220a8397b1dcdaf first.
  EXPECT_EQ(splitmix64(0), 0xe220a8397b1dcdafull);
  EXPECT_EQ(splitmix64(1), 0x910a2dec89025cc1ull);
}

TEST(SplitMix64, DistinctInputsGiveDistinctOutputs) {
  std::vector<std::uint64_t> out(1u << 16);
  for (std::uint64_t x = 0; x < out.size(); ++x) out[x] = splitmix64(x);
  std::sort(out.begin(), out.end());
  EXPECT_EQ(std::adjacent_find(out.begin(), out.end()), out.end());
}

TEST(ReduceRange, ResultLiesBelowTheRange) {
  std::uint64_t state = 3;
  for (int i = 0; i < 200000; ++i) {
    state = splitmix64(state);
    const auto word = static_cast<std::uint32_t>(state);
    const std::uint32_t range = 1 + static_cast<std::uint32_t>(state >> 40);
    ASSERT_LT(reduce_range(word, range), range);
  }
  EXPECT_EQ(reduce_range(0xffffffffu, 0xffffffffu), 0xfffffffeu);
}

TEST(ReduceRange, MapsExtremesToTheEndsOfTheRange) {
  EXPECT_EQ(reduce_range(0u, 1000u), 0u);
  EXPECT_EQ(reduce_range(0xffffffffu, 1000u), 999u);
  EXPECT_EQ(reduce_range(0x80000000u, 1000u), 500u);
  EXPECT_EQ(reduce_range(12345u, 1u), 0u);
}

TEST(ReduceRange, SpreadsUniformWordsEvenly) {
  constexpr std::uint32_t kRange = 10;
  constexpr int kWords = 100000;
  std::array<int, kRange> counts{};
  std::uint64_t state = 5;
  for (int i = 0; i < kWords; ++i) ++counts[reduce_range(static_cast<std::uint32_t>(state = splitmix64(state)), kRange)];
  for (int c : counts) EXPECT_NEAR(c, kWords / kRange, 500);  // about 5 standard deviations
}

}  // namespace
}  // namespace hashlab::hash
