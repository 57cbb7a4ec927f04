// Section 4.3.1.1's parameters and hash functions, on the host (CPU tests).
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "hashlab/cuckoo/cuckoo_table.hpp"
#include "hashlab/cuckoo/hash_functions.hpp"

namespace hashlab::cuckoo {
namespace {

TEST(HashFunctions, ComputeAPlusBModPModSizeIn32BitArithmetic) {
  const HashConstants c{3000000001u, 17u};
  const std::uint32_t key = 4000000000u;
  const std::uint32_t wrapped = static_cast<std::uint32_t>(3000000001ull * 4000000000ull + 17ull);  // mod 2^32
  EXPECT_EQ(hash_slot<HashKind::kMultiply>(c, key, 1000u), wrapped % kPrime % 1000u);
  EXPECT_EQ(hash_slot<HashKind::kMultiplyExact>(c, key, 1000u),
            static_cast<std::uint32_t>((3000000001ull * 4000000000ull + 17ull) % kPrime) % 1000u);
  EXPECT_EQ(hash_slot<HashKind::kXor>(c, key, 1000u), static_cast<std::uint32_t>((3000000001u ^ key) + 17u) % kPrime % 1000u);
}

TEST(HashFunctions, ExactFormCollidesInEveryFunction) {
  // Keys equal mod p get the same slot under every exact function: the degeneracy README explains.
  std::mt19937_64 rng(1);
  const auto f = HashFunctions::draw(HashKind::kMultiplyExact, 4, 1u << 20, rng);
  const auto g = HashFunctions::draw(HashKind::kMultiply, 4, 1u << 20, rng);
  int wrapped_equal = 0;
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(f(i, 12345u), f(i, 12345u + kPrime));
    EXPECT_EQ(f(i, 12345u), f(i, 12345u + 12 * kPrime));
    wrapped_equal += g(i, 12345u) == g(i, 12345u + kPrime);
  }
  EXPECT_LT(wrapped_equal, 4);
}

TEST(HashFunctions, DrawsOddAInRangeAndBBelowP) {
  std::mt19937_64 rng(5);
  for (int t = 0; t < 1000; ++t) {
    const auto f = HashFunctions::draw(HashKind::kMultiply, 5, 100, rng);
    for (int i = 0; i < 5; ++i) {
      EXPECT_EQ(f.c[i].a % 2, 1u);
      EXPECT_LT(f.c[i].a, kPrime);
      EXPECT_LT(f.c[i].b, kPrime);
    }
  }
}

TEST(HashFunctions, SpreadKeysEvenlyOverTheTable) {
  std::mt19937_64 rng(9);
  const auto f = HashFunctions::draw(HashKind::kMultiply, 4, 1000, rng);
  std::vector<int> counts(1000);
  for (std::uint32_t k = 0; k < 1000000; ++k) ++counts[f(0, k * 2654435761u)];
  for (int c : counts) {
    EXPECT_GT(c, 800);
    EXPECT_LT(c, 1200);
  }
}

TEST(HashFunctions, SlotsStayBelowTheTableSize) {
  std::mt19937_64 rng(3);
  for (auto kind : {HashKind::kMultiply, HashKind::kXor, HashKind::kMultiplyExact}) {
    const auto f = HashFunctions::draw(kind, 3, 37, rng);
    for (std::uint32_t k : {0u, 1u, 36u, 37u, 0x7fffffffu, 0xfffffffeu})
      for (int i = 0; i < 3; ++i) EXPECT_LT(f(i, k), 37u);
  }
}

TEST(Parameters, MaxIterationsIsSevenLgN) {
  EXPECT_EQ(default_max_iterations(0), 7u);
  EXPECT_EQ(default_max_iterations(1), 7u);
  EXPECT_EQ(default_max_iterations(2), 7u);
  EXPECT_EQ(default_max_iterations(1024), 70u);
  EXPECT_EQ(default_max_iterations(1025), 77u);
  EXPECT_EQ(default_max_iterations(std::uint64_t{1} << 25), 175u);  // 32M items
}

TEST(Parameters, TableSizeIsTheSpaceFactorTimesN) {
  EXPECT_EQ(table_size_for(0, 1.25), 1u);
  EXPECT_EQ(table_size_for(1, 1.25), 2u);
  EXPECT_EQ(table_size_for(1000, 1.25), 1250u);
  EXPECT_EQ(table_size_for(1000, 1.0), 1000u);
  EXPECT_EQ(table_size_for(std::uint64_t{1} << 25, 1.25), 41943040u);
  EXPECT_THROW(table_size_for(1000, 0.99), std::invalid_argument);
  EXPECT_THROW(table_size_for(300000000, 1.25), std::invalid_argument);  // beyond p
}

TEST(Parameters, BadConfigurationsAreRefusedWithTheirValue) {
  auto refused = [](CuckooConfig c, const std::string& word) {
    try {
      c.validate();
      ADD_FAILURE() << "accepted " << c.describe();
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(word), std::string::npos) << e.what();
    }
  };
  CuckooConfig c;
  c.num_hash_functions = 6;
  refused(c, "6");
  c = {};
  c.num_hash_functions = 1;
  refused(c, "2..5");
  c = {};
  c.space_factor = 0.5;
  refused(c, "space factor");
  c = {};
  c.max_attempts = 0;
  refused(c, "max_attempts");
  c = {};
  c.block_size = 48;
  refused(c, "48");
  EXPECT_NO_THROW(CuckooConfig{}.validate());
}

