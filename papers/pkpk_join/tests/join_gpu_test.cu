// The BSP join and its comparators against the CPU reference join (GPU tests).
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "hashlab/common/generator.hpp"
#include "hashlab/pkpk_join/pkpk_join.hpp"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab::pkpk {
namespace {

using Keys = std::vector<std::uint32_t>;

/// The names of marked steps, in the order they ran.
std::vector<std::string> step_names(const std::vector<PhaseTime>& steps) {
  std::vector<std::string> names;
  for (const auto& step : steps) names.push_back(step.name);
  return names;
}

/// Values that identify their row and table, so a value from the wrong row shows.
Keys values_for(std::size_t rows, std::uint32_t table) {
  Keys v(rows);
  for (std::size_t i = 0; i < rows; ++i) v[i] = static_cast<std::uint32_t>(i * 2 + table) ^ 0x5a5a5a5au;
  return v;
}

class PkPkJoin : public testing::GpuTest {
 protected:
  // Declared before any buffer: buffers free on this stream, so they must go first.
  testing::LazyStream stream;

  struct Tables {
    Keys r_keys, s_keys, r_values, s_values;
    DeviceBuffer<std::uint32_t> dr_keys, ds_keys, dr_values, ds_values;
    TableView r() const { return {dr_keys.data(), dr_values.data(), r_keys.size()}; }
    TableView s() const { return {ds_keys.data(), ds_values.data(), s_keys.size()}; }
  };

  Tables upload(Keys r, Keys s) {
    Tables t;
    t.r_keys = std::move(r);
    t.s_keys = std::move(s);
    t.r_values = values_for(t.r_keys.size(), 0);
    t.s_values = values_for(t.s_keys.size(), 1);
    t.dr_keys = to_device(t.r_keys, stream);
    t.ds_keys = to_device(t.s_keys, stream);
    t.dr_values = to_device(t.r_values, stream);
    t.ds_values = to_device(t.s_values, stream);
    return t;
  }

  Tables generated(std::uint64_t r_rows, std::uint64_t s_rows, double match_rate, std::uint64_t seed,
                   std::uint64_t domain = 100000000) {
    gen::PkPkSpec spec{r_rows, s_rows, domain, match_rate};
    Keys r, s;
    gen::generate_pkpk_host(spec, seed, r, s);
    return upload(std::move(r), std::move(s));
  }

  std::vector<JoinedRow> expected(const Tables& t) const {
    return reference_join(t.r_keys, t.r_values, t.s_keys, t.s_values);
  }

  /// The traced arrays of one BSP join of `t` with `p` buckets (0: the default).
  BspTrace traced(const Tables& t, std::uint32_t p = 0) {
    BspOptions options;
    options.partitions = p;
    BspTrace trace;
    trace.capture_arrays = true;
    bsp_join(t.r(), t.s(), stream, options, &trace);
    return trace;
  }

