// probe-standard and probe-new, count-only and materializing, against the CPU reference join
// (GPU tests).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "hashlab/common/generator.hpp"
#include "hashlab/hashgraph/probe.hpp"
#include "hashlab/reference/join.hpp"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab::hashgraph {
namespace {

struct JoinResult {
  std::uint64_t count;
  std::vector<reference::JoinPair> pairs;  // sorted
};

// Builds a table of r at `load_factor`, then probes it with s both ways (count and join).
JoinResult probe(const std::vector<std::uint32_t>& r, const std::vector<std::uint32_t>& s, double load_factor,
                 ProbeMethod method, Version version, cudaStream_t stream) {
  HashGraph table(r.size(), hash_range_for(r.size(), load_factor), {version}, stream);
  auto d_r = to_device(r, stream);
  table.build(d_r.data(), r.size(), stream);
  Prober prober(table, method, s.size(), stream, {version});
  auto d_s = to_device(s, stream);
  DeviceBuffer<std::uint64_t> count(1, stream);
  prober.count(d_s.data(), s.size(), count.data(), stream);
  JoinResult result{read_device_value(count.data(), stream), {}};
  result.pairs = prober.join(d_s.data(), s.size(), stream).to_host(stream);
  std::sort(result.pairs.begin(), result.pairs.end());
  return result;
}

using Param = std::tuple<ProbeMethod, Version, std::size_t>;

class HashGraphProbe : public testing::GpuTestWithParam<Param> {
 protected:
  ProbeMethod method() const { return std::get<0>(GetParam()); }
  Version version() const { return std::get<1>(GetParam()); }
  std::size_t n() const { return std::get<2>(GetParam()); }
  std::uint64_t seed() const { return testing::test_seed() + n(); }
  testing::LazyStream stream;
};

TEST_P(HashGraphProbe, SequenceFindsEveryKeyOnceAtEveryLoad) {
  const auto keys = gen::generate_keys_host(gen::KeySpec::sequence(), seed(), n());
  for (const double load : {0.5, 1.0, 4.0}) {
    const auto got = probe(keys, keys, load, method(), version(), stream);
    EXPECT_EQ(got.count, n()) << "load " << load;
    EXPECT_EQ(got.pairs, reference::inner_join(keys, keys)) << "load " << load;
  }
}

TEST_P(HashGraphProbe, DuplicatesOnBothSidesGiveEveryPair) {
  HASHLAB_TRACE_SEED(seed());
  // Both sides draw from the same small key set, so keys repeat on both sides and most match.
  const std::uint64_t distinct = std::max<std::uint64_t>(1, n() / 4);
  const auto r = gen::generate_keys_host(gen::KeySpec::uniform(distinct, 4 * distinct), seed(), n());
  const auto s = gen::generate_keys_host(gen::KeySpec::uniform(distinct, 4 * distinct), seed() + 1, n() / 2 + 1);
  const auto got = probe(r, s, 1.0, method(), version(), stream);
  EXPECT_EQ(got.count, reference::inner_join_count(r, s));
  EXPECT_EQ(got.pairs, reference::inner_join(r, s));
}

TEST_P(HashGraphProbe, QueriesAbsentFromTheTableFindNothing) {
  const auto keys = gen::generate_keys_host(gen::KeySpec::sequence(), seed(), n());
  std::vector<std::uint32_t> absent(n());
  for (std::size_t i = 0; i < n(); ++i) absent[i] = static_cast<std::uint32_t>(n() + i);
  const auto got = probe(keys, absent, 1.0, method(), version(), stream);
  EXPECT_EQ(got.count, 0u);
  EXPECT_TRUE(got.pairs.empty());
}

INSTANTIATE_TEST_SUITE_P(Sizes, HashGraphProbe,
                         ::testing::Combine(::testing::Values(ProbeMethod::kStandard, ProbeMethod::kNew),
                                            ::testing::Values(Version::kV1, Version::kV2),
                                            ::testing::Values(0, 1, 7, 1000, 100003)),
                         [](const auto& info) {
                           return std::string(to_string(std::get<0>(info.param))) + "_" +
                                  to_string(std::get<1>(info.param)) + "_n" + std::to_string(std::get<2>(info.param));
                         });

class HashGraphProbeCases : public testing::GpuTest {
 protected:
  testing::LazyStream stream;
};

TEST_F(HashGraphProbeCases, OneKeyRepeatedOnBothSidesGivesTheFullProduct) {
  const std::vector<std::uint32_t> r(300, 9u);
  const std::vector<std::uint32_t> s(200, 9u);
  for (const auto method : {ProbeMethod::kStandard, ProbeMethod::kNew}) {
    const auto got = probe(r, s, 1.0, method, Version::kV2, stream);
    EXPECT_EQ(got.count, 300u * 200u) << to_string(method);
    EXPECT_EQ(got.pairs, reference::inner_join(r, s)) << to_string(method);
  }
}

TEST_F(HashGraphProbeCases, ATableNeverBuiltFindsNothing) {
  HashGraph table(1000, 64, {}, stream);  // constructed, never built
  const std::vector<std::uint32_t> queries = {1, 2, 3, 64, 1000};
  auto d_queries = to_device(queries, stream);
  DeviceBuffer<std::uint64_t> count(1, stream);
  for (const auto method : {ProbeMethod::kStandard, ProbeMethod::kNew}) {
    Prober prober(table, method, queries.size(), stream);
    prober.count(d_queries.data(), queries.size(), count.data(), stream);
    EXPECT_EQ(read_device_value(count.data(), stream), 0u) << to_string(method);
    EXPECT_EQ(prober.join(d_queries.data(), queries.size(), stream).size(), 0u) << to_string(method);
  }
}

TEST_F(HashGraphProbeCases, RefusesMoreQueriesThanItWasMadeFor) {
  HashGraph table(4, 4, {}, stream);
  Prober prober(table, ProbeMethod::kNew, 2, stream);
  DeviceBuffer<std::uint32_t> queries(3, stream);
  DeviceBuffer<std::uint64_t> count(1, stream);
  EXPECT_THROW(prober.count(queries.data(), 3, count.data(), stream), std::invalid_argument);
  EXPECT_THROW(prober.join(queries.data(), 3, stream), std::invalid_argument);
}

class HashGraphProbeLarge : public testing::GpuTest {
 protected:
  testing::LazyStream stream;
};

TEST_F(HashGraphProbeLarge, CountsOfTwo32MInputsMatchTheReference) {
  const std::size_t n = std::size_t{1} << 25;
  // Generated on the device and copied back for the reference: the host generator takes seconds at 32M.
  DeviceBuffer<std::uint32_t> d_r(n, stream);
  DeviceBuffer<std::uint32_t> d_s(n, stream);
  gen::generate_keys(gen::KeySpec::multiplicity(n, 8.0), testing::test_seed(), d_r.data(), n, stream);
  gen::generate_keys(gen::KeySpec::multiplicity(n, 8.0), testing::test_seed() + 1, d_s.data(), n, stream);
  const std::uint64_t expected = reference::inner_join_count(d_r.to_host(stream), d_s.to_host(stream));
  HashGraph table(n, hash_range_for(n, 1.0), {}, stream);
  table.build(d_r.data(), n, stream);
  DeviceBuffer<std::uint64_t> count(1, stream);
  for (const auto method : {ProbeMethod::kStandard, ProbeMethod::kNew}) {
    Prober prober(table, method, n, stream);
    prober.count(d_s.data(), n, count.data(), stream);
    EXPECT_EQ(read_device_value(count.data(), stream), expected) << to_string(method);
  }
}

}  // namespace
}  // namespace hashlab::hashgraph
