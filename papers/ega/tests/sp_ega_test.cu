// SP-EGA and LPHGA against the CPU reference: sizes from 0 up, every aggregation, all-distinct
// and single-group inputs, load factors up to 1, skewed keys, and the errors on bad input.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "hashlab/common/generator.hpp"
#include "hashlab/common/hash.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/ega/sp_ega.hpp"
#include "hashlab/reference/groupby.hpp"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab::ega {
namespace {

using testing::GpuTest;
using testing::LazyStream;

enum class Algo { kSpEga, kLphga };

class SpEgaTest : public GpuTest {
 protected:
  // Runs `algo` on buffers of `length` (0: n) and returns "" when it matches the reference.
  std::string check(Algo algo, const std::vector<std::uint32_t>& keys, const std::vector<std::uint32_t>& values,
                    Aggregation op, std::size_t length = 0) {
    const std::size_t n = keys.size();
    if (length == 0) length = n;
    auto d_keys = to_device(keys, stream_);
    auto d_values = to_device(values, stream_);
    reference::GroupByResult got;
    if (algo == Algo::kSpEga) {
      SpEga ega(length, stream_);
      const Groups groups = ega.aggregate(d_keys.data(), d_values.data(), n, op, stream_);
      const auto& counts = ega.last_counts();
      if (counts.partial_table_groups + counts.probe_table_groups != groups.count) return "phase counts disagree";
      if (counts.unhashed_pairs > n) return "more unhashed pairs than input";
      if (groups.keys != ega.buffers().yellow_keys.data() + (length - groups.count))
        return "groups are not at the end of yellow";
      got = groups.to_reference(op, stream_);
    } else {
      Lphga lphga(length, stream_);
      lphga.load(d_keys.data(), d_values.data(), n, op, stream_);
      got = lphga.run(n, op, stream_).to_reference(op, stream_);
    }
    return reference::compare(reference::groupby(keys, values, op), got);
  }

  LazyStream stream_;  // declared first: the buffers above are freed on it
};

std::vector<std::uint32_t> values_for(std::size_t n, std::uint64_t seed) {
  return gen::generate_values_host<std::uint32_t>(seed, 0, 0xfffffffeu, n);
}

TEST_F(SpEgaTest, MatchesReferenceForSizesFromZeroUp) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  for (std::size_t n : {0u, 1u, 2u, 3u, 4u, 7u, 31u, 1000u, 65537u}) {
    const auto keys = gen::generate_keys_host(gen::KeySpec::multiplicity(std::max<std::size_t>(n, 1), 2.0), seed, n);
    const auto values = values_for(n, seed);
    for (Algo algo : {Algo::kSpEga, Algo::kLphga})
      EXPECT_EQ(check(algo, keys, values, Aggregation::kSum), "") << "n=" << n << " algo=" << int(algo);
  }
}

TEST_F(SpEgaTest, EveryAggregation) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const std::size_t n = 100000;
  const auto keys = gen::generate_keys_host(gen::KeySpec::uniform(3000), seed, n);
  const auto values = values_for(n, seed);
  for (Aggregation op : {Aggregation::kSum, Aggregation::kCount, Aggregation::kMin, Aggregation::kMax})
    for (Algo algo : {Algo::kSpEga, Algo::kLphga})
      EXPECT_EQ(check(algo, keys, values, op), "") << reference::to_string(op) << " algo=" << int(algo);
}

TEST_F(SpEgaTest, AllDistinctKeysAtLoadFactorOne) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const std::size_t n = 200000;  // L = n = groups
  const auto keys = gen::generate_keys_host(gen::KeySpec::unique(), seed, n);
  const auto values = values_for(n, seed);
  EXPECT_EQ(check(Algo::kSpEga, keys, values, Aggregation::kSum), "");
  EXPECT_EQ(check(Algo::kLphga, keys, values, Aggregation::kSum), "");
}

TEST_F(SpEgaTest, SingleGroup) {
  const std::size_t n = 100000;
  const std::vector<std::uint32_t> keys(n, 12345u);
  const auto values = values_for(n, 7);
  for (Aggregation op : {Aggregation::kSum, Aggregation::kCount, Aggregation::kMin, Aggregation::kMax})
    for (Algo algo : {Algo::kSpEga, Algo::kLphga})
      EXPECT_EQ(check(algo, keys, values, op), "") << reference::to_string(op) << " algo=" << int(algo);
}

TEST_F(SpEgaTest, FewGroupsCombineWithinWarps) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const std::size_t n = 100003;  // not a multiple of 32: the last warp is partial
  const auto keys = gen::generate_keys_host(gen::KeySpec::uniform(7), seed, n);
  const auto values = values_for(n, seed);
  for (Aggregation op : {Aggregation::kSum, Aggregation::kCount, Aggregation::kMin, Aggregation::kMax})
    for (Algo algo : {Algo::kSpEga, Algo::kLphga})
      EXPECT_EQ(check(algo, keys, values, op), "") << reference::to_string(op) << " algo=" << int(algo);
}

