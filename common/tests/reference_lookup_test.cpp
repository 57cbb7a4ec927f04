// The reference maps, sets, multimaps and sorts against naive versions (linear scans, std::set).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "hashlab/common/generator.hpp"
#include "hashlab/reference/lookup.hpp"
#include "hashlab/testing/gpu_test.hpp"
#include "hashlab/testing/errors.hpp"

namespace hashlab::reference {
namespace {

using hashlab::testing::error_of;
using hashlab::testing::mentions;

using hashlab::testing::test_seed;

constexpr std::size_t kSizes[] = {0, 1, 2, 7, 100, 1001};

/// Queries of which about half are keys: the first half of `keys` plus keys drawn elsewhere.
std::vector<std::uint32_t> queries_for(const std::vector<std::uint32_t>& keys, std::uint64_t seed) {
  std::vector<std::uint32_t> queries(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(keys.size() / 2));
  const auto others = gen::generate_keys_host(gen::KeySpec::unique(), seed, keys.size() + 1);
  queries.insert(queries.end(), others.begin(), others.end());
  std::reverse(queries.begin(), queries.end());
  return queries;
}

// ---- map --------------------------------------------------------------------------------------

TEST(ReferenceMap, LookupMatchesLinearSearch) {
  for (std::uint64_t seed = test_seed(); seed < test_seed() + 3; ++seed) {
    HASHLAB_TRACE_SEED(seed);
    for (std::size_t n : kSizes) {
      const auto keys = gen::generate_keys_host(gen::KeySpec::unique(), seed, n);
      const auto values = gen::generate_values_host<std::uint32_t>(seed, 0u, 0xfffffffeu, n);
      const auto queries = queries_for(keys, seed + 7);
      const auto found = map_lookup(keys, values, queries);
      ASSERT_EQ(found.size(), queries.size());
      for (std::size_t q = 0; q < queries.size(); ++q) {
        const auto it = std::find(keys.begin(), keys.end(), queries[q]);
        const std::uint32_t expected = it == keys.end() ? kNotFound : values[it - keys.begin()];
        EXPECT_EQ(found[q], expected) << "n=" << n << " query " << queries[q];
      }
    }
  }
}

TEST(ReferenceMap, AbsentKeyGivesNotFound) {
  EXPECT_EQ(map_lookup({1, 2}, {10, 20}, {3, 2, 1}), (std::vector<std::uint32_t>{kNotFound, 20, 10}));
  EXPECT_EQ(map_lookup({}, {}, {0}), (std::vector<std::uint32_t>{kNotFound}));
}

TEST(ReferenceMap, ReservedKeyIsAnOrdinaryKey) {
  EXPECT_EQ(map_lookup({0xffffffffu}, {5}, {0xffffffffu, 0u}), (std::vector<std::uint32_t>{5, kNotFound}));
}

TEST(ReferenceMap, RejectsARepeatedKey) {
  EXPECT_TRUE(mentions(error_of([] { map_lookup({4, 99, 4}, {1, 2, 3}, {4}); }), "key 4 appears twice"));
}

TEST(ReferenceMap, RejectsKeysAndValuesOfDifferentLengths) {
  EXPECT_TRUE(mentions(error_of([] { map_lookup({1, 2}, {1}, {}); }), "2 keys but 1 values"));
}

// ---- set --------------------------------------------------------------------------------------

TEST(ReferenceSet, DistinctKeysAreTheAscendingSetOfKeys) {
  for (std::uint64_t seed = test_seed(); seed < test_seed() + 3; ++seed) {
    HASHLAB_TRACE_SEED(seed);
    for (std::size_t n : kSizes) {
      const auto keys = gen::generate_keys_host(gen::KeySpec::uniform(n / 4 + 1), seed, n);
      const std::set<std::uint32_t> naive(keys.begin(), keys.end());
      EXPECT_EQ(distinct_keys(keys), std::vector<std::uint32_t>(naive.begin(), naive.end())) << "n=" << n;
    }
  }
}

TEST(ReferenceSet, ContainsMatchesLinearSearch) {
  for (std::uint64_t seed = test_seed(); seed < test_seed() + 3; ++seed) {
    HASHLAB_TRACE_SEED(seed);
    for (std::size_t n : kSizes) {
      const auto keys = gen::generate_keys_host(gen::KeySpec::uniform(n / 4 + 1), seed, n);
      const auto queries = queries_for(keys, seed + 7);
      const auto found = set_contains(keys, queries);
      ASSERT_EQ(found.size(), queries.size());
      for (std::size_t q = 0; q < queries.size(); ++q) {
        const bool present = std::find(keys.begin(), keys.end(), queries[q]) != keys.end();
        EXPECT_EQ(found[q], present ? 1 : 0) << "n=" << n << " query " << queries[q];
      }
    }
  }
}

TEST(ReferenceSet, ContainsTheReservedKeyWhenInserted) {
  EXPECT_EQ(set_contains({0xffffffffu}, {0xffffffffu, 0u}), (std::vector<std::uint8_t>{1, 0}));
}

// ---- multimap ---------------------------------------------------------------------------------

TEST(ReferenceMultimap, CountsAndValuesMatchLinearScan) {
  for (std::uint64_t seed = test_seed(); seed < test_seed() + 3; ++seed) {
    HASHLAB_TRACE_SEED(seed);
    for (std::size_t n : kSizes) {
      const auto keys = gen::generate_keys_host(gen::KeySpec::uniform(n / 5 + 1), seed, n);
      const auto values = gen::generate_values_host<std::uint32_t>(seed, 0u, 50u, n);
      const Multimap map(keys, values);
      for (std::uint32_t query : queries_for(keys, seed + 7)) {
        std::vector<std::uint32_t> expected;
        for (std::size_t i = 0; i < n; ++i)
          if (keys[i] == query) expected.push_back(values[i]);
        std::sort(expected.begin(), expected.end());
        EXPECT_EQ(map.count(query), expected.size()) << "n=" << n << " key " << query;
        EXPECT_EQ(map.values(query), expected) << "n=" << n << " key " << query;
      }
    }
  }
}

TEST(ReferenceMultimap, KeepsRepeatedPairsAndSortsValues) {
  const Multimap map({3, 3, 3, 1}, {9, 2, 9, 4});
  EXPECT_EQ(map.count(3), 3u);
  EXPECT_EQ(map.values(3), (std::vector<std::uint32_t>{2, 9, 9}));
  EXPECT_EQ(map.count(2), 0u);
  EXPECT_TRUE(map.values(2).empty());
}

TEST(ReferenceMultimap, RejectsKeysAndValuesOfDifferentLengths) {
  EXPECT_TRUE(mentions(error_of([] { Multimap({1}, {1, 2}); }), "1 keys but 2 values"));
}

// ---- sorts ------------------------------------------------------------------------------------

TEST(ReferenceSort, SortKeysGivesAscendingKeys) {
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  const auto keys = gen::generate_keys_host(gen::KeySpec::uniform(100), seed, 5000);
  const auto sorted = sort_keys(keys);
  EXPECT_TRUE(std::is_sorted(sorted.begin(), sorted.end()));
  EXPECT_TRUE(std::is_permutation(sorted.begin(), sorted.end(), keys.begin(), keys.end()));
  EXPECT_TRUE(sort_keys({}).empty());
}

TEST(ReferenceSort, SortPairsIsStable) {
  const std::vector<std::uint32_t> keys = {5, 1, 5, 1, 0, 5};
  const std::vector<std::uint32_t> values = {0, 1, 2, 3, 4, 5};
  const std::vector<std::pair<std::uint32_t, std::uint32_t>> expected = {{0, 4}, {1, 1}, {1, 3},
                                                                         {5, 0}, {5, 2}, {5, 5}};
  EXPECT_EQ(sort_pairs(keys, values), expected);
}

TEST(ReferenceSort, SortPairsKeepsInputOrderOfEqualKeysOnRandomInput) {
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  const auto keys = gen::generate_keys_host(gen::KeySpec::uniform(50), seed, 3000);
  std::vector<std::uint32_t> rows(keys.size());
  for (std::uint32_t i = 0; i < rows.size(); ++i) rows[i] = i;
  const auto sorted = sort_pairs(keys, rows);
  ASSERT_EQ(sorted.size(), keys.size());
  for (std::size_t i = 1; i < sorted.size(); ++i) {
    ASSERT_LE(sorted[i - 1].first, sorted[i].first);
    if (sorted[i - 1].first == sorted[i].first) {
      ASSERT_LT(sorted[i - 1].second, sorted[i].second);
    }
  }
  for (const auto& [key, row] : sorted) ASSERT_EQ(keys[row], key);
}

TEST(ReferenceSort, SortPairsRejectsKeysAndValuesOfDifferentLengths) {
  EXPECT_THROW(sort_pairs({1, 2}, {1}), std::invalid_argument);
}

}  // namespace
}  // namespace hashlab::reference
