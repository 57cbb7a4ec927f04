// The pre-aggregation's host side (servers_groupby.hpp, detail): which partial aggregations it computes,
// how the partial groups merge (the host reference of the device merge), and the device merge's
// checks of its arguments. No GPU needed.
#include <gtest/gtest.h>

#include "hashlab/catalogue/servers_groupby.hpp"

namespace hashlab::catalogue {
namespace {

using reference::Aggregation;

TEST(ServersGroupByPartials, AMeanNeedsASumAndACountEachOnce) {
  EXPECT_EQ(detail::base_aggregations({Aggregation::kMean}), (std::vector<Aggregation>{Aggregation::kSum, Aggregation::kCount}));
  EXPECT_EQ(detail::base_aggregations({Aggregation::kCount, Aggregation::kSum, Aggregation::kMean, Aggregation::kMax}),
            (std::vector<Aggregation>{Aggregation::kSum, Aggregation::kMax, Aggregation::kCount}));
  EXPECT_EQ(detail::base_aggregations({Aggregation::kMin}), (std::vector<Aggregation>{Aggregation::kMin}));
  EXPECT_THROW(parse_pre_aggregation("sometimes"), std::invalid_argument);
  EXPECT_EQ(parse_pre_aggregation("always"), PreAggregation::kAlways);
}

TEST(ServersGroupByPartials, ACountIsExactOverFloatingValuesToo) {
  const std::vector<Aggregation> base = {Aggregation::kSum, Aggregation::kCount};
  EXPECT_EQ(detail::exact_partials(base, {true, false}), (std::vector<bool>{true, true, false, true}));
  EXPECT_EQ(detail::exact_partials({Aggregation::kMin}, {false}), (std::vector<bool>{false}));
}

TEST(ServersGroupByPartials, MergeAddsSumsAndCountsFoldsMinimaAndMaximaAndDividesForTheMean) {
  // Two value columns (integer, then floating); base: sum, min, max, count.
  const std::vector<Aggregation> base = {Aggregation::kSum, Aggregation::kMin, Aggregation::kMax, Aggregation::kCount};
  detail::Partials p;
  p.keys = {{7, 3, 7, 3, 9}};  // key 7 twice, 3 twice, 9 once (from different servers)
  p.is_exact = detail::exact_partials(base, {true, false});  // the floating column's count is exact
  p.exact.resize(8);
  p.real.resize(8);
  p.exact[0] = {10, 1, 20, 2, 5};   // sums of column 0
  p.exact[1] = {-4, 0, 2, -9, 5};   // minima
  p.exact[2] = {9, 1, 12, 2, 5};    // maxima
  p.exact[3] = {2, 1, 3, 1, 1};     // counts
  p.real[4] = {1.5, 0.5, 2.5, 1.0, 4.0};
  p.real[5] = {0.25, 0.5, -1.0, 1.0, 4.0};
  p.real[6] = {1.0, 0.5, 2.0, 1.0, 4.0};
  p.exact[7] = {2, 1, 3, 1, 1};
  const auto out = detail::merge_partials(p, 2, base,
                                          {Aggregation::kSum, Aggregation::kMin, Aggregation::kMax, Aggregation::kCount,
                                           Aggregation::kMean});
  ASSERT_EQ(out.keys.size(), 1u);
  EXPECT_EQ(out.keys[0], (std::vector<std::uint32_t>{3, 7, 9}));  // sorted by key
  ASSERT_EQ(out.aggregates.size(), 10u);
  EXPECT_EQ(out.aggregates[0].exact, (std::vector<std::int64_t>{3, 30, 5}));   // sum
  EXPECT_EQ(out.aggregates[1].exact, (std::vector<std::int64_t>{-9, -4, 5}));  // min
  EXPECT_EQ(out.aggregates[2].exact, (std::vector<std::int64_t>{2, 12, 5}));   // max
  EXPECT_EQ(out.aggregates[3].exact, (std::vector<std::int64_t>{2, 5, 1}));    // count
  EXPECT_EQ(out.aggregates[4].real, (std::vector<double>{1.5, 6.0, 5.0}));     // mean = sum / count
  EXPECT_EQ(out.aggregates[5].real, (std::vector<double>{1.5, 4.0, 4.0}));     // floating sum
  EXPECT_EQ(out.aggregates[6].real, (std::vector<double>{0.5, -1.0, 4.0}));
  EXPECT_EQ(out.aggregates[7].real, (std::vector<double>{1.0, 2.0, 4.0}));
  EXPECT_EQ(out.aggregates[8].exact, (std::vector<std::int64_t>{2, 5, 1}));  // a count, exact
  EXPECT_TRUE(out.aggregates[8].real.empty());
  EXPECT_EQ(out.aggregates[9].real, (std::vector<double>{0.75, 0.8, 4.0}));
}

TEST(ServersGroupByPartials, KeyTuplesGroupOnEveryColumnAndNoRowsGiveNoGroups) {
  const std::vector<Aggregation> base = {Aggregation::kCount};
  detail::Partials p;
  p.keys = {{1, 1, 2}, {5, 6, 5}};  // (1,5), (1,6), (2,5): three groups
  p.is_exact = {true};
  p.exact = {{4, 1, 2}};
  p.real.resize(1);
  const auto out = detail::merge_partials(p, 1, base, {Aggregation::kCount});
  EXPECT_EQ(out.groups(), 3u);
  EXPECT_EQ(out.aggregates[0].exact, (std::vector<std::int64_t>{4, 1, 2}));
  detail::Partials none;
  none.keys = {{}};
  none.is_exact = {true};
  none.exact.resize(1);
  none.real.resize(1);
  EXPECT_EQ(detail::merge_partials(none, 1, base, {Aggregation::kCount}).groups(), 0u);
  EXPECT_THROW(detail::merge_partials(none, 2, base, {Aggregation::kCount}), std::logic_error);
}

TEST(ServersGroupByPartials, TheDeviceMergeRefusesColumnsThatDoNotMatchTheAggregations) {
  // Checked before any device work, so this runs without a GPU.
  const std::vector<Aggregation> base = {Aggregation::kSum, Aggregation::kCount};
  detail::DevicePartials p;
  p.keys = {nullptr};
  p.is_exact = {true, true};
  p.columns = {nullptr, nullptr};
  EXPECT_THROW(detail::merge_partials_on_device(p, 2, base, {Aggregation::kSum}, nullptr), std::logic_error);
  p.columns = {nullptr};  // fewer columns than their types
  EXPECT_THROW(detail::merge_partials_on_device(p, 1, base, {Aggregation::kSum}, nullptr), std::logic_error);
  p.columns = {nullptr, nullptr};
  p.keys.clear();
  EXPECT_THROW(detail::merge_partials_on_device(p, 1, base, {Aggregation::kSum}, nullptr), std::logic_error);
  p.keys = {nullptr};
  p.rows = std::size_t{1} << 32;
  EXPECT_THROW(detail::merge_partials_on_device(p, 1, base, {Aggregation::kSum}, nullptr), std::length_error);
}

TEST(ServersGroupByDecision, PooledSamplesEstimateEachServersGroupsAtMostItsRows) {
  using detail::SampledShare;
  // 4 servers of 2^28 rows, 2,684,354 triples each (1%), 3 equal pairs among them all: 3 T / E =
  // 4 * 2,684,354 triples, i.e. about 1.07e7 groups on each server.
  const std::uint64_t rows = std::uint64_t{1} << 28, trials = 2684354;
  const std::vector<SampledShare> four = {{rows, trials, 0}, {rows, trials, 2}, {rows, trials, 1}, {rows, trials, 0}};
  EXPECT_DOUBLE_EQ(detail::pooled_groups(four), 4.0 * (3.0 * 4.0 * trials / 3.0));
  // No equal pair anywhere: as many groups as rows, every server.
  const std::vector<SampledShare> none = {{rows, trials, 0}, {1000, 65536, 0}};
  EXPECT_DOUBLE_EQ(detail::pooled_groups(none), static_cast<double>(rows + 1000));
  // The estimate is capped by each server's rows, and a server without rows has no groups.
  const std::vector<SampledShare> small = {{100, 65536, 1}, {0, 0, 0}, {2, 0, 0}};
  EXPECT_DOUBLE_EQ(detail::pooled_groups(small), 102.0);
  // Many equal pairs (few groups): at least one group a server with rows.
  const std::vector<SampledShare> one_key = {{5000, 65536, 3 * 65536}, {5000, 65536, 3 * 65536}};
  EXPECT_DOUBLE_EQ(detail::pooled_groups(one_key), 2.0);
}

}  // namespace
}  // namespace hashlab::catalogue
