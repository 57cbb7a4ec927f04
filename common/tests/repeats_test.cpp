// cpu::first_repeat against a brute-force search over every pair of rows (no GPU needed).
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "hashlab/common/repeats.hpp"

namespace hashlab {
namespace {

// The smallest repeated key and its first two rows, by looking at every pair.
std::optional<Repeat> brute_force(const std::vector<std::uint32_t>& keys) {
  std::optional<Repeat> best;
  for (std::size_t a = 0; a < keys.size(); ++a)
    for (std::size_t b = a + 1; b < keys.size(); ++b)
      if (keys[a] == keys[b] && (!best || keys[a] < best->key)) {
        best = Repeat{keys[a], a, b};
        break;  // a is the first row of keys[a] when no earlier row held it: the earlier a won
      }
  return best;
}

void expect_same(const std::optional<Repeat>& got, const std::optional<Repeat>& want) {
  ASSERT_EQ(got.has_value(), want.has_value());
  if (!want) return;
  EXPECT_EQ(got->key, want->key);
  EXPECT_EQ(got->first_row, want->first_row);
  EXPECT_EQ(got->second_row, want->second_row);
}

TEST(FirstRepeat, NoneInUniqueKeysEmptyOrSingleColumns) {
  EXPECT_FALSE(cpu::first_repeat(nullptr, 0));
  const std::vector<std::uint32_t> one = {7}, unique = {5, 1, 4294967295u, 0, 9};
  EXPECT_FALSE(cpu::first_repeat(one.data(), one.size()));
  EXPECT_FALSE(cpu::first_repeat(unique.data(), unique.size()));
}

TEST(FirstRepeat, TheSmallestRepeatedKeyAndItsFirstTwoRows) {
  const std::vector<std::uint32_t> keys = {9, 4, 9, 3, 4, 4, 1, 3};
  const auto r = cpu::first_repeat(keys.data(), keys.size());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->key, 3u);  // 9 repeats first by row, but 3 is the smallest key that repeats
  EXPECT_EQ(r->first_row, 3u);
  EXPECT_EQ(r->second_row, 7u);
}

TEST(FirstRepeat, TheLargestKeyAndAdjacentRows) {
  const std::vector<std::uint32_t> keys = {2, 4294967295u, 4294967295u, 8};
  const auto r = cpu::first_repeat(keys.data(), keys.size());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->key, 4294967295u);
  EXPECT_EQ(r->first_row, 1u);
  EXPECT_EQ(r->second_row, 2u);
}

TEST(FirstRepeat, AgreesWithBruteForceOnRandomColumns) {
  std::mt19937 rng(20261128);
  for (int round = 0; round < 300; ++round) {
    const std::size_t n = rng() % 60;
    const std::uint32_t domain = 1 + rng() % 200;
    std::vector<std::uint32_t> keys(n);
    for (auto& k : keys) k = static_cast<std::uint32_t>(rng() % domain) * 0x01000193u;  // all four bytes used
    SCOPED_TRACE("round " + std::to_string(round) + ", n = " + std::to_string(n));
    expect_same(cpu::first_repeat(keys.data(), n), brute_force(keys));
  }
}

}  // namespace
}  // namespace hashlab
