// MP-EGA against the CPU reference: many tiles under a small budget, CPU tiles, partitions that
// overflow a stream's buffers (feedback load, the CPU taking the rest), the ablation switches,
// skew, and the errors on bad input.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "hashlab/common/generator.hpp"
#include "hashlab/ega/mp_ega.hpp"
#include "hashlab/reference/groupby.hpp"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab::ega {
namespace {

using testing::GpuTest;

// A budget that gives each of `streams` streams buffers of about `rows` rows.
std::size_t budget_for_rows(std::size_t rows, int streams) { return streams * ((256u << 10) + 32 * rows + 1024); }

class MpEgaTest : public GpuTest {
 protected:
  MergeCopy copy_ = MergeCopy::kGpuGather;  // how merged partitions reach the GPU
  std::string check(const MpEgaConfig& config, const std::vector<std::uint32_t>& keys,
                    const std::vector<std::uint32_t>& values, Aggregation op, MpEgaStats* stats = nullptr) {
    MpEga mp(config, keys.size());
    const auto& groups = mp.run(keys.data(), values.data(), keys.size(), op);
    if (stats != nullptr) *stats = mp.stats();
    return reference::compare(reference::groupby(keys, values, op), groups.to_reference(op));
  }
  MpEgaConfig small_config(int streams = 2) {
    MpEgaConfig c;
    c.streams = streams;
    c.gpu_memory_budget = budget_for_rows(8192, streams);
    c.merge_copy = copy_;
    return c;
  }
};

// The tests of the data paths, once with each MergeCopy: the paper's host copy, our gather, both
// at once, and the T copies per partition the paper rejects.
class MpEgaCopyTest : public MpEgaTest, public ::testing::WithParamInterface<MergeCopy> {
 protected:
  void SetUp() override {
    MpEgaTest::SetUp();
    copy_ = GetParam();
  }
};

std::vector<std::uint32_t> values_for(std::size_t n, std::uint64_t seed) {
  return gen::generate_values_host<std::uint32_t>(seed, 0, 1000000, n);
}

TEST_P(MpEgaCopyTest, ManyTilesEveryAggregation) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const std::size_t n = 200000;
  const auto keys = gen::generate_keys_host(gen::KeySpec::uniform(20000), seed, n);
  const auto values = values_for(n, seed);
  for (Aggregation op : {Aggregation::kSum, Aggregation::kCount, Aggregation::kMin, Aggregation::kMax}) {
    MpEgaStats stats;
    EXPECT_EQ(check(small_config(), keys, values, op, &stats), "") << reference::to_string(op);
    EXPECT_GT(stats.tiles, 10u);
    EXPECT_EQ(stats.gpu_tiles, stats.tiles);
    EXPECT_GE(stats.partitions, stats.merged_partitions);
    if (copy_ == MergeCopy::kHost) EXPECT_EQ(stats.gathered_partitions, 0u);
    if (!copies_merged_partitions(copy_)) EXPECT_EQ(stats.gathered_partitions, stats.merged_partitions);
    EXPECT_LE(stats.gathered_partitions, stats.merged_partitions);
  }
}

TEST_P(MpEgaCopyTest, CpuTilesAndGpuTilesTogether) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const std::size_t n = 300000;
  const auto keys = gen::generate_keys_host(gen::KeySpec::uniform(5000), seed, n);
  const auto values = values_for(n, seed);
  auto config = small_config();
  config.cpu_tile_threads = 2;
  MpEgaStats stats;
  EXPECT_EQ(check(config, keys, values, Aggregation::kSum, &stats), "");
  EXPECT_EQ(stats.gpu_tiles + stats.cpu_tiles, stats.tiles);
}

