// CPU-only parts of the pk-pk join: the element packing, the partition count, the samples per
// tile and the splitters' positions (step 5), input validation, and the two host joins
// (reference and multi-threaded) on the shared generator.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "hashlab/common/generator.hpp"
#include "hashlab/pkpk_join/crystal_join.hpp"
#include "hashlab/pkpk_join/pkpk_join.hpp"
#include "hashlab/reference/cpu_baselines.hpp"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab::pkpk {
namespace {

TEST(PkPkPacking, RoundTripsKeyTableAndRow) {
  const std::uint64_t e = pack(0xdeadbeefu, kTableS, 123456789);
  EXPECT_EQ(key_of(e), 0xdeadbeefu);
  EXPECT_EQ(table_of(e), kTableS);
  EXPECT_EQ(row_of(e), 123456789u);
  EXPECT_EQ(row_of(pack(1, kTableR, kMaxRowsPerTable - 1)), kMaxRowsPerTable - 1);
}

TEST(PkPkPacking, SortBitsPutEqualKeysTogetherWithRFirst) {
  auto order = [](std::uint64_t e) { return e >> kSortBeginBit; };
  EXPECT_LT(order(pack(7, kTableR, kMaxRowsPerTable - 1)), order(pack(7, kTableS, 0)));
  EXPECT_LT(order(pack(7, kTableS, kMaxRowsPerTable - 1)), order(pack(8, kTableR, 0)));
  // The tail padding sorts after (or level with) every real element and never equals one.
  EXPECT_GT(kPadding, pack(0xffffffffu, kTableS, kMaxRowsPerTable - 1));
}

TEST(PkPkPartitions, DefaultIsOneBucketPerTileUpToTheCap) {
  EXPECT_EQ(tile_items(TileShape::kStandard), 4096u);
  EXPECT_EQ(tile_items(TileShape::kTeaching), 4u);
  EXPECT_EQ(default_partitions(2000000, TileShape::kStandard), 489u);  // the report's 1M x 1M
  EXPECT_EQ(default_partitions(1, TileShape::kStandard), 1u);
  EXPECT_EQ(default_partitions(16, TileShape::kTeaching), 4u);
  EXPECT_EQ(default_partitions(200000000, TileShape::kStandard), kDefaultMaxPartitions);
}

TEST(PkPkSampling, SamplesPerTileAreLog2OfPRoundedUpAtLeastOne) {
  // Step 5: log(p) random samples from each block, as log2(p) rounded up (never none).
  EXPECT_EQ(samples_per_tile(1), 1u);
  EXPECT_EQ(samples_per_tile(2), 1u);
  EXPECT_EQ(samples_per_tile(3), 2u);
  EXPECT_EQ(samples_per_tile(4), 2u);
  EXPECT_EQ(samples_per_tile(5), 3u);
  EXPECT_EQ(samples_per_tile(489), 9u);  // the report's 1M x 1M: p = 489 tiles
  EXPECT_EQ(samples_per_tile(1024), 10u);
  EXPECT_EQ(samples_per_tile(1025), 11u);
  EXPECT_EQ(samples_per_tile(kMaxPartitions), 13u);
}

/// Bucket sizes of `num_samples` distinct sorted samples under the p - 1 splitters that
/// splitter_sample picks: sample j goes to the number of splitters at or below it (step 6).
std::vector<std::size_t> sample_groups(std::size_t num_samples, std::uint32_t p) {
  std::vector<std::size_t> groups(p, 0);
  for (std::size_t j = 0; j < num_samples; ++j) {
    std::size_t bucket = 0;
    for (std::size_t i = 0; i + 1 < p; ++i) bucket += splitter_sample(i, num_samples, p) <= j ? 1 : 0;
    ++groups[bucket];
  }
  return groups;
}

TEST(PkPkSplitters, AreTheEquiSpacedSamplesOfTheReport) {
  // The report's Splitterss: d_splitters[tid] = d_samples[(tid + 1) * sample_size / p].
  EXPECT_EQ(splitter_sample(0, 40, 4), 10u);
  EXPECT_EQ(splitter_sample(1, 40, 4), 20u);
  EXPECT_EQ(splitter_sample(2, 40, 4), 30u);
  EXPECT_EQ(splitter_sample(0, 4401, 489), 9u);  // 1M x 1M: 489 tiles x 9 samples
  EXPECT_EQ(splitter_sample(487, 4401, 489), 4392u);
}

TEST(PkPkSplitters, CutTheSortedSamplesIntoPEqualGroups) {
  // With S = k p samples, every bucket (the first and the last too) receives exactly k of them:
  // what makes the buckets even (bucket b spans the keys of k consecutive samples).
  for (const auto& [p, k] : {std::pair<std::uint32_t, std::size_t>{2, 1}, {4, 2}, {7, 3}, {489, 9}, {1024, 10}}) {
    SCOPED_TRACE("p=" + std::to_string(p) + " k=" + std::to_string(k));
    const auto groups = sample_groups(k * p, p);
    EXPECT_EQ(*std::min_element(groups.begin(), groups.end()), k);
    EXPECT_EQ(*std::max_element(groups.begin(), groups.end()), k);
  }
  // S not a multiple of p: the groups differ by one sample at most.
  const auto groups = sample_groups(100, 7);
  EXPECT_LE(*std::max_element(groups.begin(), groups.end()) - *std::min_element(groups.begin(), groups.end()), 1u);
}

TEST(PkPkValidate, RejectsOversizedAndMissingColumnsButNotEmptyTables) {
  static const std::uint32_t column[1] = {0};  // never read: validation looks at sizes only
  const TableView ok{column, column, 1};
  EXPECT_NO_THROW(validate(ok, ok));
  EXPECT_NO_THROW(validate(TableView{nullptr, nullptr, 0}, ok));  // an empty table needs no columns
  EXPECT_NO_THROW(validate(ok, TableView{column, column, 0}));
  EXPECT_THROW(validate(ok, TableView{column, column, kMaxRowsPerTable + 1}), std::invalid_argument);
  EXPECT_THROW(validate(TableView{nullptr, column, 1}, ok), std::invalid_argument);
  EXPECT_THROW(validate(ok, TableView{column, nullptr, 1}), std::invalid_argument);
  try {
    validate(ok, TableView{column, column, kMaxRowsPerTable + 1});
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("table S has"), std::string::npos) << e.what();
  }
}

