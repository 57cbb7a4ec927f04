// The lookup reference of the catalogue's tables (CPU only): against reference::Multimap and map_lookup.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "hashlab/common/generator.hpp"
#include "hashlab/catalogue/checks.hpp"
#include "hashlab/reference/join.hpp"
#include "hashlab/reference/lookup.hpp"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab::catalogue {
namespace {

TEST(LookupReference, SmallHandmadeMultimap) {
  const std::vector<std::uint32_t> keys = {7, 3, 7, 9, 7};
  const std::vector<std::uint32_t> values = {70, 30, 71, 90, 69};
  const std::vector<std::uint32_t> queries = {9, 1, 7, 3, 7};
  const auto ref = make_lookup_reference(keys, values, queries);
  EXPECT_EQ(ref.unique_keys, (std::vector<std::uint32_t>{3, 7, 9}));
  EXPECT_EQ(ref.key_begin, (std::vector<std::uint64_t>{0, 1, 4, 5}));
  EXPECT_EQ(ref.sorted_values, (std::vector<std::uint32_t>{30, 69, 70, 71, 90}));
  EXPECT_EQ(ref.query_count, (std::vector<std::uint32_t>{1, 0, 3, 1, 3}));
  EXPECT_EQ(ref.query_value, (std::vector<std::uint32_t>{90, reference::kNotFound, 69, 30, 69}));
  EXPECT_EQ(ref.total_matches, 8u);
  EXPECT_FALSE(ref.keys_unique);
  const auto [first, last] = values_of(ref, 1);
  EXPECT_EQ(std::vector<std::uint32_t>(first, last), (std::vector<std::uint32_t>{69, 70, 71}));
}

TEST(LookupReference, EmptyInputFindsNothing) {
  const auto ref = make_lookup_reference({}, {}, {5, 6});
  EXPECT_TRUE(ref.unique_keys.empty());
  EXPECT_EQ(ref.query_count, (std::vector<std::uint32_t>{0, 0}));
  EXPECT_EQ(ref.total_matches, 0u);
}

TEST(LookupReference, MismatchedLengthsThrow) {
  EXPECT_THROW(make_lookup_reference({1, 2}, {1}, {}), std::invalid_argument);
}

TEST(LookupReference, UniqueKeysAgreeWithMapLookup) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const std::size_t n = 20000;
  const auto keys = gen::generate_keys_host(gen::KeySpec::unique(), seed, n);
  const auto values = gen::generate_values_host<std::uint32_t>(seed + 1, 0, 0xfffffffeu, n);
  auto queries = gen::generate_keys_host(gen::KeySpec::uniform(2 * n), seed + 2, n);  // some hit, some miss
  std::copy(keys.begin(), keys.begin() + n / 2, queries.begin());
  const auto ref = make_lookup_reference(keys, values, queries);
  EXPECT_TRUE(ref.keys_unique);
  EXPECT_EQ(ref.query_value, reference::map_lookup(keys, values, queries));
  EXPECT_EQ(ref.total_matches, reference::inner_join_count(keys, queries));
}

TEST(LookupReference, RepeatedKeysAgreeWithMultimap) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const std::size_t n = 300000;  // enough rows for the radix sorts to run on several threads
  const auto keys = gen::generate_keys_host(gen::KeySpec::multiplicity(n, 8), seed, n);
  const auto values = gen::generate_values_host<std::uint32_t>(seed + 1, 0, 1000, n);  // values repeat too
  const reference::Multimap multimap(keys, values);
  const auto ref = make_lookup_reference(keys, values, keys);
  ASSERT_EQ(ref.unique_keys, reference::distinct_keys(keys));
  for (std::size_t u = 0; u < ref.unique_keys.size(); ++u) {
    const auto [first, last] = values_of(ref, u);
    ASSERT_EQ(std::vector<std::uint32_t>(first, last), multimap.values(ref.unique_keys[u])) << "key " << ref.unique_keys[u];
  }
  for (std::size_t j = 0; j < keys.size(); ++j) ASSERT_EQ(ref.query_count[j], multimap.count(keys[j]));
  EXPECT_EQ(ref.total_matches, reference::inner_join_count(keys, keys));
}

}  // namespace
}  // namespace hashlab::catalogue