TEST_P(MpEgaCopyTest, OversizePartitionsUseTheFeedbackLoadAndTheCpu) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const std::size_t n = 200000;
  const auto keys = gen::generate_keys_host(gen::KeySpec::uniform(60000), seed, n);
  const auto values = values_for(n, seed);
  auto config = small_config();
  config.fixed_partitions = 2;  // ~30000 groups per partition, buffers of ~8192 rows
  MpEgaStats stats;
  EXPECT_EQ(check(config, keys, values, Aggregation::kSum, &stats), "");
  EXPECT_GT(stats.oversize_partitions, 0u);
  EXPECT_GT(stats.feedback_rounds, 0u);
  EXPECT_GT(stats.cpu_rows, 0u) << "the table filled up; the CPU took the rest";
}

TEST_P(MpEgaCopyTest, FeedbackLoadFinishesOnTheGpuWhenTheGroupsFit) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const std::size_t n = 200000;
  const auto keys = gen::generate_keys_host(gen::KeySpec::uniform(3000), seed, n);
  const auto values = values_for(n, seed);
  auto config = small_config();
  config.fixed_partitions = 1;
  config.cpu_tile_threads = 1;  // CPU tiles do not pre-aggregate: the partition is large
  MpEgaStats stats;
  EXPECT_EQ(check(config, keys, values, Aggregation::kMax, &stats), "");
  if (stats.cpu_tiles > 0) {
    EXPECT_GT(stats.oversize_partitions, 0u);
    EXPECT_EQ(stats.cpu_rows, 0u) << "3000 groups fit the table: no row should go to the CPU";
  }
}

TEST_P(MpEgaCopyTest, OversizeOnTheCpuMergeOffAndSkew) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const std::size_t n = 150000;
  const auto keys = gen::generate_keys_host(gen::KeySpec::zipf(100000, 1.1), seed, n);
  const auto values = values_for(n, seed);
  auto config = small_config(3);
  config.oversize = OversizeMode::kCpu;
  config.merge_small_partitions = false;
  config.fixed_partitions = 3;
  EXPECT_EQ(check(config, keys, values, Aggregation::kSum), "");
  config.fixed_partitions = 0;
  config.streams = 1;
  config.gpu_memory_budget = budget_for_rows(8192, 1);
  EXPECT_EQ(check(config, keys, values, Aggregation::kCount), "");
}

// The CPU merge (MergeCopy::kHost) runs beside the processing: one merge thread feeding four
// stream workers (each waits for its merged partition), and the phase times add up to the total.
TEST_F(MpEgaTest, OneMergeThreadFeedsFourStreams) {
  copy_ = MergeCopy::kHost;
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const std::size_t n = 200000;
  const auto keys = gen::generate_keys_host(gen::KeySpec::uniform(50000), seed, n);
  const auto values = values_for(n, seed);
  for (bool merge : {true, false}) {
    auto config = small_config(4);
    config.host_threads = 1;
    config.merge_small_partitions = merge;
    MpEgaStats stats;
    EXPECT_EQ(check(config, keys, values, Aggregation::kSum, &stats), "") << "merge " << merge;
    EXPECT_GT(stats.merged_partitions, 4u);
    EXPECT_GE(stats.merge_ms, 0.0);
    EXPECT_GE(stats.process_ms, 0.0);
    EXPECT_LE(stats.generate_ms + stats.merge_ms + stats.process_ms, stats.total_ms + 1.0);
  }
}

INSTANTIATE_TEST_SUITE_P(MergeCopies, MpEgaCopyTest,
                         ::testing::Values(MergeCopy::kHost, MergeCopy::kGpuGather, MergeCopy::kHostAndGather,
                                           MergeCopy::kPieceCopies),
                         [](const ::testing::TestParamInfo<MergeCopy>& info) { return to_string(info.param); });