TEST_F(SpEgaTest, LoadFactorsUpTo0_99) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const std::size_t n = 100000;
  for (double lf : {0.5, 0.9, 0.99}) {
    const auto groups = static_cast<std::uint64_t>(lf * n);
    const auto keys = gen::generate_keys_host(gen::KeySpec::uniform(groups), seed, n);
    const auto values = values_for(n, seed);
    EXPECT_EQ(check(Algo::kSpEga, keys, values, Aggregation::kSum, std::max<std::size_t>(n, length_for(groups, lf))), "") << "lf=" << lf;
  }
}

TEST_F(SpEgaTest, ZipfKeys) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const std::size_t n = 100000;
  const auto keys = gen::generate_keys_host(gen::KeySpec::zipf(50000, 1.2), seed, n);
  const auto values = values_for(n, seed);
  EXPECT_EQ(check(Algo::kSpEga, keys, values, Aggregation::kSum), "");
  EXPECT_EQ(check(Algo::kLphga, keys, values, Aggregation::kMax), "");
}

TEST_F(SpEgaTest, BuffersLongerThanTheInput) {
  const auto keys = gen::generate_keys_host(gen::KeySpec::uniform(500), 3, 4000);
  const auto values = values_for(4000, 3);
  EXPECT_EQ(check(Algo::kSpEga, keys, values, Aggregation::kSum, 10000), "");
  EXPECT_EQ(check(Algo::kLphga, keys, values, Aggregation::kSum, 10000), "");
}

// Phase 1 (4.1.1) on its own, read between the phases: the end result cannot tell a phase 1 that
// hashes nothing (phase 4 then takes every pair), so this checks the partial hash table itself.
// A slot of part 1 that some key hashes to ends up holding exactly one of those keys, so part 1
// holds one group per such slot; a pair is hashed (blue = 0) iff its key is the one in its slot.
TEST_F(SpEgaTest, Phase1HashesEveryPairWhoseKeyHoldsItsSlot) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const std::size_t n = 100000;
  const auto keys = gen::generate_keys_host(gen::KeySpec::uniform(50000), seed, n);  // load factor 0.5
  const auto values = values_for(n, seed);
  auto d_keys = to_device(keys, stream_);
  auto d_values = to_device(values, stream_);
  SpEga ega(n, stream_);
  const YellowParts parts = ega.parts();
  std::vector<std::uint32_t> blue, yellow;
  ega.load(d_keys.data(), d_values.data(), n, Aggregation::kSum, stream_);
  const Groups groups = ega.run(n, Aggregation::kSum, stream_, [&](int phase, cudaStream_t s) {
    if (phase != 1) return;
    blue = ega.buffers().blue.to_host(s);
    yellow = ega.buffers().yellow_keys.to_host(s);
  });
  ASSERT_EQ(blue.size(), n);
  std::set<std::size_t> slots;  // the slots of part 1 that some key hashes to
  std::size_t hashed = 0, wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t pos = hash::reduce_range(hash::murmur3_32(keys[i], kPhase1Seed), static_cast<std::uint32_t>(n));
    if (pos >= parts.part1) {
      wrong += blue[i] != 1;  // scenario (1): outside the partial table, left
      continue;
    }
    slots.insert(pos);
    if (blue[i] == 0) {
      ++hashed;
      wrong += yellow[pos] != keys[i];  // scenario (3): aggregated into its key's slot
    } else {
      wrong += blue[i] != 1 || yellow[pos] == keys[i] || yellow[pos] == kEmptyKey;  // scenario (2): another key's slot
    }
  }
  EXPECT_EQ(wrong, 0u) << "pairs whose phase-1 outcome contradicts the partial table";
  EXPECT_GT(hashed, n / 10) << "phase 1 should hash a sizeable share (its table is a third of [0, L))";
  const auto& counts = ega.last_counts();
  EXPECT_EQ(counts.partial_table_groups, slots.size()) << "one group per slot of part 1 that some key hashes to";
  EXPECT_EQ(counts.unhashed_pairs, n - hashed);
  EXPECT_EQ(reference::compare(reference::groupby(keys, values, Aggregation::kSum),
                               groups.to_reference(Aggregation::kSum, stream_)),
            "");
}