TEST(PkPkValidate, AnEmptyTableJoinsToNoRowsWithoutTouchingTheDevice) {
  static const std::uint32_t column[2] = {3, 4};  // device pointers in real use; never read here
  const TableView two{column, column, 2}, empty{nullptr, nullptr, 0};
  // Size 0, as the issue asks: the same (empty) answer as the CPU joins.
  EXPECT_TRUE(reference_join({}, {}, {3, 4}, {0, 0}).empty());
  EXPECT_TRUE(cpu_join({3, 4}, {0, 0}, {}, {}).empty());
  for (const auto& [r, s] : {std::pair{two, empty}, std::pair{empty, two}, std::pair{empty, empty}}) {
    EXPECT_EQ(bsp_join(r, s, nullptr).size, 0u);
    EXPECT_EQ(sort_join(r, s, nullptr).size, 0u);
    EXPECT_EQ(hash_join(r, s, nullptr).size, 0u);
    EXPECT_EQ(hmap_sort_join(r, s, 10, nullptr).size, 0u);
    EXPECT_TRUE(bsp_join(r, s, nullptr).to_host(nullptr).empty());
  }
}

TEST(PkPkCrystal, AnEmptyTableJoinsToZeroWithoutTouchingTheDevice) {
  static const std::uint32_t column[2] = {3, 4};  // device pointers in real use; never read here
  const TableView two{column, column, 2}, empty{nullptr, nullptr, 0};
  for (const auto& [r, s] : {std::pair{two, empty}, std::pair{empty, two}, std::pair{empty, empty}}) {
    EXPECT_EQ(crystal_join(r, s, KeyRange{3, 4}, nullptr).read(nullptr), 0u);
    EXPECT_EQ(crystal_join_rows(r, s, KeyRange{3, 4}, nullptr).size, 0u);
  }
}

TEST(PkPkCrystal, TheTableTakesOneSlotPerKeyOfRsRange) {
  EXPECT_EQ(key_range({7, 3, 9, 5}).min, 3u);
  EXPECT_EQ(key_range({7, 3, 9, 5}).max, 9u);
  EXPECT_EQ(key_range({7, 3, 9, 5}).keys(), 7u);
  EXPECT_EQ(key_range({42}).keys(), 1u);
  EXPECT_EQ((KeyRange{0, 0xffffffffu}.keys()), std::uint64_t{1} << 32);  // no 32-bit wrap
}

TEST(PkPkCrystal, ItsPremiseHoldsUpToTwoToTheThirtyOneMinusOneSlots) {
  EXPECT_EQ(crystal_premise_violation({0, 99999999}), "");  // the report's key mod 10^8
  EXPECT_EQ(crystal_premise_violation({5, 5 + static_cast<std::uint32_t>(kCrystalMaxSlots) - 1}), "");
  const std::string why = crystal_premise_violation({5, 5 + static_cast<std::uint32_t>(kCrystalMaxSlots)});
  EXPECT_NE(why.find("2^31 - 1 slots"), std::string::npos) << why;
  EXPECT_NE(crystal_premise_violation({0, 0xfffffffeu}), "");  // the key domain sweep's largest
  EXPECT_NE(crystal_premise_violation({9, 8}), "");            // an empty range
}

TEST(PkPkCrystal, ARangeBeyondItsPremiseIsRefusedBeforeTouchingTheDevice) {
  static const std::uint32_t column[1] = {0};  // never read: the premise is checked first
  const TableView one{column, column, 1};
  EXPECT_THROW(crystal_join(one, one, KeyRange{0, 0xfffffffeu}, nullptr), std::invalid_argument);
  EXPECT_THROW(crystal_join_rows(one, one, KeyRange{0, 0xfffffffeu}, nullptr), std::invalid_argument);
}