// The gather over many small pieces: tiny tiles, many partitions, every
// load reads pieces of many tiles; and loads that start inside a piece (feedback rounds of a
// partition larger than L).
TEST_P(MpEgaCopyTest, PiecesOfEveryTile) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const std::size_t n = 400000;
  const auto keys = gen::generate_keys_host(gen::KeySpec::uniform(150000), seed, n);
  const auto values = values_for(n, seed);
  for (std::size_t partitions : {0u, 1u, 3u, 64u}) {
    auto config = small_config(2);
    config.fixed_partitions = partitions;
    MpEgaStats stats;
    EXPECT_EQ(check(config, keys, values, Aggregation::kSum, &stats), "") << partitions << " partitions";
    EXPECT_GT(stats.tiles, 40u);
    if (partitions == 1) {  // 150000 groups in one partition: rounds, then the CPU from mid-piece
      EXPECT_GT(stats.feedback_rounds, 0u);
      EXPECT_GT(stats.cpu_rows, 0u);
    }
  }
}

// 4.2.2: partitions of about 0.9 L groups. The feedback load sends at least alpha_min L pairs in
// every round that leaves rows behind, and calls the table full beyond alpha_max L (the CPU takes
// the rest); loading only the free slots (the ablation) keeps everything on the GPU with rounds
// that shrink to about 0.1 L.
TEST_F(MpEgaTest, FeedbackRoundsKeepAlphaMinWhereFreeSpaceShrinks) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const std::size_t n = 200000;
  auto config = small_config();
  config.fixed_partitions = 4;
  const std::size_t L = MpEga::tile_rows_for(config.gpu_memory_budget, config.streams);
  const auto keys = gen::generate_keys_host(gen::KeySpec::uniform(static_cast<std::uint64_t>(0.9 * 4 * L)), seed, n);
  const auto values = values_for(n, seed);
  const auto least = static_cast<std::size_t>(config.alpha_min * static_cast<double>(L));
  MpEgaStats alpha, free_space;
  EXPECT_EQ(check(config, keys, values, Aggregation::kSum, &alpha), "");
  config.oversize = OversizeMode::kFreeSpaceLoad;
  EXPECT_EQ(check(config, keys, values, Aggregation::kSum, &free_space), "");
  for (const MpEgaStats* st : {&alpha, &free_space}) {
    EXPECT_EQ(st->oversize_partitions, 4u);
    EXPECT_GT(st->feedback_rounds, 4u);
    EXPECT_GT(st->feedback_min_round_rows, 0u);
  }
  EXPECT_GE(alpha.feedback_min_round_rows, least) << "a round that leaves rows loads at least alpha_min L pairs";
  EXPECT_GT(alpha.full_partitions, 0u) << "0.9 L groups exceed alpha_max L";
  EXPECT_GT(alpha.cpu_rows, 0u);
  EXPECT_LT(free_space.feedback_min_round_rows, least) << "the free slots shrink below alpha_min L";
  EXPECT_EQ(free_space.full_partitions, 0u) << "0.9 L groups fit L slots";
  EXPECT_EQ(free_space.cpu_rows, 0u);
  EXPECT_GT(free_space.feedback_rounds, alpha.feedback_rounds);
}

// Theorem 1's simulation (4.2.1): the GPU's trials agree with the host's, and it rejects more
// bins than its per-thread counters hold.
TEST_F(MpEgaTest, Theorem1SimulationMatchesTheHost) {
  testing::LazyStream stream;
  const std::uint64_t n = 100003;
  const std::uint32_t bins = 7;
  const auto largest = theorem1_largest_bins(n, bins, 20, 3, stream);
  ASSERT_EQ(largest.size(), 20u);
  for (std::uint32_t t = 0; t < 20; ++t) {
    EXPECT_EQ(largest[t], theorem1_largest_bin_on_host(n, bins, 3 + t)) << "trial " << 3 + t;
    EXPECT_GE(largest[t], (n + bins - 1) / bins);
  }
  EXPECT_NE(largest[0], largest[1]) << "each trial has its own seed (equal maxima are possible but unlikely)";
  EXPECT_THROW(theorem1_largest_bins(n, kMaxSimulatedPartitions + 1, 1, 0, stream), std::invalid_argument);
  EXPECT_THROW(theorem1_largest_bins(n, 0, 1, 0, stream), std::invalid_argument);
}

