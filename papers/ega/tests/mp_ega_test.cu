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

// The tests of the data paths, once with each MergeCopy: the paper's host copy, our gather, and
// both at once.
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
    if (copy_ == MergeCopy::kGpuGather) EXPECT_EQ(stats.gathered_partitions, stats.merged_partitions);
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
                         ::testing::Values(MergeCopy::kHost, MergeCopy::kGpuGather, MergeCopy::kHostAndGather),
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
