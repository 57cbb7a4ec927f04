// compare/tpch's host logic (CPU only): the plan, the queries, the data directory, the join's
// grouped input. The data are tiny columns in scripts/tpch.py's layout, written here.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "hashlab/common/column_io.hpp"
#include "hashlab/compare/tpch.hpp"

namespace hashlab::compare::tpch {
namespace {

namespace fs = std::filesystem;
using harness::Point;
using harness::Profile;
using harness::RunOptions;

RunOptions options(const std::string& dir, Profile profile = Profile::kQuick, const std::string& sf = kSfByProfile) {
  RunOptions o;
  o.profile = profile;
  o.module_options[kDirOption] = dir;
  o.module_options[kSfOption] = sf;
  return o;
}

const Variants kVariants{{"rapids", "sp_ega", "cpu"}, {"rapids"}, {"bsp", "hash_join"}};

class TpchData : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    dir_ = (fs::path(::testing::TempDir()) / ("hashlab_tpch_test_" + test)).string();
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  /// Every column at SF `sf`: lineitem of `rows` rows (orders of 3 rows), in scripts/tpch.py's layout.
  void write(const std::string& sf, std::size_t rows) {
    const fs::path at = fs::path(dir_) / ("sf" + sf);
    fs::create_directories(at / "lineitem");
    fs::create_directories(at / "orders");
    for (const auto& c : lineitem_columns()) {
      std::vector<std::uint32_t> v(rows);
      for (std::size_t i = 0; i < rows; ++i) v[i] = static_cast<std::uint32_t>(i % 3 + 1);
      io::write_npy((at / "lineitem" / (c + ".npy")).string(), v);
    }
    for (const auto& c : orders_columns()) io::write_npy((at / "orders" / (c + ".npy")).string(), std::vector<std::uint32_t>{1, 2, 3});
  }
  std::string dir_;
};

// ---- scale factors -------------------------------------------------------------------------------

TEST(TpchScaleFactor, NormalisesAsScriptsTpchNamesItsDirectories) {
  EXPECT_EQ(normalize_sf("1"), "1");
  EXPECT_EQ(normalize_sf("10"), "10");
  EXPECT_EQ(normalize_sf("0.01"), "0.01");
  EXPECT_EQ(normalize_sf("1.0"), "1");
  EXPECT_EQ(normalize_sf("010"), "10");
  EXPECT_EQ(normalize_sf(".50"), "0.5");
  EXPECT_EQ(sf_dir("data/tpch", "0.01"), "data/tpch/sf0.01");
}

TEST(TpchScaleFactor, RejectsWhatIsNoPositiveDecimal) {
  for (const char* bad : {"", "0", "0.00", "-1", "1e1", "abc", "1.2.3", ".", "1 "}) {
    EXPECT_THROW(normalize_sf(bad), std::invalid_argument) << bad;
  }
}

TEST(TpchScaleFactor, IsOneQuickTenFullUnlessTheOptionNamesOne) {
  EXPECT_EQ(scale_factor(options("d")), "1");
  EXPECT_EQ(scale_factor(options("d", Profile::kFull)), "10");
  EXPECT_EQ(scale_factor(options("d", Profile::kFull, "0.010")), "0.01");
  EXPECT_EQ(scale_factor(options("d", Profile::kFull, "")), "10");
  EXPECT_THROW(scale_factor(options("d", Profile::kQuick, "one")), std::invalid_argument);
}

// ---- the plan ------------------------------------------------------------------------------------

TEST(TpchPlan, WithoutDataEveryPointHasDbgensLineitemRows) {
  for (const auto& [profile, rows] : {std::pair{Profile::kQuick, 6001215ull}, std::pair{Profile::kFull, 59986052ull}})
    for (const Point& p : plan(options("/nonexistent/tpch", profile), kVariants)) EXPECT_EQ(p.n, rows) << p.label();
}

TEST(TpchPlan, Q1RunsOnlyTheTwoKeyGroupBysAndQ18OnlyTheJoins) {
  for (const Point& p : plan(options("/nonexistent"), kVariants)) {
    const Query& q = query_of(p);
    if (q.id == 1) {
      EXPECT_EQ(p.variant, "rapids");
    } else if (q.join) {
      EXPECT_TRUE(p.variant == "bsp" || p.variant == "hash_join") << p.label();
    } else {
      EXPECT_NE(std::find(kVariants.groupby.begin(), kVariants.groupby.end(), p.variant), kVariants.groupby.end());
    }
  }
}

TEST(TpchPlan, EveryOneKeyQueryRunsEveryGroupByOnItsKeysAndOnUniformKeys) {
  const auto points = plan(options("/nonexistent"), kVariants);
  for (int id : {2, 3, 4})
    for (const char* param : {kQueryParam, kUniformParam})
      for (const auto& v : kVariants.groupby) {
        const auto n = std::count_if(points.begin(), points.end(), [&](const Point& p) {
          return p.variant == v && p.param_name == param && p.param_value == id;
        });
        EXPECT_EQ(n, 1) << v << " " << param << "=" << id;
      }
  EXPECT_EQ(points.size(), 1 + 3 * 2 * kVariants.groupby.size() + kVariants.join.size());
}

TEST(TpchPlan, TheVariantsOfOneInputRunOneAfterAnother) {
  // Each input is built once (ctx.cached) and dropped when the next one starts.
  const auto points = plan(options("/nonexistent"), kVariants);
  std::set<std::pair<std::string, double>> done;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto input = std::pair{points[i].param_name, points[i].param_value};
    if (i > 0 && input == std::pair{points[i - 1].param_name, points[i - 1].param_value}) continue;
    EXPECT_TRUE(done.insert(input).second) << points[i].label() << " comes back to an input already dropped";
  }
}