  /// BSP (both tile shapes), full sort and hash join all give the reference's rows.
  void expect_all_joins_match(const Tables& t, const BspOptions& options = {}) {
    const auto want = expected(t);
    EXPECT_EQ(bsp_join(t.r(), t.s(), stream, options).to_host(stream), want) << "bsp_join";
    BspOptions atomic = options;
    atomic.atomic_scatter = true;
    EXPECT_EQ(bsp_join(t.r(), t.s(), stream, atomic).to_host(stream), want) << "bsp_join, atomic scatter";
    EXPECT_EQ(sort_join(t.r(), t.s(), stream).to_host(stream), want) << "sort_join";
    auto hashed = hash_join(t.r(), t.s(), stream).to_host(stream);
    std::sort(hashed.begin(), hashed.end());
    EXPECT_EQ(hashed, want) << "hash_join";
  }
};

TEST_F(PkPkJoin, OneRowEachMatchingAndNot) {
  expect_all_joins_match(upload({42}, {42}));
  expect_all_joins_match(upload({42}, {43}));
}

TEST_F(PkPkJoin, OddSizesAcrossTileBoundaries) {
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  for (auto [nr, ns] : {std::pair<std::uint64_t, std::uint64_t>{3, 5}, {4095, 1}, {4097, 4095}, {12345, 6789}}) {
    SCOPED_TRACE("|R|=" + std::to_string(nr) + " |S|=" + std::to_string(ns));
    expect_all_joins_match(generated(nr, ns, 0.5 * static_cast<double>(std::min(nr, ns)) / ns, seed + nr));
  }
}

TEST_F(PkPkJoin, AllMatchingAndNoneMatching) {
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  expect_all_joins_match(generated(100000, 100000, 1.0, seed));
  expect_all_joins_match(generated(100000, 100000, 0.0, seed + 1));
}

TEST_F(PkPkJoin, ReportSizeOneMillionEach) {
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const auto t = generated(1000000, 1000000, 0.01, seed);
  const auto got = bsp_join(t.r(), t.s(), stream).to_host(stream);
  EXPECT_EQ(got.size(), 10000u);
  EXPECT_EQ(got, expected(t));
}

TEST_F(PkPkJoin, NarrowKeyRangeWhereSplittersCollide) {
  // R = 0..19999 shuffled, S = 10000..29999: every sample comes from 30000 keys, so many of the
  // p - 1 splitters repeat and buckets between equal splitters stay empty.
  Keys r(20000), s(20000);
  std::iota(r.begin(), r.end(), 0u);
  std::iota(s.begin(), s.end(), 10000u);
  std::mt19937 rng(static_cast<unsigned>(testing::test_seed()));
  std::shuffle(r.begin(), r.end(), rng);
  std::shuffle(s.begin(), s.end(), rng);
  const auto t = upload(r, s);
  BspOptions many;
  many.partitions = 4096;  // far more buckets than distinct keys per sample
  expect_all_joins_match(t, many);
  BspTrace trace;
  EXPECT_EQ(bsp_join(t.r(), t.s(), stream, many, &trace).size, 10000u);
  EXPECT_EQ(std::accumulate(trace.bucket_sizes.begin(), trace.bucket_sizes.end(), std::uint64_t{0}), 40000u);
}

TEST_F(PkPkJoin, KeysEqualToThePaddingAndSentinelValues) {
  // 0xffffffff is the key field of the tail padding; the BSP and sort joins must still join it
  // (the hash join cannot hold it: it is the table's empty sentinel, so it is not asked here).
  // S's 0xffffffff comes last, so it shares the tail tile with the padding (whose sort bits it
  // equals) for both tile shapes: 9 elements, teaching tiles of 4.
  const auto t = upload({0xffffffffu, 7, 0xfffffffeu, 0}, {0, 0xfffffffeu, 9, 11, 0xffffffffu});
  const auto want = expected(t);
  ASSERT_EQ(want.size(), 3u);
  EXPECT_EQ(bsp_join(t.r(), t.s(), stream).to_host(stream), want);
  BspOptions teaching;
  teaching.tile = TileShape::kTeaching;
  EXPECT_EQ(bsp_join(t.r(), t.s(), stream, teaching).to_host(stream), want);
  EXPECT_EQ(sort_join(t.r(), t.s(), stream).to_host(stream), want);
}

TEST_F(PkPkJoin, TeachingTileAtEverySmallSize) {
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  BspOptions teaching;
  teaching.tile = TileShape::kTeaching;
  for (std::uint64_t nr = 1; nr <= 9; ++nr)
    for (std::uint64_t ns = 1; ns <= 9; ns += 2) {
      SCOPED_TRACE("|R|=" + std::to_string(nr) + " |S|=" + std::to_string(ns));
      const auto t = generated(nr, ns, static_cast<double>(std::min(nr, ns) / 2) / ns, seed + nr * 10 + ns, 64);
      EXPECT_EQ(bsp_join(t.r(), t.s(), stream, teaching).to_host(stream), expected(t));
      BspOptions atomic = teaching;
      atomic.atomic_scatter = true;
      EXPECT_EQ(bsp_join(t.r(), t.s(), stream, atomic).to_host(stream), expected(t)) << "atomic scatter";
    }
}

// Sample sort's balance: with p <= tiles, each bucket spans k = tiles x log2(p) / p >= log2(p)
// consecutive samples, so its size is about mean x Gamma(k) / k; the largest of p buckets stays
// near 2.4x the mean at the report's p = 489 (k = 9), and beyond 4x with a probability of about
// 1e-5. Equal splitters, splitters from the wrong samples or samples that are not random put
// most keys in one bucket (max / mean near p).
constexpr double kMaxBucketSkew = 4.0;

TEST_F(PkPkJoin, EveryPartitionCountGivesTheSameRows) {
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const auto t = generated(60000, 50000, 0.7, seed);
  const auto want = expected(t);
  for (std::uint32_t p : {1u, 2u, 7u, 27u, 30u, 1000u, kMaxPartitions}) {
    SCOPED_TRACE("p=" + std::to_string(p));
    BspOptions options;
    options.partitions = p;
    BspTrace trace;
    EXPECT_EQ(bsp_join(t.r(), t.s(), stream, options, &trace).to_host(stream), want);
    EXPECT_EQ(trace.partitions, p);
    EXPECT_EQ(trace.bucket_sizes.size(), p);
    EXPECT_EQ(std::accumulate(trace.bucket_sizes.begin(), trace.bucket_sizes.end(), std::uint64_t{0}), 110000u);
    // Balance holds while there are at least log2(p) samples per bucket (p <= 27 tiles here);
    // beyond, the samples are fewer than the buckets and many splitters repeat.
    if (p <= trace.tiles)
      EXPECT_LE(static_cast<double>(trace.max_bucket), kMaxBucketSkew * trace.mean_bucket)
          << "largest bucket " << trace.max_bucket << ", mean " << trace.mean_bucket;
  }
}

TEST_F(PkPkJoin, BucketsStayWithinFourTimesTheMeanAtTheReportsSize) {
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const auto t = generated(1000000, 1000000, 0.01, seed);  // the report's 1M x 1M, key mod 10^8
  BspTrace trace;
  bsp_join(t.r(), t.s(), stream, {}, &trace);
  ASSERT_EQ(trace.partitions, 489u);  // p = tiles, the report's choice
  EXPECT_NEAR(trace.mean_bucket, 2000000.0 / 489, 1e-6);
  EXPECT_LE(static_cast<double>(trace.max_bucket), kMaxBucketSkew * trace.mean_bucket)
      << "largest bucket " << trace.max_bucket << " (measured on the H100: 9,784 = 2.39x the mean)";
  // Most buckets near the mean: at least half within [mean / 2, 2 x mean].
  const auto near = std::count_if(trace.bucket_sizes.begin(), trace.bucket_sizes.end(), [&](std::uint64_t b) {
    return b >= trace.mean_bucket / 2 && b <= 2 * trace.mean_bucket;
  });
  EXPECT_GE(near, 489 / 2);
}

TEST_F(PkPkJoin, SplittersAreTheEquiSpacedSortedSamples) {
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const auto t = generated(60000, 50000, 0.5, seed);  // 27 tiles
  for (std::uint32_t p : {2u, 7u, 27u, 100u}) {
    SCOPED_TRACE("p=" + std::to_string(p));
    const auto trace = traced(t, p);
    auto samples = trace.samples;
    std::sort(samples.begin(), samples.end());
    ASSERT_EQ(trace.sorted_samples, samples);
    const std::size_t num_samples = samples.size();
    ASSERT_EQ(trace.splitters.size(), p - 1);
    for (std::size_t i = 0; i + 1 < p; ++i)  // the report's d_samples[(tid + 1) * sample_size / p]
      ASSERT_EQ(trace.splitters[i], samples[(i + 1) * num_samples / p]) << "splitter " << i;
  }
}

TEST_F(PkPkJoin, SplittersAreDistinctOnDistinctRandomKeys) {
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  // 200,000 keys of 10^8, each in both tables at most once: two splitters k >= 6 samples apart
  // are equal only if one key were drawn k + 1 times, which random draws from 4096-element tiles
  // practically never do.
  const auto t = generated(100000, 100000, 0.01, seed);
  for (std::uint32_t p : {0u, 8u, 49u}) {
    SCOPED_TRACE("p=" + std::to_string(p));
    const auto trace = traced(t, p);
    ASSERT_EQ(trace.splitters.size(), trace.partitions - 1);
    EXPECT_EQ(std::adjacent_find(trace.splitters.begin(), trace.splitters.end(), std::greater_equal<>()),
              trace.splitters.end())
        << "the splitters are not strictly increasing";
  }
}

TEST_F(PkPkJoin, SamplesPerTileAreLog2OfPAndComeFromTheirTile) {
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const auto t = generated(100000, 100000, 0.5, seed);  // 49 tiles of 4096
  const std::size_t n = 200000, tile = tile_items(TileShape::kStandard);
  for (const auto& [p, per_tile] : {std::pair<std::uint32_t, std::uint32_t>{2, 1}, {5, 3}, {49, 6}, {1000, 10}}) {
    SCOPED_TRACE("p=" + std::to_string(p));
    const auto trace = traced(t, p);
    ASSERT_EQ(trace.tiles, 49u);
    EXPECT_EQ(trace.samples_per_tile, per_tile);
    ASSERT_EQ(trace.samples.size(), trace.tiles * per_tile);
    for (std::size_t i = 0; i < trace.samples.size(); ++i) {  // sample i is a key of tile i / per_tile
      const std::size_t begin = i / per_tile * tile, end = std::min(n, begin + tile);
      const bool in_tile =
          std::binary_search(trace.block_sorted.begin() + begin, trace.block_sorted.begin() + end,
                             pack(trace.samples[i], kTableR, 0),
                             [](std::uint64_t a, std::uint64_t b) { return key_of(a) < key_of(b); });
      ASSERT_TRUE(in_tile) << "sample " << i << " (key " << trace.samples[i] << ") is not in tile " << i / per_tile;
    }
  }
}

TEST_F(PkPkJoin, TracedArraysFollowTheReportsSteps) {
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const auto t = generated(9000, 7000, 0.5, seed);
  BspTrace trace;
  trace.capture_arrays = true;
  PhaseTimer phases;
  bsp_join(t.r(), t.s(), stream, {}, &trace, &phases);
  const std::size_t n = 16000, tile = tile_items(TileShape::kStandard);
  ASSERT_EQ(trace.tiles, 4u);
  ASSERT_EQ(trace.partitions, 4u);
  EXPECT_EQ(trace.samples.size(), trace.tiles * trace.samples_per_tile);
  EXPECT_EQ(trace.samples_per_tile, 2u);
  EXPECT_EQ(trace.splitters.size(), 3u);
  EXPECT_TRUE(std::is_sorted(trace.sorted_samples.begin(), trace.sorted_samples.end()));
  for (std::size_t b = 0; b < n; b += tile) {  // each tile sorted on (key, table)
    const auto end = trace.block_sorted.begin() + std::min(n, b + tile);
    EXPECT_TRUE(std::is_sorted(trace.block_sorted.begin() + b, end,
                               [](auto x, auto y) { return (x >> kSortBeginBit) < (y >> kSortBeginBit); }));
  }
  for (std::size_t i = 0; i < n; ++i) {  // bucket = number of splitters <= key
    const auto key = key_of(trace.block_sorted[i]);
    const auto want = std::upper_bound(trace.splitters.begin(), trace.splitters.end(), key) - trace.splitters.begin();
    ASSERT_EQ(trace.partition_ids[i], static_cast<std::uint32_t>(want)) << "element " << i;
  }
  EXPECT_TRUE(std::is_sorted(trace.sorted.begin(), trace.sorted.end(),
                             [](auto x, auto y) { return (x >> kSortBeginBit) < (y >> kSortBeginBit); }));
  auto a = trace.assigned, b = trace.sorted;  // the scatter is a permutation of the input
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  EXPECT_EQ(a, b);
  const auto steps = phases.results();
  EXPECT_EQ(step_names(steps), (std::vector<std::string>{"block_sort", "sample", "sort_samples", "splitters",
                                                         "partition_ids", "count_splits", "prefix_sum",
                                                         "segmented_prefix_sum", "assign", "bucket_sort", "join",
                                                         "compact_scan", "compact_write"}));
  for (const auto& k : steps) {  // each step's rate counts what the step processes
    EXPECT_GE(k.ms, 0.0) << k.name;
    if (k.name == "sample" || k.name == "sort_samples") {
      EXPECT_EQ(k.items, static_cast<double>(trace.samples.size())) << k.name;
      EXPECT_EQ(k.unit, "samples") << k.name;
    } else if (k.name == "splitters") {
      EXPECT_EQ(k.items, 3.0);
      EXPECT_EQ(k.unit, "splitters");
    } else if (k.name == "prefix_sum") {
      EXPECT_EQ(k.items, static_cast<double>(trace.counts.size()));
      EXPECT_EQ(k.unit, "counts");
    } else {
      EXPECT_EQ(k.items, static_cast<double>(n)) << k.name;
      EXPECT_EQ(k.unit, "rows") << k.name;
    }
  }
}

// The steps each comparator marks on a timer, in order, with their items: the names and rates
// of the profile's "kernel_<step>" rows. A join with a timer still gives the reference's rows.
TEST_F(PkPkJoin, EveryJoinMarksItsStepsOnATimer) {
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const auto t = generated(9000, 7000, 0.5, seed, 1000000);
  const auto want = expected(t);
  const double n = 16000;
  auto expect_steps = [&](const PhaseTimer& phases, const std::vector<std::string>& names,
                          const std::vector<double>& items) {
    const auto steps = phases.results();
    ASSERT_EQ(step_names(steps), names);
    for (std::size_t i = 0; i < steps.size(); ++i) {
      EXPECT_EQ(steps[i].items, items[i]) << steps[i].name;
      EXPECT_EQ(steps[i].unit, "rows") << steps[i].name;
      EXPECT_GE(steps[i].ms, 0.0) << steps[i].name;
    }
  };
  {
    BspOptions atomic;
    atomic.atomic_scatter = true;
    PhaseTimer phases;
    EXPECT_EQ(bsp_join(t.r(), t.s(), stream, atomic, nullptr, &phases).to_host(stream), want) << "bsp_join, atomic";
    const auto steps = phases.results();
    ASSERT_EQ(steps.size(), 12u);
    EXPECT_EQ(steps[7].name, "assign_atomic");
    EXPECT_EQ(steps[8].name, "bucket_sort");
  }
  {
    PhaseTimer phases;
    EXPECT_EQ(sort_join(t.r(), t.s(), stream, &phases).to_host(stream), want) << "sort_join";
    expect_steps(phases, {"pack", "device_radix_sort", "join", "compact_scan", "compact_write"}, {n, n, n, n, n});
  }
  {
    PhaseTimer phases;
    EXPECT_EQ(hmap_sort_join(t.r(), t.s(), 1000000, stream, &phases).to_host(stream), want) << "hmap_sort_join";
    expect_steps(phases, {"hmaps", "concat", "device_radix_sort", "join", "compact_scan", "compact_write"},
                 {n, n, n, n, n, n});
  }
  {
    PhaseTimer phases;
    auto rows = hash_join(t.r(), t.s(), stream, &phases).to_host(stream);
    std::sort(rows.begin(), rows.end());
    EXPECT_EQ(rows, want) << "hash_join";
    expect_steps(phases, {"build", "probe", "gather"}, {9000, 7000, static_cast<double>(want.size())});
  }
}

TEST_F(PkPkJoin, RepeatedKeyInOneTableIsRejectedByName) {
  const auto in_r = upload({5, 8, 5}, {8});
  try {
    bsp_join(in_r.r(), in_r.s(), stream);
    FAIL() << "a repeated key in R was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("key 5 appears more than once in R"), std::string::npos) << e.what();
  }
  const auto in_s = upload({1, 2}, {3, 77, 77});
  EXPECT_THROW(bsp_join(in_s.r(), in_s.s(), stream), std::invalid_argument);
  EXPECT_THROW(sort_join(in_s.r(), in_s.s(), stream), std::invalid_argument);
}

TEST_F(PkPkJoin, SizeZeroJoinsToNoRowsLikeTheCpuJoin) {
  expect_all_joins_match(upload({}, {4, 1, 9}));
  expect_all_joins_match(upload({4, 1, 9}, {}));
  expect_all_joins_match(upload({}, {}));
  const auto t = upload({4, 1, 9}, {});
  EXPECT_EQ(bsp_join(t.r(), t.s(), stream).size, 0u);
}

TEST_F(PkPkJoin, HmapSortJoinInTheReportsLayoutGivesTheSameRows) {
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  // Small key domains keep the key-indexed maps small (4 bytes per key of the domain).
  const auto t = generated(100000, 80000, 0.6, seed, 1000000);
  EXPECT_EQ(hmap_sort_join(t.r(), t.s(), 1000000, stream).to_host(stream), expected(t));
  const auto none = generated(5000, 7000, 0.0, seed + 1, 1000000);
  EXPECT_EQ(hmap_sort_join(none.r(), none.s(), 1000000, stream).size, 0u);
  const auto small = upload({0, 7, 3, 9}, {3, 9, 0, 5});
  EXPECT_EQ(hmap_sort_join(small.r(), small.s(), 10, stream).to_host(stream), expected(small));
  try {
    hmap_sort_join(small.r(), small.s(), 9, stream);  // key 9 lies outside [0, 9)
    FAIL() << "a key outside the domain was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("outside the key domain"), std::string::npos) << e.what();
  }
}

TEST_F(PkPkJoin, TooManyPartitionsAreRejected) {
  const auto t = upload({1, 2, 3}, {2});
  BspOptions too_many;
  too_many.partitions = kMaxPartitions + 1;
  EXPECT_THROW(bsp_join(t.r(), t.s(), stream, too_many), std::invalid_argument);
}

class PkPkJoinLarge : public PkPkJoin {};

TEST_F(PkPkJoinLarge, HundredMillionEachMatchesTheReference) {
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  // 150M distinct keys do not fit the report's domain of 10^8: use 10^9.
  const auto t = generated(100000000, 100000000, 0.5, seed, 1000000000);
  EXPECT_EQ(bsp_join(t.r(), t.s(), stream).to_host(stream), expected(t));
}

}  // namespace
}  // namespace hashlab::pkpk