TEST(PkPkCrystal, ItsAnswerIsTheSumOfValue1TimesValue2Mod2To64) {
  EXPECT_EQ(crystal_sum({}), 0u);
  EXPECT_EQ(crystal_sum({{1, 2, 3}, {5, 10, 20}}), 206u);
  const std::uint64_t big = std::uint64_t{0xffffffffu} * 0xffffffffu;  // a product needs 64 bits
  EXPECT_EQ(crystal_sum({{1, 0xffffffffu, 0xffffffffu}, {2, 0xffffffffu, 0xffffffffu}}), big + big);  // wraps
}

TEST(PkPkValidate, BspJoinRejectsMoreRowsThanItsSortTakesBeforeTouchingTheDevice) {
  static const std::uint32_t column[1] = {0};  // never read: the size check comes first
  const TableView half{column, column, kMaxBspRows / 2 + 1};
  try {
    bsp_join(half, half, nullptr);
    FAIL() << "accepted " << 2 * half.rows << " rows";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("|R| + |S|"), std::string::npos) << e.what();
  }
}

TEST(PkPkValidate, HmapSortJoinRejectsABadKeyDomainBeforeTouchingTheDevice) {
  static const std::uint32_t column[1] = {0};
  const TableView one{column, column, 1};
  EXPECT_THROW(hmap_sort_join(one, one, 0, nullptr), std::invalid_argument);
  EXPECT_THROW(hmap_sort_join(one, one, (std::uint64_t{1} << 32) + 1, nullptr), std::invalid_argument);
}

TEST(PkPkHostJoins, ParallelCpuJoinMatchesTheReference) {
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  std::vector<std::uint32_t> r, s;
  gen::generate_pkpk_host({20000, 30000, 100000000, 0.4}, seed, r, s);
  const auto rv = gen::generate_values_host<std::uint32_t>(seed, 0, 1000000, r.size());
  const auto sv = gen::generate_values_host<std::uint32_t>(seed + 1, 0, 1000000, s.size());
  const auto want = reference_join(r, rv, s, sv);
  EXPECT_EQ(want.size(), 12000u);
  EXPECT_TRUE(std::is_sorted(want.begin(), want.end()));
  auto got = cpu_join(r, rv, s, sv, 2);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, want);
}

// The sort-merge join equals the reference at every match rate, on one thread or many (more
// threads than rows too), for empty tables, and refuses a repeated key in either table.
TEST(PkPkHostJoins, SortMergeJoinEqualsTheReference) {
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  for (double match_rate : {0.0, 0.5, 1.0})
    for (std::uint64_t rows : {std::uint64_t{3}, std::uint64_t{100003}}) {
      std::vector<std::uint32_t> r, s;
      gen::generate_pkpk_host({rows + 7, rows, 4 * rows + 20, match_rate}, seed, r, s);
      const auto rv = gen::generate_values_host<std::uint32_t>(seed, 0, 0xfffffffeu, r.size());
      const auto sv = gen::generate_values_host<std::uint32_t>(seed + 1, 0, 0xfffffffeu, s.size());
      const auto want = reference_join(r, rv, s, sv);
      for (unsigned threads : {1u, 5u, 16u})
        EXPECT_EQ(sort_merge_join(r, rv, s, sv, threads), want) << rows << " rows, match rate " << match_rate;
    }
  EXPECT_TRUE(sort_merge_join({}, {}, {1, 2}, {3, 4}).empty());
  EXPECT_THROW(sort_merge_join({5, 1, 5}, {0, 0, 0}, {1}, {0}), std::invalid_argument);
  EXPECT_THROW(sort_merge_join({1}, {0}, {2, 2}, {0, 0}), std::invalid_argument);
  EXPECT_THROW(sort_merge_join({1, 2}, {0}, {1}, {0}), std::invalid_argument);  // 2 keys, 1 value
}

// The checks' answer: the reference up to 2^20 rows per table, the sort-merge join (with a note
// saying so) above; equal either way.
TEST(PkPkHostJoins, OracleJoinIsTheReferenceBelowTheThresholdAndEqualToItAbove) {
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  for (std::uint64_t rows : {std::uint64_t{5000}, cpu::kOracleReferenceRows + 1000}) {
    std::vector<std::uint32_t> r, s;
    gen::generate_pkpk_host({rows, rows, 4 * rows, 0.5}, seed, r, s);
    const auto rv = gen::generate_values_host<std::uint32_t>(seed, 0, 1000000, r.size());
    const auto sv = gen::generate_values_host<std::uint32_t>(seed + 1, 0, 1000000, s.size());
    std::string note = "stale";
    const auto got = oracle_join(r, rv, s, sv, &note);
    EXPECT_EQ(got, reference_join(r, rv, s, sv)) << rows << " rows";
    EXPECT_EQ(note.empty(), rows <= cpu::kOracleReferenceRows) << note;
  }
}

TEST(PkPkHostJoins, ReferenceRejectsARepeatedKey) {
  EXPECT_THROW(reference_join({1, 1}, {0, 0}, {1}, {0}), std::invalid_argument);
}

}  // namespace
}  // namespace hashlab::pkpk