TEST_F(TpchData, WithDataThePlanTakesLineitemsRowsFromItsFile) {
  write("1", 1234);
  for (const Point& p : plan(options(dir_), kVariants)) EXPECT_EQ(p.n, 1234u);
  EXPECT_EQ(lineitem_rows(dir_, "1"), 1234u);
  EXPECT_EQ(lineitem_rows(dir_, "10"), nominal_lineitem_rows("10"));  // not there: nominal
}

// ---- the data ------------------------------------------------------------------------------------

TEST_F(TpchData, MissingDataNamesTheDirectoryAndTheCommand) {
  // A scale factor no checkout has (the default folder may hold sf1 where the test runs).
  const std::string why = missing_data(kDefaultDir, "123");
  EXPECT_NE(why.find("data/tpch/sf123"), std::string::npos) << why;
  EXPECT_NE(why.find("make tpch-data SF=123"), std::string::npos) << why;
  const std::string elsewhere = missing_data(dir_, "0.01");
  EXPECT_NE(elsewhere.find(dir_ + "/sf0.01"), std::string::npos) << elsewhere;
  EXPECT_NE(elsewhere.find("python3 scripts/tpch.py --sf 0.01 --out " + dir_), std::string::npos) << elsewhere;
}

TEST_F(TpchData, CompleteDataIsNotMissingAndAMissingColumnIsNamed) {
  write("1", 10);
  EXPECT_EQ(missing_data(dir_, "1"), "");
  fs::remove(fs::path(dir_) / "sf1" / "orders" / "o_totalprice.npy");
  const std::string why = missing_data(dir_, "1");
  EXPECT_NE(why.find("orders/o_totalprice.npy is missing"), std::string::npos) << why;
}

TEST_F(TpchData, LoadsEveryColumn) {
  write("0.01", 7);
  const Data d = load(dir_, "0.01");
  EXPECT_EQ(d.lineitem_rows(), 7u);
  EXPECT_EQ(d.column("o_orderkey"), (std::vector<std::uint32_t>{1, 2, 3}));
  EXPECT_EQ(d.column("l_suppkey")[4], 2u);
  EXPECT_EQ(d.path("l_quantity"), dir_ + "/sf0.01/lineitem/l_quantity.npy");
  EXPECT_THROW(d.column("o_custkey"), std::logic_error);
}

TEST_F(TpchData, AnotherDtypeIsAnErrorNamingTheFile) {
  write("1", 5);
  const std::string path = dir_ + "/sf1/lineitem/l_partkey.npy";
  io::write_npy(path, std::vector<std::int64_t>{1, 2, 3, 4, 5});
  try {
    load(dir_, "1");
    FAIL() << "an int64 column loaded";
  } catch (const io::FormatError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'<i8'"), std::string::npos) << e.what();
  }
}

