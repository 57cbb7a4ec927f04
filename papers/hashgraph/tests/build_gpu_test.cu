// HashGraph V1 and V2 builds against the input (the CPU multimap reference), and V1 == V2 up to
// the order within a vertex (GPU tests).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "hashlab/common/device.hpp"
#include "hashlab/common/generator.hpp"
#include "hashlab/hashgraph/hashgraph.hpp"
#include "hashlab/reference/lookup.hpp"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab::hashgraph {
namespace {

// The build configurations under test: V1, V2 with the paper's bins, V2 with a handful of bins
// (large bins, still in shared memory), V2 with one bin over a large range (global fallback).
struct Config {
  const char* name;
  BuildOptions options;
};
const Config kConfigs[] = {
    {"v1", {Version::kV1, kDefaultBins}},
    {"v2", {Version::kV2, kDefaultBins}},
    {"v2_bins7", {Version::kV2, 7}},
    {"v2_bins1", {Version::kV2, 1}},
};

// Builds a table of `keys` at `load_factor` and returns it on the host.
HostGraph build_on_device(const std::vector<std::uint32_t>& keys, double load_factor, BuildOptions options,
                          cudaStream_t stream) {
  const auto range = hash_range_for(keys.size(), load_factor);
  HashGraph graph(keys.size(), range, options, stream);
  auto d_keys = to_device(keys, stream);
  graph.build(d_keys.data(), keys.size(), stream);
  return graph.to_host(stream);
}

// The rows of every key, read from the table by walking the key's vertex list, against the
// CPU multimap of key -> rows.
void expect_multimap(const HostGraph& graph, const std::vector<std::uint32_t>& keys) {
  std::vector<std::uint32_t> rows(keys.size());
  for (std::uint32_t i = 0; i < rows.size(); ++i) rows[i] = i;
  const reference::Multimap expected(keys, rows);
  for (const auto key : reference::distinct_keys(keys)) {
    const std::uint32_t v = vertex_of(key, graph.range);
    std::vector<std::uint32_t> got;
    for (std::uint32_t p = graph.offsets[v]; p < graph.offsets[v + 1]; ++p)
      if (graph.entries[p].key == key) got.push_back(graph.entries[p].index);
    std::sort(got.begin(), got.end());
    ASSERT_EQ(got, expected.values(key)) << "key " << key;
  }
}

using Param = std::tuple<int, std::size_t>;  // config, n

class HashGraphBuild : public testing::GpuTestWithParam<Param> {
 protected:
  const Config& config() const { return kConfigs[std::get<0>(GetParam())]; }
  std::size_t n() const { return std::get<1>(GetParam()); }
  std::uint64_t seed() const { return testing::test_seed() + n(); }
  testing::LazyStream stream;
};

TEST_P(HashGraphBuild, SequenceAtLoadOneMatchesTheInput) {
  const auto keys = gen::generate_keys_host(gen::KeySpec::sequence(), seed(), n());
  const auto graph = build_on_device(keys, 1.0, config().options, stream);
  EXPECT_EQ(check_against_input(graph, keys), "");
  if (n() <= 100003) expect_multimap(graph, keys);
}

TEST_P(HashGraphBuild, DuplicatesAtLoadFourMatchTheMultimap) {
  HASHLAB_TRACE_SEED(seed());
  const auto keys = gen::generate_keys_host(gen::KeySpec::multiplicity(n(), 8.0), seed(), n());
  const auto graph = build_on_device(keys, 4.0, config().options, stream);
  EXPECT_EQ(check_against_input(graph, keys), "");
  if (n() <= 100003) expect_multimap(graph, keys);
}

TEST_P(HashGraphBuild, RandomKeysAtLoadHalfMatchTheInput) {
  HASHLAB_TRACE_SEED(seed());
  const auto keys = gen::generate_keys_host(gen::KeySpec::unique(), seed(), n());
  const auto graph = build_on_device(keys, 0.5, config().options, stream);
  EXPECT_EQ(check_against_input(graph, keys), "");
}

// One vertex (and one V2 bin) takes every key: a single block serialises on it, so the sizes stay
// moderate (the sanitizer runs these too).
std::size_t one_vertex_size(std::size_t n) { return std::min<std::size_t>(n, 100003); }

TEST_P(HashGraphBuild, OneKeyRepeatedNTimesFillsOneVertex) {
  const std::size_t count = one_vertex_size(n());
  const std::vector<std::uint32_t> keys(count, 12345u);
  const auto graph = build_on_device(keys, 1.0, config().options, stream);
  ASSERT_EQ(check_against_input(graph, keys), "");
  if (count > 0) {
    const std::uint32_t v = vertex_of(12345u, graph.range);
    EXPECT_EQ(graph.offsets[v + 1] - graph.offsets[v], count);
  }
}

TEST_P(HashGraphBuild, SingleVertexRangeHoldsEveryKey) {
  HASHLAB_TRACE_SEED(seed());
  const std::size_t count = one_vertex_size(n());
  const auto keys = gen::generate_keys_host(gen::KeySpec::multiplicity(count, 2.0), seed(), count);
  HashGraph graph(count, 1, config().options, stream);
  auto d_keys = to_device(keys, stream);
  graph.build(d_keys.data(), count, stream);
  const auto host = graph.to_host(stream);
  EXPECT_EQ(check_against_input(host, keys), "");
  EXPECT_EQ(host.offsets, (std::vector<std::uint32_t>{0, static_cast<std::uint32_t>(count)}));
}

INSTANTIATE_TEST_SUITE_P(Sizes, HashGraphBuild,
                         ::testing::Combine(::testing::Range(0, 4), ::testing::Values(0, 1, 7, 1000, 100003, 1 << 20)),
                         [](const auto& info) {
                           return std::string(kConfigs[std::get<0>(info.param)].name) + "_n" +
                                  std::to_string(std::get<1>(info.param));
                         });

class HashGraphVersions : public testing::GpuTest {
 protected:
  testing::LazyStream stream;
};

// Sorts each vertex's list, so that two builds compare equal up to the order within a vertex.
HostGraph canonical(HostGraph graph) {
  for (std::uint32_t v = 0; v < graph.range; ++v)
    std::sort(graph.entries.begin() + graph.offsets[v], graph.entries.begin() + graph.offsets[v + 1],
              [](const Entry& a, const Entry& b) { return a.index < b.index; });
  return graph;
}

TEST_F(HashGraphVersions, V1AndV2GiveTheSameTableUpToOrderWithinAVertex) {
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const std::size_t n = 300007;
  const auto keys = gen::generate_keys_host(gen::KeySpec::multiplicity(n, 3.0), seed, n);
  for (const double load : {0.5, 1.0, 2.0}) {
    const auto v1 = canonical(build_on_device(keys, load, {Version::kV1}, stream));
    for (const std::uint32_t bins : {1u, 100u, kDefaultBins, 1u << 20}) {
      const auto v2 = canonical(build_on_device(keys, load, {Version::kV2, bins}, stream));
      ASSERT_EQ(v1.offsets, v2.offsets) << "load " << load << ", bins " << bins;
      for (std::size_t p = 0; p < n; ++p) {
        ASSERT_EQ(v1.entries[p].key, v2.entries[p].key) << "entry " << p << ", load " << load << ", bins " << bins;
        ASSERT_EQ(v1.entries[p].index, v2.entries[p].index) << "entry " << p << ", load " << load << ", bins " << bins;
      }
    }
  }
}

TEST_F(HashGraphVersions, EveryKeyIsAllowedIncludingAllOnes) {
  const std::vector<std::uint32_t> keys = {0xffffffffu, 0u, 0xffffffffu, 1u, 0x80000000u};
  for (const auto& config : kConfigs) {
    const auto graph = build_on_device(keys, 1.0, config.options, stream);
    EXPECT_EQ(check_against_input(graph, keys), "") << config.name;
  }
}

TEST_F(HashGraphVersions, RebuildingWithFewerKeysReplacesTheTable) {
  const auto big = gen::generate_keys_host(gen::KeySpec::unique(), testing::test_seed(), 5000);
  const std::vector<std::uint32_t> small(big.begin(), big.begin() + 100);
  for (const auto& config : kConfigs) {
    HashGraph graph(big.size(), 1000, config.options, stream);
    auto d_big = to_device(big, stream);
    graph.build(d_big.data(), big.size(), stream);
    auto d_small = to_device(small, stream);
    graph.build(d_small.data(), small.size(), stream);
    EXPECT_EQ(check_against_input(graph.to_host(stream), small), "") << config.name;
  }
}

TEST_F(HashGraphVersions, PaperBinsOnAPaperSizedRangeRunPhaseThreeInSharedMemory) {
  HashGraph graph(1 << 20, 1 << 25, {Version::kV2, kDefaultBins}, stream);
  EXPECT_EQ(graph.bin_size(), 1024u);
  EXPECT_EQ(graph.bins_used(), kDefaultBins);
  EXPECT_TRUE(graph.shared_memory_phase3());
  HashGraph one_bin(1000, 1 << 24, {Version::kV2, 1}, stream);
  EXPECT_FALSE(one_bin.shared_memory_phase3());
}

class HashGraphErrors : public testing::GpuTest {
 protected:
  testing::LazyStream stream;
};

TEST_F(HashGraphErrors, RefusesMoreKeysThanTheCapacity) {
  HashGraph graph(10, 10, {}, stream);
  DeviceBuffer<std::uint32_t> keys(11, stream);
  EXPECT_THROW(graph.build(keys.data(), 11, stream), std::invalid_argument);
}

TEST_F(HashGraphErrors, RefusesNullKeys) {
  HashGraph graph(10, 10, {}, stream);
  EXPECT_THROW(graph.build(nullptr, 3, stream), std::invalid_argument);
}

class HashGraphLarge : public testing::GpuTest {
 protected:
  testing::LazyStream stream;
};

TEST_F(HashGraphLarge, BothVersionsBuild32MKeysOfThePaper) {
  const std::size_t n = std::size_t{1} << 25;
  // Generated on the device and copied back: the host generator takes seconds at 32M.
  DeviceBuffer<std::uint32_t> d_keys(n, stream);
  gen::generate_keys(gen::KeySpec::multiplicity(n, 32.0), testing::test_seed(), d_keys.data(), n, stream);
  const auto keys = d_keys.to_host(stream);
  for (const Version version : {Version::kV1, Version::kV2}) {
    const auto graph = build_on_device(keys, 1.0, {version}, stream);
    EXPECT_EQ(check_against_input(graph, keys), "") << to_string(version);
  }
}

TEST_F(HashGraphLarge, ReportsATableThatDoesNotFitInDeviceMemory) {
  // 2^32 - 1 keys and vertices with V1: 32 GiB of entries and 48 GiB of offsets, hashes and
  // counters. Refused before any allocation on a device of less than 80 GiB.
  std::size_t free_bytes = 0, total_bytes = 0;
  device_memory(free_bytes, total_bytes);
  if (total_bytes >= (std::size_t{80} << 30)) GTEST_SKIP() << "this device holds 80 GiB";
  try {
    HashGraph graph(kMaxKeys, 0xffffffffu, {Version::kV1}, stream);
    FAIL() << "a table of 80 GiB was accepted";
  } catch (const OutOfDeviceMemory& e) {
    EXPECT_NE(std::string(e.what()).find("GiB"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hashlab::hashgraph
