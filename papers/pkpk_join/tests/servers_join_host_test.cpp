// The host side of the join across servers: how many samples each server draws (the report's
// log2(p) per tile, or a given count) and the hash partitioning's spread. No GPU needed.
#include <gtest/gtest.h>

#include <vector>

#include "hashlab/pkpk_join/servers_join.hpp"

namespace hashlab::pkpk {
namespace {

TEST(ServersSampling, TheReportsRuleIsLog2OfPPerTileOf4096) {
  const SamplingPlan four = sampling_plan(std::uint64_t{1} << 20, 4, 0);
  EXPECT_EQ(four.stratum, 4096u);
  EXPECT_EQ(four.per_stratum, 2u);  // log2(4)
  EXPECT_EQ(four.samples, (std::uint64_t{1} << 20) / 4096 * 2);
  const SamplingPlan three = sampling_plan(4097, 3, 0);  // two tiles, the second of one element
  EXPECT_EQ(three.per_stratum, 2u);                       // log2(3) rounded up
  EXPECT_EQ(three.samples, 4u);
  EXPECT_EQ(sampling_plan(100, 1, 0).per_stratum, 1u);     // at least one, even for one server
  EXPECT_EQ(sampling_plan(0, 4, 0).samples, 0u);           // a server without rows draws nothing
}

TEST(ServersSampling, AGivenCountIsOneSampleFromEachOfThatManyEqualRuns) {
  const SamplingPlan plan = sampling_plan(1000000, 4, 64);
  EXPECT_EQ(plan.per_stratum, 1u);
  EXPECT_EQ(plan.stratum, 15625u);
  EXPECT_EQ(plan.samples, 64u);
  const SamplingPlan uneven = sampling_plan(1000, 4, 7);  // runs of 143: 7 of them, the last short
  EXPECT_EQ(uneven.stratum, 143u);
  EXPECT_EQ(uneven.samples, 7u);
  const SamplingPlan more_than_rows = sampling_plan(5, 4, 100);
  EXPECT_EQ(more_than_rows.stratum, 1u);
  EXPECT_EQ(more_than_rows.samples, 5u);
  EXPECT_THROW(sampling_plan(10, 0, 0), std::invalid_argument);
}

TEST(ServersHashPartitioning, SpreadsSequentialKeysEvenly) {
  constexpr unsigned p = 4;
  std::vector<unsigned> counts(p, 0);
  for (std::uint32_t key = 0; key < 400000; ++key) {
    const unsigned d = hash_server(key, p);
    ASSERT_LT(d, p);
    ++counts[d];
  }
  for (unsigned d = 0; d < p; ++d) EXPECT_NEAR(counts[d], 100000.0, 2000.0) << "server " << d;
  EXPECT_EQ(hash_server(12345, 1), 0u);
}

TEST(ServersJoinNames, NameThePartitioningAndTheLocalJoin) {
  EXPECT_STREQ(to_string(Partitioning::kSampledSplitters), "sampled splitters");
  EXPECT_STREQ(to_string(Partitioning::kHash), "hash");
  EXPECT_STREQ(to_string(LocalJoin::kBsp), "bsp");
  EXPECT_STREQ(to_string(LocalJoin::kSort), "sort");
  EXPECT_STREQ(to_string(LocalJoin::kHash), "hash");
}

}  // namespace
}  // namespace hashlab::pkpk
