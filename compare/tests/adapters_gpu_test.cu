// The adapters give the CPU references' answers on small inputs (GPU; skips without one).
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "hashlab/common/generator.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/compare/groupby.hpp"
#include "hashlab/compare/joins.hpp"
#include "hashlab/compare/tables.hpp"
#include "hashlab/pkpk_join/pkpk_join.hpp"
#include "hashlab/reference/groupby.hpp"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab::compare {
namespace {

using testing::GpuTest;
using testing::LazyStream;

// ---- tables --------------------------------------------------------------------------------------

class TablesTest : public GpuTest {
 protected:
  LazyStream stream_;

  /// Builds `kind` over n pairs drawn as `spec`, looks up every key, returns the check's verdict.
  std::string build_lookup_check(TableKind kind, KeyMode mode, const gen::KeySpec& spec, std::size_t n, double load,
                                 std::uint64_t seed) {
    const auto keys = gen::generate_keys_host(spec, seed, n);
    const auto values = gen::generate_values_host<std::uint32_t>(seed + 1, 0, 0xfffffffeu, n);
    const auto ref = make_lookup_reference(keys, values, keys);
    auto d_keys = to_device(keys, stream_);
    auto d_values = to_device(values, stream_);
    auto table = make_table(kind, mode, n, load, stream_);
    table->reset(stream_);
    table->build(d_keys.data(), d_values.data(), n, stream_);
    table->lookup(d_keys.data(), n, stream_);
    EXPECT_GT(table->bytes(), 0u);
    return table->check({&keys, &values, &keys, &ref}, stream_);
  }
};

TEST_F(TablesTest, EveryTableFindsEveryUniqueKeyAtLoad0_8) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  for (TableKind kind : all_table_kinds()) {
    const double load = kind == TableKind::kSortedArray ? 1.0 : 0.8;
    EXPECT_EQ(build_lookup_check(kind, KeyMode::kUnique, gen::KeySpec::unique(), 10000, load, seed), "")
        << to_string(kind);
  }
}

TEST_F(TablesTest, HashGraphAboveLoadOne) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  for (TableKind kind : {TableKind::kHashGraphV1, TableKind::kHashGraphV2})
    EXPECT_EQ(build_lookup_check(kind, KeyMode::kUnique, gen::KeySpec::unique(), 10000, 4.0, seed), "")
        << to_string(kind);
}

TEST_F(TablesTest, EveryTableCountsRepeatedKeys) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const std::size_t n = 12000;
  for (TableKind kind : all_table_kinds())
    EXPECT_EQ(build_lookup_check(kind, KeyMode::kMulti, gen::KeySpec::multiplicity(n, 6), n, 0, seed), "")
        << to_string(kind);
}

TEST_F(TablesTest, CheckCatchesAWrongReference) {
  // The check is not vacuous: a reference whose values differ from what was built fails it.
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const std::size_t n = 4000;
  const auto keys = gen::generate_keys_host(gen::KeySpec::unique(), seed, n);
  const auto values = gen::generate_values_host<std::uint32_t>(seed + 1, 0, 1000, n);
  auto other = values;
  other[n / 2] += 1;
  const auto wrong = make_lookup_reference(keys, other, keys);
  auto d_keys = to_device(keys, stream_);
  auto d_values = to_device(values, stream_);
  for (TableKind kind : {TableKind::kCuckoo, TableKind::kLinearProbing, TableKind::kSortedArray}) {
    auto table = make_table(kind, KeyMode::kUnique, n, kind == TableKind::kSortedArray ? 1.0 : 0.5, stream_);
    table->build(d_keys.data(), d_values.data(), n, stream_);
    table->lookup(d_keys.data(), n, stream_);
    EXPECT_NE(table->check({&keys, &values, &keys, &wrong}, stream_), "") << to_string(kind);
  }
}

TEST_F(TablesTest, RefusesLoadsATableCannotHold) {
  EXPECT_THROW(make_table(TableKind::kCuckoo, KeyMode::kUnique, 1000, 0.95, stream_), std::invalid_argument);
  EXPECT_THROW(make_table(TableKind::kLinearProbing, KeyMode::kUnique, 1000, 1.0, stream_), std::invalid_argument);
  EXPECT_THROW(make_table(TableKind::kSortedArray, KeyMode::kUnique, 1000, 0.5, stream_), std::invalid_argument);
  EXPECT_THROW(make_table(TableKind::kHashGraphV2, KeyMode::kUnique, 0, 1.0, stream_), std::invalid_argument);
}

// ---- group-by ------------------------------------------------------------------------------------

class GroupByTest : public GpuTest {
 protected:
  LazyStream stream_;