TEST_F(MpEgaTest, EmptyAndTinyInputs) {
  for (std::size_t n : {0u, 1u, 5u}) {
    const auto keys = gen::generate_keys_host(gen::KeySpec::unique(), 9, n);
    const auto values = values_for(n, 9);
    EXPECT_EQ(check(small_config(), keys, values, Aggregation::kSum), "") << "n=" << n;
  }
}

TEST_F(MpEgaTest, RejectsTheEmptyKey) {
  std::vector<std::uint32_t> keys(20000, 3);
  keys[12345] = kEmptyKey;
  const std::vector<std::uint32_t> values(keys.size(), 1);
  MpEga gpu_only(small_config(), keys.size());
  EXPECT_THROW(gpu_only.run(keys.data(), values.data(), keys.size(), Aggregation::kSum), std::invalid_argument);
  auto config = small_config(1);
  config.gpu_memory_budget = budget_for_rows(8192, 1);
  config.cpu_tile_threads = 2;
  MpEga with_cpu(config, keys.size());
  EXPECT_THROW(with_cpu.run(keys.data(), values.data(), keys.size(), Aggregation::kSum), std::invalid_argument);
}

TEST_F(MpEgaTest, RejectsABudgetTooSmallForOneTileOrLargerThanTheGpu) {
  MpEgaConfig config;
  config.gpu_memory_budget = budget_for_rows(1000, config.streams);  // tiles of 4096 rows at least
  EXPECT_THROW(MpEga(config, 1000000), std::invalid_argument);
  config.gpu_memory_budget = std::size_t{1} << 50;
  EXPECT_THROW(MpEga(config, 1000000), std::invalid_argument);
}

TEST(MpEgaConfig, ValidatesItsFields) {
  MpEgaConfig c;
  EXPECT_NO_THROW(c.validate());
  c.streams = 0;
  EXPECT_THROW(c.validate(), std::invalid_argument);
  c = {};
  c.alpha_min = 0.5;
  c.alpha_max = 0.4;
  EXPECT_THROW(c.validate(), std::invalid_argument);
  c = {};
  c.alpha_max = 1.0;
  EXPECT_THROW(c.validate(), std::invalid_argument);
  c = {};
  c.alpha_min = 0.6;
  c.alpha_max = 0.7;  // 0.6 > 1 - 0.7
  EXPECT_THROW(c.validate(), std::invalid_argument);
  c = {};
  c.failure_probability = 0;
  EXPECT_THROW(c.validate(), std::invalid_argument);
}

TEST(MpEgaConfig, ParsesByteCounts) {
  EXPECT_EQ(parse_bytes("2GiB"), 2ull << 30);
  EXPECT_EQ(parse_bytes("512MiB"), 512ull << 20);
  EXPECT_EQ(parse_bytes("100MB"), 100000000ull);
  EXPECT_EQ(parse_bytes("4096"), 4096ull);
  EXPECT_EQ(parse_bytes("auto"), 0ull);
  EXPECT_THROW(parse_bytes("lots"), std::invalid_argument);
  EXPECT_THROW(parse_bytes("2XB"), std::invalid_argument);
  EXPECT_THROW(parse_bytes("-1GiB"), std::invalid_argument);
}

TEST(MpEgaConfig, TileRowsFollowTheBudget) {
  EXPECT_EQ(MpEga::tile_rows_for(1u << 20, 4), 0u);
  EXPECT_EQ(MpEga::tile_rows_for(budget_for_rows(8192, 2), 2), 8192u + 32);
  EXPECT_GT(MpEga::tile_rows_for(8ull << 30, 4), 60000000u);
}

}  // namespace
}  // namespace hashlab::ega
