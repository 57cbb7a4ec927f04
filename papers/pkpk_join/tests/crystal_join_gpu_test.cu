// Crystal's hash join (crystal_join.hpp) against the CPU reference join: its answer (the sum of
// value1 x value2 over the matches) and the rows of its table (GPU tests).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "hashlab/common/generator.hpp"
#include "hashlab/pkpk_join/crystal_join.hpp"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab::pkpk {
namespace {

using Keys = std::vector<std::uint32_t>;

class CrystalJoin : public testing::GpuTest {
 protected:
  testing::LazyStream stream;

  struct Tables {
    Keys r_keys, s_keys, r_values, s_values;
    DeviceBuffer<std::uint32_t> dr_keys, ds_keys, dr_values, ds_values;
    TableView r() const { return {dr_keys.data(), dr_values.data(), r_keys.size()}; }
    TableView s() const { return {ds_keys.data(), ds_values.data(), s_keys.size()}; }
  };

  /// Values drawn over the whole 32-bit range, so that the products need 64 bits and a value from
  /// the wrong row changes the sum.
  Tables upload(Keys r, Keys s, std::uint64_t seed = 7) {
    std::mt19937_64 rng(seed);
    Tables t;
    t.r_keys = std::move(r);
    t.s_keys = std::move(s);
    for (std::size_t i = 0; i < t.r_keys.size(); ++i) t.r_values.push_back(static_cast<std::uint32_t>(rng()));
    for (std::size_t i = 0; i < t.s_keys.size(); ++i) t.s_values.push_back(static_cast<std::uint32_t>(rng()));
    t.dr_keys = to_device(t.r_keys, stream);
    t.ds_keys = to_device(t.s_keys, stream);
    t.dr_values = to_device(t.r_values, stream);
    t.ds_values = to_device(t.s_values, stream);
    return t;
  }

  Tables generated(const gen::PkPkSpec& spec, std::uint64_t seed) {
    Keys r, s;
    gen::generate_pkpk_host(spec, seed, r, s);
    return upload(std::move(r), std::move(s), seed);
  }