  void expect_all_agree(const gen::KeySpec& spec, std::size_t n, std::uint64_t seed) {
    const auto keys = gen::generate_keys_host(spec, seed, n);
    const auto values = gen::generate_values_host<std::uint32_t>(seed + 1, 0, 1000000, n);
    const auto expected = reference::groupby(keys, values, reference::Aggregation::kSum);
    auto d_keys = to_device(keys, stream_);
    auto d_values = to_device(values, stream_);
    const GroupByData data{d_keys.data(), d_values.data(), n, &keys, &values};
    for (GroupByKind kind : all_groupby_kinds()) {
      auto g = make_groupby(kind, data, stream_);
      for (int run = 0; run < 2; ++run) {  // twice: a rerun must not see the previous run's state
        g->prepare(stream_);
        g->run(stream_);
        EXPECT_EQ(reference::compare(expected, g->result(stream_)), "") << to_string(kind) << " run " << run;
      }
    }
  }
};

TEST_F(GroupByTest, FewGroups) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  expect_all_agree(gen::KeySpec::uniform(10), 50000, seed);
}

TEST_F(GroupByTest, AllDistinct) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  expect_all_agree(gen::KeySpec::unique(), 30000, seed);
}

TEST_F(GroupByTest, ZipfSkew) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  expect_all_agree(gen::KeySpec::zipf(10000, 1.2), 40000, seed);
}

TEST_F(GroupByTest, RefusesMissingColumns) {
  const GroupByData none{nullptr, nullptr, 10, nullptr, nullptr};
  for (GroupByKind kind : all_groupby_kinds()) EXPECT_THROW(make_groupby(kind, none, stream_), std::invalid_argument);
  EXPECT_THROW(make_groupby(GroupByKind::kSort, GroupByData{}, stream_), std::invalid_argument);
}

// ---- joins ---------------------------------------------------------------------------------------

class JoinsTest : public GpuTest {
 protected:
  LazyStream stream_;
};

TEST_F(JoinsTest, EveryJoinGivesTheReferenceRows) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  for (double rate : {0.0, 0.3, 1.0}) {
    gen::PkPkSpec spec;
    spec.r_rows = 20000;
    spec.s_rows = 15000;
    spec.match_rate = rate;
    std::vector<std::uint32_t> r_keys, s_keys;
    gen::generate_pkpk_host(spec, seed, r_keys, s_keys);
    const auto r_values = gen::generate_values_host<std::uint32_t>(seed + 1, 0, 0xfffffffeu, spec.r_rows);
    const auto s_values = gen::generate_values_host<std::uint32_t>(seed + 2, 0, 0xfffffffeu, spec.s_rows);
    const auto expected = pkpk::reference_join(r_keys, r_values, s_keys, s_values);
    auto dr = to_device(r_keys, stream_), ds = to_device(s_keys, stream_);
    auto drv = to_device(r_values, stream_), dsv = to_device(s_values, stream_);
    const pkpk::TableView r{dr.data(), drv.data(), spec.r_rows}, s{ds.data(), dsv.data(), spec.s_rows};
    for (JoinKind kind : all_join_kinds()) {
      auto join = make_join(kind, spec.r_rows, spec.s_rows, stream_);
      auto got = join->run(r, s, stream_).to_host(stream_);
      if (!join->sorted_output()) std::sort(got.begin(), got.end());
      EXPECT_EQ(got, expected) << to_string(kind) << " at match rate " << rate;
    }
  }
}

TEST_F(JoinsTest, GatherPairsFetchesKeysAndBothValues) {
  const std::vector<std::uint32_t> r_keys = {10, 20, 30}, r_values = {100, 200, 300};
  const std::vector<std::uint32_t> s_keys = {30, 10}, s_values = {3, 1};
  const std::vector<reference::JoinPair> pairs = {{2, 0}, {0, 1}};
  auto dr = to_device(r_keys, stream_), drv = to_device(r_values, stream_);
  auto ds = to_device(s_keys, stream_), dsv = to_device(s_values, stream_);
  auto dp = to_device(pairs, stream_);
  const auto rows = gather_pairs(dp.data(), pairs.size(), {dr.data(), drv.data(), 3}, {ds.data(), dsv.data(), 2},
                                 stream_)
                        .to_host(stream_);
  EXPECT_EQ(rows, (std::vector<pkpk::JoinedRow>{{30, 300, 3}, {10, 100, 1}}));
}

TEST_F(JoinsTest, RefusesEmptyTables) {
  for (JoinKind kind : all_join_kinds()) EXPECT_THROW(make_join(kind, 0, 10, stream_), std::invalid_argument);
}

}  // namespace
}  // namespace hashlab::compare
