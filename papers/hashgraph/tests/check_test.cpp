// The host-side pieces: the table check, the hash range and the option checks (CPU tests).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "hashlab/hashgraph/hashgraph.hpp"

namespace hashlab::hashgraph {
namespace {

// A correct table of `keys` built on the host, the way the paper draws Fig. 1 (b).
HostGraph host_build(const std::vector<std::uint32_t>& keys, std::uint32_t range) {
  HostGraph g;
  g.range = range;
  g.offsets.assign(range + 1, 0);
  for (const auto k : keys) ++g.offsets[vertex_of(k, range) + 1];
  for (std::uint32_t v = 0; v < range; ++v) g.offsets[v + 1] += g.offsets[v];
  std::vector<std::uint32_t> cursor(g.offsets.begin(), g.offsets.end() - 1);
  g.entries.resize(keys.size());
  for (std::uint32_t i = 0; i < keys.size(); ++i) g.entries[cursor[vertex_of(keys[i], range)]++] = Entry{keys[i], i};
  return g;
}

const std::vector<std::uint32_t> kKeys = {5, 17, 5, 99, 3, 42, 17, 5, 1000, 7};

TEST(HashGraphCheck, AcceptsACorrectTable) { EXPECT_EQ(check_against_input(host_build(kKeys, 6), kKeys), ""); }

TEST(HashGraphCheck, AcceptsTheEmptyTable) {
  EXPECT_EQ(check_against_input(host_build({}, 3), {}), "");
}

TEST(HashGraphCheck, FindsAMissingRow) {
  auto g = host_build(kKeys, 6);
  g.entries[0] = g.entries[1];  // row of entry 0 lost, row of entry 1 twice (same vertex?)
  EXPECT_NE(check_against_input(g, kKeys), "");
}

TEST(HashGraphCheck, FindsAnEntryInTheWrongVertex) {
  auto g = host_build(kKeys, 6);
  // Move the boundary between two non-empty neighbouring vertices: an entry changes vertex.
  for (std::uint32_t v = 1; v < g.range; ++v)
    if (g.offsets[v] > g.offsets[v - 1] && g.offsets[v + 1] > g.offsets[v]) {
      ++g.offsets[v];
      break;
    }
  EXPECT_NE(check_against_input(g, kKeys), "");
}

TEST(HashGraphCheck, FindsAWrongKey) {
  auto g = host_build(kKeys, 1);
  g.entries[3].key += 1;
  EXPECT_NE(check_against_input(g, kKeys), "");
}

TEST(HashGraphCheck, FindsWrongOffsetEnds) {
  auto g = host_build(kKeys, 6);
  g.offsets.back() -= 1;
  EXPECT_NE(check_against_input(g, kKeys), "");
  auto h = host_build(kKeys, 6);
  h.offsets.pop_back();
  EXPECT_NE(check_against_input(h, kKeys), "");
}

TEST(HashGraphCheck, FindsAnOffsetBeyondTheEntriesBeforeReadingThere) {
  auto g = host_build(kKeys, 6);
  g.offsets[1] = static_cast<std::uint32_t>(kKeys.size()) + 1000;  // the list of vertex 0 would run past the end
  EXPECT_NE(check_against_input(g, kKeys).find("offsets decrease"), std::string::npos);
}

// Inputs of millions of keys are checked on several threads, each over its own vertices: a
// problem in any thread's share is found, and a row listed in two shares is caught.
std::vector<std::uint32_t> many_keys() {
  std::vector<std::uint32_t> keys(std::size_t{3} << 20);
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = static_cast<std::uint32_t>((i * 2654435761u) % 1000003u);
  return keys;
}

TEST(HashGraphCheck, AcceptsAMultiMillionKeyTable) {
  const auto keys = many_keys();
  EXPECT_EQ(check_against_input(host_build(keys, static_cast<std::uint32_t>(keys.size() / 2)), keys), "");
}

TEST(HashGraphCheck, FindsARowListedInTwoFarApartVertices) {
  const auto keys = many_keys();
  auto g = host_build(keys, static_cast<std::uint32_t>(keys.size() / 2));
  // The first and the last entry point to the same row: the first entry's row now appears twice
  // (in the first and in the last thread's share) and the last entry's key is wrong.
  const std::size_t last = g.entries.size() - 1;
  g.entries[last].index = g.entries[0].index;
  g.entries[last].key = keys[g.entries[0].index];
  EXPECT_NE(check_against_input(g, keys), "");
}

TEST(HashGraphCheck, FindsAWrongKeyDeepInsideALargeTable) {
  const auto keys = many_keys();
  auto g = host_build(keys, static_cast<std::uint32_t>(keys.size() / 2));
  g.entries[g.entries.size() * 2 / 3].key ^= 1u;
  EXPECT_NE(check_against_input(g, keys).find("the input's key at that row"), std::string::npos);
}

TEST(HashGraphRange, IsTheInputOverTheLoadFactorRoundedUp) {
  EXPECT_EQ(hash_range_for(32, 1.0), 32u);
  EXPECT_EQ(hash_range_for(32, 0.5), 64u);
  EXPECT_EQ(hash_range_for(32, 4.0), 8u);
  EXPECT_EQ(hash_range_for(10, 3.0), 4u);
  EXPECT_EQ(hash_range_for(0, 1.0), 1u);
  EXPECT_EQ(hash_range_for(1, 100.0), 1u);
}

TEST(HashGraphRange, RefusesLoadFactorsThatAreNotPositive) {
  EXPECT_THROW(hash_range_for(10, 0.0), std::invalid_argument);
  EXPECT_THROW(hash_range_for(10, -1.0), std::invalid_argument);
  EXPECT_THROW(hash_range_for(10, std::nan("")), std::invalid_argument);
  EXPECT_THROW(hash_range_for(10, std::numeric_limits<double>::infinity()), std::invalid_argument);
}

TEST(HashGraphRange, RefusesARangeBeyond32Bits) {
  EXPECT_THROW(hash_range_for(std::uint64_t{1} << 32, 0.5), std::invalid_argument);
}

TEST(HashGraphRange, VerticesStayInTheRange) {
  for (const std::uint32_t range : {1u, 2u, 7u, 1000u, 0xffffffffu})
    for (std::uint32_t key = 0; key < 1000; ++key) ASSERT_LT(vertex_of(key, range), range);
  EXPECT_LT(vertex_of(0xffffffffu, 10), 10u);
}

TEST(HashGraphOptions, RefusesBinCountsOutOfRange) {
  EXPECT_THROW(validate_bins(0), std::invalid_argument);
  EXPECT_THROW(validate_bins(kMaxBins + 1), std::invalid_argument);
  EXPECT_NO_THROW(validate_bins(1));
  EXPECT_NO_THROW(validate_bins(kDefaultBins));
}

TEST(HashGraphOptions, RefusesTablesBeyond32BitRowsBeforeAllocating) {
  EXPECT_THROW(HashGraph(kMaxKeys + 1, 10, {}, nullptr), std::invalid_argument);
  EXPECT_THROW(HashGraph(10, 0, {}, nullptr), std::invalid_argument);
  EXPECT_THROW(HashGraph(10, 10, {Version::kV2, 0}, nullptr), std::invalid_argument);
}

}  // namespace
}  // namespace hashlab::hashgraph