  /// Crystal's answer and the rows of its table, both against the reference join's.
  void expect_matches_reference(const Tables& t) {
    const auto want = reference_join(t.r_keys, t.r_values, t.s_keys, t.s_values);
    const KeyRange range = key_range(t.r_keys);
    EXPECT_EQ(crystal_join(t.r(), t.s(), range, stream).read(stream), crystal_sum(want)) << "the sum";
    auto rows = crystal_join_rows(t.r(), t.s(), range, stream).to_host(stream);
    std::sort(rows.begin(), rows.end());
    EXPECT_EQ(rows, want) << "the rows";
  }
};

TEST_F(CrystalJoin, ReportsDataOneMillionEachKeyModTenToTheEight) {
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  // The profile's input: 10^6 x 10^6, keys mod 10^8, 1% of S matching; a table of ~10^8 slots.
  expect_matches_reference(generated({1000000, 1000000, 100000000, 0.01}, seed));
}

TEST_F(CrystalJoin, CrystalsOwnDenseDataEveryRowMatches) {
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const std::uint64_t n = 100003;
  const auto t = generated({n, n, n, 1.0}, seed);
  EXPECT_EQ(key_range(t.r_keys).keys(), n) << "one slot per row, as Crystal's driver sizes it";
  expect_matches_reference(t);
  EXPECT_EQ(crystal_join_rows(t.r(), t.s(), key_range(t.r_keys), stream).size, n);
}

TEST_F(CrystalJoin, OddSizesAcrossItsTilesOf512) {
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  for (auto [nr, ns] : {std::pair<std::uint64_t, std::uint64_t>{1, 1}, {511, 512}, {512, 513}, {513, 1},
                        {1025, 4097}, {12345, 6789}}) {
    SCOPED_TRACE("|R|=" + std::to_string(nr) + " |S|=" + std::to_string(ns));
    const double rate = 0.5 * static_cast<double>(std::min(nr, ns)) / static_cast<double>(ns);
    expect_matches_reference(generated({nr, ns, 4 * (nr + ns), rate}, seed + nr));
  }
}

TEST_F(CrystalJoin, AllAndNoneMatching) {
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  expect_matches_reference(generated({100000, 100000, 1000000, 1.0}, seed));
  const auto none = generated({100000, 100000, 1000000, 0.0}, seed + 1);
  expect_matches_reference(none);
  EXPECT_EQ(crystal_join(none.r(), none.s(), key_range(none.r_keys), stream).read(stream), 0u);
}

TEST_F(CrystalJoin, ProbeKeysOutsideRsRangeNeverMatch) {
  // R's range is [1000, 1003]; S's keys below it, above it, and ones that wrap onto R's slots
  // modulo the table's 4 slots (1004 -> slot 0, 996 -> slot 0 too), with 0 and 0xffffffff, the
  // empty slot's key.
  const auto t = upload({1000, 1001, 1002, 1003}, {1004, 996, 0, 0xffffffffu, 1002, 2003, 1000});
  expect_matches_reference(t);
  EXPECT_EQ(crystal_join_rows(t.r(), t.s(), key_range(t.r_keys), stream).size, 2u);
}

TEST_F(CrystalJoin, KeyZeroAndTheLargestKeyJoin) {
  // Crystal's empty slot is 0 (its keys start at 1); ours is 0xffffffff, so key 0 joins, and so
  // does 0xfffffffe, the largest key a table can hold, at the last slot of its range.
  expect_matches_reference(upload({0, 5, 9}, {9, 0, 6}));
  const auto top = upload({0xfffffffeu, 0xfffffff0u}, {0xfffffffeu, 1, 0xfffffff0u});
  expect_matches_reference(top);
  EXPECT_EQ(crystal_join_rows(top.r(), top.s(), key_range(top.r_keys), stream).size, 2u);
}

TEST_F(CrystalJoin, EmptyTablesGiveZeroAndNoRows) {
  const auto t = upload({1, 2, 3}, {3});
  const TableView empty{nullptr, nullptr, 0};
  for (const auto& [r, s] : {std::pair{t.r(), empty}, std::pair{empty, t.s()}, std::pair{empty, empty}}) {
    EXPECT_EQ(crystal_join(r, s, key_range(t.r_keys), stream).read(stream), 0u);
    EXPECT_EQ(crystal_join_rows(r, s, key_range(t.r_keys), stream).size, 0u);
  }
}

TEST_F(CrystalJoin, ARepeatedKeyInRIsRefusedNotSummedWrong) {
  const auto t = upload({4, 9, 4}, {4, 9});
  const KeyRange range = key_range(t.r_keys);
  const auto result = crystal_join(t.r(), t.s(), range, stream);
  try {
    result.read(stream);
    FAIL() << "a key repeated in R was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("repeats in R"), std::string::npos) << e.what();
  }
  EXPECT_THROW(crystal_join_rows(t.r(), t.s(), range, stream), std::invalid_argument);
}

TEST_F(CrystalJoin, TheEmptySlotsKeyInRIsRefused) {
  const auto t = upload({0xffffffffu, 3}, {3});
  EXPECT_THROW(crystal_join(t.r(), t.s(), key_range(t.r_keys), stream).read(stream), std::invalid_argument);
  EXPECT_THROW(crystal_join_rows(t.r(), t.s(), key_range(t.r_keys), stream), std::invalid_argument);
}

TEST_F(CrystalJoin, ARangeThatDoesNotHoldRsKeysIsFoundByTheBuild) {
  // Keys 10 and 14 in a range of 4 slots starting at 10 share slot 0: the build sees the slot
  // taken (Crystal would keep the last value silently).
  const auto t = upload({10, 14}, {10, 14});
  EXPECT_THROW(crystal_join(t.r(), t.s(), KeyRange{10, 13}, stream).read(stream), std::invalid_argument);
}

TEST_F(CrystalJoin, AKeyRepeatedInSIsSummedPerRowAndRefusedAsRows) {
  // Crystal's probe sums every matching row of S; a Pk-Pk join's rows cannot hold both.
  const Keys r = {1, 2, 3};
  const auto t = upload(r, {2, 2, 3});
  const std::uint64_t sum = std::uint64_t{t.r_values[1]} * t.s_values[0] +
                            std::uint64_t{t.r_values[1]} * t.s_values[1] + std::uint64_t{t.r_values[2]} * t.s_values[2];
  EXPECT_EQ(crystal_join(t.r(), t.s(), key_range(r), stream).read(stream), sum);
  const auto two = upload({1, 2}, {2, 2, 2});
  EXPECT_THROW(crystal_join_rows(two.r(), two.s(), key_range(two.r_keys), stream), std::invalid_argument);
}

TEST_F(CrystalJoin, MarksMemsetBuildAndProbeWithWhatEachProcesses) {
  const auto t = generated({3000, 2000, 100000, 0.5}, testing::test_seed());
  const KeyRange range = key_range(t.r_keys);
  PhaseTimer phases;
  const auto result = crystal_join(t.r(), t.s(), range, stream, &phases);
  const auto steps = phases.results();
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].name, "memset");
  EXPECT_EQ(steps[0].items, static_cast<double>(range.keys()));
  EXPECT_EQ(steps[1].name, "build");
  EXPECT_EQ(steps[1].items, 3000.0);
  EXPECT_EQ(steps[2].name, "probe");
  EXPECT_EQ(steps[2].items, 2000.0);
  EXPECT_EQ(result.read(stream), crystal_sum(reference_join(t.r_keys, t.r_values, t.s_keys, t.s_values)));
}

}  // namespace
}  // namespace hashlab::pkpk
