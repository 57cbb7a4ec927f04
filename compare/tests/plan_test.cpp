// The comparison sweeps (CPU only): which variants run where, and the inputs each point draws.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>

#include "hashlab/catalogue/groupby.hpp"
#include "hashlab/catalogue/join.hpp"
#include "hashlab/catalogue/table.hpp"
#include "hashlab/compare/plan.hpp"

namespace hashlab::compare {
namespace {

using harness::Point;
using harness::Profile;
using harness::RunOptions;

RunOptions quick() {
  RunOptions o;
  o.profile = Profile::kQuick;
  return o;
}
RunOptions full() {
  RunOptions o;
  o.profile = Profile::kFull;
  return o;
}

std::vector<Point> with_param(const std::vector<Point>& points, const std::string& name) {
  std::vector<Point> out;
  std::copy_if(points.begin(), points.end(), std::back_inserter(out), [&](const Point& p) { return p.param_name == name; });
  return out;
}

TEST(TablesPlan, CuckooNeverRunsAboveItsPracticalLoad) {
  for (const auto& o : {quick(), full()})
    for (const auto& p : with_param(tables_plan(o), kLoadFactor))
      if (p.variant == "cuckoo") {
        EXPECT_LE(p.param_value, catalogue::table_entry("cuckoo").max_load) << p.label();
      }
}

TEST(TablesPlan, CuckooRunsAtTheChaptersLoad0_8) {
  const auto points = with_param(tables_plan(quick()), kLoadFactor);
  EXPECT_TRUE(std::any_of(points.begin(), points.end(),
                          [](const Point& p) { return p.variant == "cuckoo" && p.param_value == 0.8; }));  // 1 / 1.25, cuckoo 4.3.1.1
}

TEST(TablesPlan, SortedArrayRunsOnceAtLoadOne) {
  const auto points = with_param(tables_plan(quick()), kLoadFactor);
  const auto sorted = std::count_if(points.begin(), points.end(), [](const Point& p) { return p.variant == "sorted_array"; });
  EXPECT_EQ(sorted, 1);
  for (const auto& p : points)
    if (p.variant == "sorted_array") {
      EXPECT_EQ(p.param_value, 1.0);
    }
}

TEST(TablesPlan, LinearProbingStopsAt0_9AndHashGraphGoesBeyondOne) {
  const auto points = with_param(tables_plan(full()), kLoadFactor);
  double lp_max = 0, hg_max = 0;
  for (const auto& p : points) {
    if (p.variant == "linear_probing") lp_max = std::max(lp_max, p.param_value);
    if (p.variant == "hashgraph_v2") hg_max = std::max(hg_max, p.param_value);
  }
  EXPECT_EQ(lp_max, catalogue::table_entry("linear_probing").max_load);
  EXPECT_GT(hg_max, 1.0);
}

TEST(TablesPlan, EveryTableRunsAtEveryMultiplicity) {
  const auto points = with_param(tables_plan(quick()), kMultiplicity);
  EXPECT_EQ(points.size(), table_multiplicities(quick()).size() * table_variants().size());
}

TEST(TablesPlan, VariantsOfOneInputAreAdjacent) {
  // The cache holds one input at a time: a parameter value must not come back after another.
  for (const auto& o : {quick(), full()}) {
    std::set<std::string> finished;
    std::string current;
    for (const auto& p : tables_plan(o)) {
      const std::string input = p.param_name == kMultiplicity ? std::to_string(p.param_value) : "load sweep";
      if (input != current) {
        EXPECT_EQ(finished.count(input), 0u) << input;
        if (!current.empty()) finished.insert(current);
        current = input;
      }
    }
  }
}

TEST(TablesPlan, SizeFollowsProfileAndDashN) {
  EXPECT_EQ(tables_plan(quick()).front().n, kTablesQuickN);
  EXPECT_EQ(tables_plan(full()).front().n, kTablesFullN);
  RunOptions o = quick();
  o.sizes = {1000};
  for (const auto& p : tables_plan(o)) EXPECT_EQ(p.n, 1000u);
}

TEST(TablesPlan, KeysOptionParsesTheThreeChoicesAndRejectsOthers) {
  EXPECT_EQ(parse_table_keys("unique").distribution, gen::KeyDistribution::kUniqueRandom);
  EXPECT_EQ(parse_table_keys("sequence").distribution, gen::KeyDistribution::kSequence);
  EXPECT_EQ(parse_table_keys("shuffled").distribution, gen::KeyDistribution::kShuffledSequence);
  EXPECT_THROW(parse_table_keys("zipf"), std::invalid_argument);
  EXPECT_THROW(parse_table_keys(""), std::invalid_argument);
}

TEST(TablesPlan, RefusesABadKeysOptionBeforeAnyPoint) {
  RunOptions o = quick();
  o.module_options[kKeysOption] = "zipf";
  EXPECT_THROW(tables_plan(o), std::invalid_argument);
  o.module_options[kKeysOption] = "sequence";
  EXPECT_FALSE(tables_plan(o).empty());
}

TEST(TablesPlan, MultiplicityKeysHaveNOverMDistinctKeys) {
  EXPECT_EQ(multiplicity_keys(1000, 4).distinct_keys(1000), 250u);
  EXPECT_EQ(multiplicity_keys(1000, 1).distinct_keys(1000), 1000u);
  EXPECT_THROW(multiplicity_keys(1000, 0.5), std::invalid_argument);
}

TEST(RunsAtLoad, RejectsNonPositiveLoads) {
  for (const auto& v : table_variants()) {
    EXPECT_FALSE(runs_at_load(v, 0.0)) << v.name;
    EXPECT_FALSE(runs_at_load(v, -1.0)) << v.name;
  }
  EXPECT_FALSE(runs_at_load(table_variant("cuckoo"), 0.95));
  EXPECT_FALSE(runs_at_load(table_variant("linear_probing"), 1.0));
  EXPECT_TRUE(runs_at_load(table_variant("hashgraph_v1"), 4.0));
  EXPECT_TRUE(runs_at_load(table_variant("sorted_array"), 1.0));
  EXPECT_FALSE(runs_at_load(table_variant("sorted_array"), 0.9));
}

TEST(Variants, EveryEntryOfTheCatalogueRunsInItsComparison) {
  std::set<std::string> tables;
  for (const auto& v : table_variants()) tables.insert(v.entry);
  for (const auto& e : catalogue::table_entries()) EXPECT_EQ(tables.count(e.name), 1u) << e.name;
  EXPECT_EQ(groupby_variants().size(), catalogue::groupby_entries().size());
  EXPECT_EQ(join_variants().size(), catalogue::join_entries().size());
  EXPECT_THROW(table_variant("cudpp"), std::invalid_argument);
}

TEST(GroupByPlan, CardinalitiesRunFromTenToAllDistinct) {
  const auto groups = groupby_cardinalities(quick(), kGroupByQuickN);
  EXPECT_EQ(groups.front(), 10);
  EXPECT_EQ(groups.back(), static_cast<double>(kGroupByQuickN));
  EXPECT_TRUE(std::is_sorted(groups.begin(), groups.end()));
  EXPECT_EQ(std::adjacent_find(groups.begin(), groups.end()), groups.end());
}

TEST(GroupByPlan, HasALoadFactorAboveNinetyAndBelowOne) {  // EGA's claims are judged there
  const auto groups = groupby_cardinalities(quick(), kGroupByQuickN);
  ASSERT_GE(groups.size(), 2u);
  const double lf = groups[groups.size() - 2] / static_cast<double>(kGroupByQuickN);
  EXPECT_GT(lf, 0.9);
  EXPECT_LT(lf, 1.0);
}

TEST(GroupByPlan, SmallNDropsCardinalitiesAboveIt) {
  const auto groups = groupby_cardinalities(quick(), 1000);
  EXPECT_EQ(groups, (std::vector<double>{10, 990, 1000}));
}

TEST(GroupByPlan, EveryVariantAtEveryPoint) {
  const auto points = groupby_plan(quick());
  const std::size_t inputs = groupby_cardinalities(quick(), kGroupByQuickN).size() + groupby_zipf_exponents(quick()).size();
  EXPECT_EQ(points.size(), inputs * catalogue::groupby_entries().size());
}

TEST(GroupByPlan, KeysOfEachPoint) {
  EXPECT_EQ(groupby_keys({"sort", 1000, kGroups, 10}).distribution, gen::KeyDistribution::kUniform);
  EXPECT_EQ(groupby_keys({"sort", 1000, kGroups, 10}).distinct_keys(1000), 10u);
  EXPECT_EQ(groupby_keys({"sort", 1000, kGroups, 1000}).distribution, gen::KeyDistribution::kUniqueRandom);
  const auto zipf = groupby_keys({"sort", 1000, kZipfExponent, 1.0});
  EXPECT_EQ(zipf.distribution, gen::KeyDistribution::kZipf);
  EXPECT_EQ(zipf.distinct, 250u);
  EXPECT_THROW(groupby_keys({"sort", 1000, "bogus", 1.0}), std::invalid_argument);
  EXPECT_THROW(groupby_keys({"sort", 1000, kGroups, 0}), std::invalid_argument);
}

TEST(GroupByPlan, ZipfCandidatesCappedByTheGeneratorsTable) {
  EXPECT_EQ(zipf_candidates(8), 2u);
  EXPECT_EQ(zipf_candidates(1), 1u);
  EXPECT_EQ(zipf_candidates(std::uint64_t{1} << 30), gen::kMaxZipfKeys);
}

// ---- joins ---------------------------------------------------------------------------------------

TEST(JoinsPlan, SizesAtTheDefaultRateThenRatesAtTheLargestSize) {
  const auto points = joins_plan(quick());
  const auto sizes = join_sizes(quick());
  const std::uint64_t largest = *std::max_element(sizes.begin(), sizes.end());
  std::set<double> rates_at_largest;
  for (const auto& p : points) {
    EXPECT_EQ(p.param_name, kMatchRate);
    if (p.param_value != kDefaultMatchRate) {
      EXPECT_EQ(p.n, largest) << p.label();
    }
    if (p.n == largest) rates_at_largest.insert(p.param_value);
  }
  EXPECT_EQ(rates_at_largest.size(), join_match_rates(quick()).size());
  EXPECT_EQ(points.size(), (sizes.size() + join_match_rates(quick()).size() - 1) * catalogue::join_entries().size());
}

TEST(JoinsPlan, SpecKeepsTheReportsDomainWhereItFits) {
  const auto small = join_spec({"bsp", 1000, kMatchRate, 0.5});
  EXPECT_EQ(small.r_rows, 1000u);
  EXPECT_EQ(small.s_rows, 1000u);
  EXPECT_EQ(small.key_domain, 100000000u);
  EXPECT_EQ(small.matches(), 500u);
  const auto large = join_spec({"bsp", std::uint64_t{1} << 26, kMatchRate, 1.0});
  EXPECT_GE(large.key_domain, 4 * (std::uint64_t{1} << 26));
  EXPECT_THROW(join_spec({"bsp", 1000, kMatchRate, 1.5}), std::invalid_argument);
}

}  // namespace
}  // namespace hashlab::compare