// The counted run (4.1.6's probing distance) gives run's result, and its counts add up: every
// group costs at least a successful atomicCAS and an aggregate atomic; at load factor 0.99
// LPHGA probes far more per pair than SP-EGA, whose phase 4 works at a lower load factor.
TEST_F(SpEgaTest, CountedRunsCountProbesAndAtomics) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const std::size_t n = 200000;
  const auto groups = static_cast<std::uint64_t>(0.99 * n);
  const auto keys = gen::generate_keys_host(gen::KeySpec::uniform(groups), seed, n);
  const auto values = values_for(n, seed);
  const auto expected = reference::groupby(keys, values, Aggregation::kSum);
  auto d_keys = to_device(keys, stream_);
  auto d_values = to_device(values, stream_);
  WorkCounts sp, lp;
  SpEga ega(n, stream_);
  ega.load(d_keys.data(), d_values.data(), n, Aggregation::kSum, stream_);
  EXPECT_EQ(reference::compare(expected, ega.run_counted(n, Aggregation::kSum, stream_, sp).to_reference(
                                             Aggregation::kSum, stream_)),
            "");
  Lphga lphga(n, stream_);
  lphga.load(d_keys.data(), d_values.data(), n, Aggregation::kSum, stream_);
  EXPECT_EQ(reference::compare(expected, lphga.run_counted(n, Aggregation::kSum, stream_, lp).to_reference(
                                             Aggregation::kSum, stream_)),
            "");
  const std::uint64_t distinct = expected.groups();
  for (const WorkCounts* w : {&sp, &lp}) {
    EXPECT_GE(w->table_accesses, distinct);
    EXPECT_LE(w->table_accesses, n + n / 2);  // at most one per pair in LPHGA, per pair and phase in SP-EGA
    EXPECT_GE(w->atomics, 2 * distinct) << "a CAS and an aggregate for every group's first pair";
  }
  EXPECT_LE(lp.table_accesses, n);
  EXPECT_GT(lp.probe_steps, 4 * sp.probe_steps) << "LPHGA at load factor 0.99 probes far more than SP-EGA";
  EXPECT_GT(lp.probe_steps, 5 * n) << "linear probing at load factor 0.99 takes long runs";
  EXPECT_GT(sp.probe_steps, 0u);
}

TEST_F(SpEgaTest, RunsAgainOnTheSameBuffers) {
  const auto keys = gen::generate_keys_host(gen::KeySpec::uniform(700), 5, 5000);
  const auto values = values_for(5000, 5);
  auto d_keys = to_device(keys, stream_);
  auto d_values = to_device(values, stream_);
  SpEga ega(5000, stream_);
  const auto expected = reference::groupby(keys, values, Aggregation::kMin);
  for (int round = 0; round < 3; ++round)
    EXPECT_EQ(reference::compare(expected, ega.aggregate(d_keys.data(), d_values.data(), 5000, Aggregation::kMin,
                                                         stream_).to_reference(Aggregation::kMin, stream_)),
              "");
}

TEST_F(SpEgaTest, RejectsTheEmptyKeyInTheInput) {
  std::vector<std::uint32_t> keys{1, 2, kEmptyKey, 4};
  std::vector<std::uint32_t> values{1, 1, 1, 1};
  auto d_keys = to_device(keys, stream_);
  auto d_values = to_device(values, stream_);
  SpEga ega(4, stream_);
  EXPECT_THROW(ega.aggregate(d_keys.data(), d_values.data(), 4, Aggregation::kSum, stream_), std::invalid_argument);
  Lphga lphga(4, stream_);
  lphga.load(d_keys.data(), d_values.data(), 4, Aggregation::kSum, stream_);
  EXPECT_THROW(lphga.run(4, Aggregation::kSum, stream_), std::invalid_argument);
}

TEST_F(SpEgaTest, RejectsMoreInputThanBuffersAndMean) {
  std::vector<std::uint32_t> keys{1, 2, 3};
  auto d_keys = to_device(keys, stream_);
  SpEga ega(2, stream_);
  EXPECT_THROW(ega.aggregate(d_keys.data(), d_keys.data(), 3, Aggregation::kSum, stream_), std::invalid_argument);
  EXPECT_THROW(ega.aggregate(d_keys.data(), d_keys.data(), 2, Aggregation::kMean, stream_), std::invalid_argument);
}

TEST(SpEgaSizes, LoadFactorOutsideZeroOneIsRejected) {
  EXPECT_THROW(length_for(100, 0.0), std::invalid_argument);
  EXPECT_THROW(length_for(100, 1.0), std::invalid_argument);
  EXPECT_THROW(length_for(100, -0.5), std::invalid_argument);
  EXPECT_EQ(length_for(90, 0.9), 100u);
}

TEST(SpEgaSizes, YellowPartsLeaveRoomForEveryPartialGroup) {
  for (std::size_t length : {0u, 1u, 2u, 3u, 10u, 1000001u}) {
    const auto parts = YellowParts::for_length(length);
    EXPECT_EQ(parts.part2_begin, parts.part1);
    EXPECT_EQ(parts.part3_begin, 2 * parts.part1);
    EXPECT_GE(length - parts.part3_begin, parts.part1) << "part 3 must hold every group of part 1";
  }
}

}  // namespace
}  // namespace hashlab::ega
