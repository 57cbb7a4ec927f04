// The reference joins against the nested-loop join (every pair compared), and the pk-pk join's
// errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "hashlab/common/generator.hpp"
#include "hashlab/reference/join.hpp"
#include "hashlab/testing/gpu_test.hpp"
#include "hashlab/testing/errors.hpp"

namespace hashlab::reference {
namespace {

using hashlab::testing::error_of;
using hashlab::testing::mentions;

using hashlab::testing::test_seed;

/// Every (i, j) with r[i] == s[j], in nested-loop order, which is (r_index, s_index) order.
std::vector<JoinPair> nested_loop_join(const std::vector<std::uint32_t>& r, const std::vector<std::uint32_t>& s) {
  std::vector<JoinPair> pairs;
  for (std::uint32_t i = 0; i < r.size(); ++i)
    for (std::uint32_t j = 0; j < s.size(); ++j)
      if (r[i] == s[j]) pairs.push_back({i, j});
  return pairs;
}

/// Keys with repeats drawn from a small domain, so that two tables drawn with different seeds
/// share keys.
std::vector<std::uint32_t> keys_with_repeats(std::uint64_t seed, std::size_t n) {
  const std::uint64_t distinct = std::max<std::size_t>(1, n / 3);
  return gen::generate_keys_host(gen::KeySpec::uniform(distinct, /*domain=*/distinct + n / 2 + 1), seed, n);
}

constexpr std::size_t kSizes[] = {0, 1, 2, 7, 64, 501};

TEST(ReferenceJoin, InnerJoinCountMatchesNestedLoop) {
  for (std::uint64_t seed = test_seed(); seed < test_seed() + 3; ++seed) {
    HASHLAB_TRACE_SEED(seed);
    for (std::size_t nr : kSizes)
      for (std::size_t ns : kSizes) {
        const auto r = keys_with_repeats(seed, nr);
        const auto s = keys_with_repeats(seed + 1000, ns);
        EXPECT_EQ(inner_join_count(r, s), nested_loop_join(r, s).size()) << "|R|=" << nr << " |S|=" << ns;
      }
  }
}

TEST(ReferenceJoin, InnerJoinMatchesNestedLoopInOrder) {
  for (std::uint64_t seed = test_seed(); seed < test_seed() + 3; ++seed) {
    HASHLAB_TRACE_SEED(seed);
    for (std::size_t nr : kSizes)
      for (std::size_t ns : kSizes) {
        const auto r = keys_with_repeats(seed, nr);
        const auto s = keys_with_repeats(seed + 1000, ns);
        EXPECT_EQ(inner_join(r, s), nested_loop_join(r, s)) << "|R|=" << nr << " |S|=" << ns;
      }
  }
}

TEST(ReferenceJoin, RepeatedKeysOnBothSidesGiveEveryCombination) {
  const std::vector<std::uint32_t> r = {7, 1, 7};
  const std::vector<std::uint32_t> s = {7, 7, 2, 7};
  const std::vector<JoinPair> expected = {{0, 0}, {0, 1}, {0, 3}, {2, 0}, {2, 1}, {2, 3}};
  EXPECT_EQ(inner_join(r, s), expected);
  EXPECT_EQ(inner_join_count(r, s), 6u);
}

TEST(ReferenceJoin, EmptySideGivesNoPairs) {
  const std::vector<std::uint32_t> some = {1, 2, 3};
  EXPECT_TRUE(inner_join({}, some).empty());
  EXPECT_TRUE(inner_join(some, {}).empty());
  EXPECT_EQ(inner_join_count({}, {}), 0u);
}

TEST(ReferenceJoin, CountOfOneRepeatedKeyIsTheProductOfSizes) {
  const std::vector<std::uint32_t> r(2000, 5);
  const std::vector<std::uint32_t> s(3000, 5);
  EXPECT_EQ(inner_join_count(r, s), 6000000u);
}

TEST(ReferenceJoin, ReservedKeyJoinsLikeAnyOther) {
  const std::vector<std::uint32_t> r = {0xffffffffu, 0u};
  const std::vector<std::uint32_t> s = {0u, 0xffffffffu, 0xffffffffu};
  EXPECT_EQ(inner_join(r, s), (std::vector<JoinPair>{{0, 1}, {0, 2}, {1, 0}}));
  EXPECT_EQ(inner_join_count(r, s), 3u);
}

TEST(ReferenceJoin, JoinPairOrdersByRThenS) {
  EXPECT_LT((JoinPair{0, 9}), (JoinPair{1, 0}));
  EXPECT_LT((JoinPair{1, 0}), (JoinPair{1, 1}));
  EXPECT_FALSE((JoinPair{1, 1}) < (JoinPair{1, 1}));
}

// ---- pk-pk join -------------------------------------------------------------------------------

TEST(ReferencePkPkJoin, MatchesNestedLoopSortedByKey) {
  for (std::uint64_t seed = test_seed(); seed < test_seed() + 3; ++seed) {
    HASHLAB_TRACE_SEED(seed);
    for (double rate : {0.0, 0.3, 1.0})
      for (std::size_t rows : {0u, 1u, 9u, 400u}) {
        gen::PkPkSpec spec;
        spec.r_rows = rows + rows / 2;
        spec.s_rows = rows;
        spec.key_domain = 10 * rows + 10;
        spec.match_rate = rate;
        std::vector<std::uint32_t> r, s;
        gen::generate_pkpk_host(spec, seed, r, s);

        std::vector<PkPkRow> expected;
        for (const JoinPair& p : nested_loop_join(r, s)) expected.push_back({r[p.r_index], p.r_index, p.s_index});
        std::sort(expected.begin(), expected.end(), [](const PkPkRow& a, const PkPkRow& b) { return a.key < b.key; });

        const auto rows_found = pkpk_join(r, s);
        EXPECT_EQ(rows_found, expected) << spec.describe();
        EXPECT_EQ(rows_found.size(), spec.matches()) << spec.describe();
      }
  }
}

TEST(ReferencePkPkJoin, RejectsAKeyRepeatedInR) {
  const std::string why = error_of([] { pkpk_join({3, 17, 5, 17}, {1, 2}); });
  EXPECT_TRUE(mentions(why, "key 17 appears twice in R"));
}

TEST(ReferencePkPkJoin, RejectsAKeyRepeatedInS) {
  const std::string why = error_of([] { pkpk_join({1, 2}, {4, 9, 4}); });
  EXPECT_TRUE(mentions(why, "key 4 appears twice in S"));
}

TEST(ReferencePkPkJoin, RejectsARepeatInSEvenWhenRLacksTheKey) {
  EXPECT_THROW(pkpk_join({1}, {8, 8}), std::invalid_argument);
}

TEST(ReferencePkPkJoin, EmptyTablesGiveNoRows) {
  EXPECT_TRUE(pkpk_join({}, {}).empty());
  EXPECT_TRUE(pkpk_join({1, 2}, {}).empty());
}

}  // namespace
}  // namespace hashlab::reference