TEST(Parameters, HashKindsParseAndPrint) {
  for (auto k : {HashKind::kMultiply, HashKind::kXor, HashKind::kMultiplyExact}) EXPECT_EQ(parse_hash_kind(to_string(k)), k);
  EXPECT_THROW(parse_hash_kind("crc"), std::invalid_argument);
}

TEST(Entries, PackKeyHighAndValueLow) {
  EXPECT_EQ(make_entry(1, 2), (std::uint64_t{1} << 32) | 2u);
  EXPECT_EQ(get_key(make_entry(0xdeadbeefu, 7)), 0xdeadbeefu);
  EXPECT_EQ(get_value(make_entry(0xdeadbeefu, 7)), 7u);
  EXPECT_EQ(get_key(kEmptyEntry), kEmptyKey);
  EXPECT_EQ(get_value(kEmptyEntry), 0u);
}

}  // namespace
}  // namespace hashlab::cuckoo

namespace hashlab::cuckoo {
namespace {

TEST(NextLocation, RoundRobinAfterTheFunctionThatPlacedTheItem) {
  const std::uint32_t loc[4] = {10, 20, 30, 40};
  EXPECT_EQ(next_location<4>(loc, 10), 20u);
  EXPECT_EQ(next_location<4>(loc, 20), 30u);
  EXPECT_EQ(next_location<4>(loc, 30), 40u);
  EXPECT_EQ(next_location<4>(loc, 40), 10u);  // from its last slot back to h_1
}

TEST(NextLocation, SkipsFunctionsThatPointToTheSameSlot) {
  const std::uint32_t loc[4] = {5, 5, 7, 5};
  EXPECT_EQ(next_location<4>(loc, 5), 7u);
  EXPECT_EQ(next_location<4>(loc, 7), 5u);
  const std::uint32_t same[3] = {3, 3, 3};
  EXPECT_EQ(next_location<3>(same, 3), 3u);
}

TEST(NextLocation, ShortCircuitFollowsListing41) {
  // Without repeated slots both rules agree.
  const std::uint32_t loc[4] = {10, 20, 30, 40};
  for (std::uint32_t from : {10u, 20u, 30u, 40u})
    EXPECT_EQ(next_location_short_circuit<4>(loc, from), next_location<4>(loc, from)) << from;
  EXPECT_EQ(next_location_short_circuit<4>(loc, 99), 10u);  // not one of its slots: h_1, as the listing's else
  // h_1 = h_2: the listing sends an item evicted from that slot straight back into it (it
  // evicts the item that evicted it), so the item never reaches h_3 or h_4; the fix moves on.
  const std::uint32_t twice[4] = {5, 5, 7, 8};
  EXPECT_EQ(next_location_short_circuit<4>(twice, 5), 5u);
  EXPECT_EQ(next_location<4>(twice, 5), 7u);
  // h_2 = h_3: the same once the item is in its h_2 slot.
  const std::uint32_t middle[4] = {4, 6, 6, 8};
  EXPECT_EQ(next_location_short_circuit<4>(middle, 6), 6u);
  EXPECT_EQ(next_location<4>(middle, 6), 8u);
  // A repeat that is not adjacent (h_1 = h_3) is matched at h_1 by both rules alike.
  const std::uint32_t apart[4] = {5, 6, 5, 8};
  for (std::uint32_t from : {5u, 6u, 8u})
    EXPECT_EQ(next_location_short_circuit<4>(apart, from), next_location<4>(apart, from)) << from;
}

TEST(ChainSummary, MedianMeanAndMaxOfTheChainLengths) {
  // 6 chains of length 1, 3 of length 2, 1 of length 9: median 1, mean 2.1, max 9.
  std::vector<std::uint64_t> h(10, 0);
  h[1] = 6, h[2] = 3, h[9] = 1;
  const ChainSummary s = summarize_chains(h);
  EXPECT_EQ(s.chains, 10u);
  EXPECT_EQ(s.exchanges, 6u + 6u + 9u);
  EXPECT_DOUBLE_EQ(s.mean, 2.1);
  EXPECT_EQ(s.median, 1u);
  EXPECT_EQ(s.max, 9u);
  // Exactly half at length 1: the median is the smallest length half of the chains do not exceed.
  h.assign(4, 0);
  h[1] = 2, h[3] = 2;
  EXPECT_EQ(summarize_chains(h).median, 1u);
  h[1] = 1;
  EXPECT_EQ(summarize_chains(h).median, 3u);
  EXPECT_EQ(summarize_chains({}).chains, 0u);
  EXPECT_EQ(summarize_chains({}).median, 0u);
}

TEST(Parameters, RoundRobinRulesPrint) {
  EXPECT_STREQ(to_string(RoundRobin::kSkipRepeatedSlots), "skip_repeated_slots");
  EXPECT_STREQ(to_string(RoundRobin::kShortCircuit), "short_circuit");
  CuckooConfig c;
  EXPECT_NE(c.describe().find("skip_repeated_slots"), std::string::npos) << c.describe();
}

}  // namespace
}  // namespace hashlab::cuckoo