TEST_F(TpchData, AColumnOfAnotherLengthIsAnErrorNamingBothFiles) {
  write("1", 5);
  const std::string path = dir_ + "/sf1/lineitem/l_extendedprice.npy";
  io::write_npy(path, std::vector<std::uint32_t>{1, 2, 3});
  try {
    load(dir_, "1");
    FAIL() << "a ragged table loaded";
  } catch (const io::FormatError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": 3 rows"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("l_orderkey.npy has 5"), std::string::npos) << e.what();
  }
}

// ---- the queries ---------------------------------------------------------------------------------

TEST(TpchQueries, KeysAreColumnsTheDataHold) {
  for (const Query& q : queries())
    for (const auto& k : q.keys)
      EXPECT_NE(std::find(lineitem_columns().begin(), lineitem_columns().end(), k), lineitem_columns().end()) << k;
}

TEST(TpchQueries, APointNamesItsQuery) {
  EXPECT_EQ(query_of({"rapids", 10, kQueryParam, 1}).keys.size(), 2u);
  EXPECT_TRUE(query_of({"bsp", 10, kQueryParam, 18}).join);
  EXPECT_EQ(query_of({"cpu", 10, kUniformParam, 3}).keys, std::vector<std::string>{"l_partkey"});
  EXPECT_TRUE(is_uniform({"cpu", 10, kUniformParam, 3}));
  EXPECT_THROW(query_of({"rapids", 10, kUniformParam, 1}), std::invalid_argument);  // two keys: no twin
  EXPECT_THROW(query_of({"bsp", 10, kUniformParam, 18}), std::invalid_argument);
  EXPECT_THROW(query_of({"rapids", 10, kQueryParam, 5}), std::invalid_argument);
  EXPECT_THROW(query_of({"rapids", 10, "groups", 2}), std::invalid_argument);
}

TEST(TpchQueries, DescriptionsNameTheColumnsAndTheGroups) {
  const std::string q1 = describe({"rapids", 10, kQueryParam, 1}, "1", 4);
  EXPECT_NE(q1.find("(l_returnflag, l_linestatus) (4 groups)"), std::string::npos) << q1;
  EXPECT_NE(q1.find("TPC-H SF 1"), std::string::npos) << q1;
  const std::string twin = describe({"cpu", 10, kUniformParam, 2}, "1", 10000);
  EXPECT_NE(twin.find("l_suppkey replaced by the generator's uniform keys"), std::string::npos) << twin;
  EXPECT_NE(describe({"bsp", 10, kQueryParam, 18}, "10", 15000000).find("Q18"), std::string::npos);
}

TEST(TpchQueries, JoinVariantsAreDistinctFromTheGroupBys) {
  const Variants v = variants();
  for (const auto& j : v.join) EXPECT_EQ(std::count(v.groupby.begin(), v.groupby.end(), j), 0) << j;
  EXPECT_EQ(v.groupby_two_keys, (std::vector<std::string>{"rapids", "cpu_stl"}));
}

// ---- helpers -------------------------------------------------------------------------------------

TEST(TpchHelpers, CountsDistinctKeys) {
  EXPECT_EQ(count_distinct({}), 0u);
  EXPECT_EQ(count_distinct({5, 5, 5}), 1u);
  EXPECT_EQ(count_distinct({1, 64, 63, 0, 64, 1u << 20}), 5u);
}

TEST(TpchHelpers, GroupsLineitemByOrderWithTheSumOfQuantity) {
  const Grouped g = group_by_order({7, 3, 7, 9, 3, 7}, {100, 200, 300, 400, 500, 600});
  EXPECT_EQ(g.keys, (std::vector<std::uint32_t>{3, 7, 9}));
  EXPECT_EQ(g.sums, (std::vector<std::uint32_t>{700, 1000, 400}));
}

TEST(TpchHelpers, ASumBeyond32BitsIsAnErrorNamingTheOrder) {
  try {
    group_by_order({42, 42}, {0xf0000000u, 0xf0000000u});
    FAIL() << "an overflowing sum passed";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("order 42"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hashlab::compare::tpch
