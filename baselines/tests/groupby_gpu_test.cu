// The GPU group-by baselines (hash, sort) against the CPU reference (GPU tests).
#include <gtest/gtest.h>

#include "hashlab/baselines/groupby.hpp"
#include "hashlab/common/generator.hpp"
#include "hashlab/reference/groupby.hpp"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab {
namespace {

using baseline::Aggregation;

struct Case {
  std::size_t n;
  std::uint64_t groups;
};

class GroupByBaselines : public testing::GpuTestWithParam<Case> {
 protected:
  std::uint64_t seed() const { return testing::test_seed() + GetParam().n * 31 + GetParam().groups; }

  void check(bool use_hash) {
    const auto [n, groups] = GetParam();
    HASHLAB_TRACE_SEED(seed());
    const auto keys = gen::generate_keys_host(gen::KeySpec::uniform(groups), seed(), n);
    const auto values = gen::generate_values_host<std::uint32_t>(seed(), 0, 0xffffffffu, n);
    Stream stream;
    auto dk = to_device(keys, stream);
    auto dv = to_device(values, stream);
    for (auto op : {Aggregation::kSum, Aggregation::kCount, Aggregation::kMin, Aggregation::kMax}) {
      SCOPED_TRACE(reference::to_string(op));
      baseline::DeviceGroups got;
      if (use_hash) {
        baseline::HashGroupBy groupby(2 * groups + 1, stream);
        got = groupby.aggregate(dk.data(), dv.data(), n, op, stream);
      } else {
        got = baseline::sort_groupby(dk.data(), dv.data(), n, op, stream);
      }
      const auto expected = reference::groupby(keys, values, op);
      const auto result = got.to_reference(op, stream);
      EXPECT_TRUE(result.sorted_by_key());
      EXPECT_EQ(reference::compare(expected, result), "");
    }
  }
};

TEST_P(GroupByBaselines, HashGroupByMatchesTheReference) { check(true); }
TEST_P(GroupByBaselines, SortGroupByMatchesTheReference) { check(false); }

INSTANTIATE_TEST_SUITE_P(Shapes, GroupByBaselines,
                         ::testing::Values(Case{0, 1}, Case{1, 1}, Case{7, 3}, Case{1000, 1}, Case{1000, 1000},
                                           Case{100003, 10}, Case{100003, 100003}, Case{1000003, 10007}),
                         [](const auto& info) {
                           return "n" + std::to_string(info.param.n) + "_groups" + std::to_string(info.param.groups);
                         });

class GroupsToReference : public testing::GpuTest {};

// Groups in slot order (a hash group-by's output) come back in key order, 64-bit aggregates whole,
// and the device arrays keep their order.
TEST_F(GroupsToReference, SortsByKeyAndLeavesTheDeviceGroupsAsTheyAre) {
  Stream stream;
  const std::vector<std::uint32_t> keys = {9, 3, 7, 1, 8};
  const std::vector<std::uint64_t> aggregates = {90, 30, std::uint64_t{1} << 40, 10, 80};
  auto dk = to_device(keys, stream);
  auto da = to_device(aggregates, stream);
  const auto result = baseline::groups_to_reference(dk.data(), da.data(), keys.size(), Aggregation::kMax, stream);
  EXPECT_EQ(result.keys, (std::vector<std::vector<std::uint32_t>>{{1, 3, 7, 8, 9}}));
  ASSERT_EQ(result.aggregates.size(), 1u);
  EXPECT_EQ(result.aggregates[0].op, Aggregation::kMax);
  EXPECT_EQ(result.aggregates[0].exact, (std::vector<std::int64_t>{10, 30, std::int64_t{1} << 40, 80, 90}));
  EXPECT_EQ(dk.to_host(stream), keys);
  EXPECT_EQ(da.to_host(stream), aggregates);
}

class GroupByBaselineErrors : public testing::GpuTest {};

TEST_F(GroupByBaselineErrors, HashGroupByReportsATableTooSmall) {
  Stream stream;
  const auto keys = gen::generate_keys_host(gen::KeySpec::unique(), 1, 100);
  auto dk = to_device(keys, stream);
  baseline::HashGroupBy groupby(50, stream);
  EXPECT_THROW(groupby.aggregate(dk.data(), dk.data(), 100, Aggregation::kSum, stream), std::invalid_argument);
}

TEST_F(GroupByBaselineErrors, HashGroupByRejectsTheSentinelKey) {
  Stream stream;
  auto dk = to_device(std::vector<std::uint32_t>{5, 0xffffffffu}, stream);
  baseline::HashGroupBy groupby(8, stream);
  EXPECT_THROW(groupby.aggregate(dk.data(), dk.data(), 2, Aggregation::kSum, stream), std::invalid_argument);
}

TEST_F(GroupByBaselineErrors, MeanIsNotComputedDirectly) {
  Stream stream;
  DeviceBuffer<std::uint32_t> k(1, stream);
  EXPECT_THROW(baseline::sort_groupby(k.data(), k.data(), 1, Aggregation::kMean, stream), std::invalid_argument);
}

}  // namespace
}  // namespace hashlab
