// A build with a PhaseTimer names and times every step of Alg. 1 and Alg. 2, and the table's
// byte counts are those of its arrays: the per-loop costs (section 3.2) and the footprints (3.2,
// 3.3) that Fig. 2's rows report come from here (GPU tests).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hashlab/common/generator.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/hashgraph/hashgraph.hpp"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab::hashgraph {
namespace {

class HashGraphTrace : public testing::GpuTest {
 protected:
  // Builds `keys` at `range` with a PhaseTimer and returns the steps it marked; the table is
  // checked against the keys as well.
  std::vector<PhaseTime> traced_build(const std::vector<std::uint32_t>& keys, std::uint32_t range,
                                      BuildOptions options) {
    HashGraph graph(keys.size(), range, options, stream);
    auto d_keys = to_device(keys, stream);
    PhaseTimer phases;
    graph.build(d_keys.data(), keys.size(), stream, &phases);
    EXPECT_EQ(check_against_input(graph.to_host(stream), keys), "") << "the traced build";
    return phases.results();
  }
  std::vector<std::uint32_t> keys(std::size_t n) const {
    return gen::generate_keys_host(gen::KeySpec::multiplicity(n, 2.0), testing::test_seed(), n);
  }
  testing::LazyStream stream;
};

std::vector<std::string> names(const std::vector<PhaseTime>& trace) {
  std::vector<std::string> out;
  for (const auto& step : trace) out.push_back(step.name);
  return out;
}

void expect_timed(const std::vector<PhaseTime>& trace) {
  double total = 0;
  for (const auto& step : trace) {
    EXPECT_GE(step.ms, 0.0) << step.name;
    total += step.ms;
  }
  EXPECT_GT(total, 0.0);
}

TEST_F(HashGraphTrace, V1TimesItsFiveLoopsAndThePrefixSumInOrder) {
  const std::size_t n = 100003;
  const std::uint32_t range = 50000;
  const auto trace = traced_build(keys(n), range, {Version::kV1});
  ASSERT_EQ(names(trace), (std::vector<std::string>{"hash", "zero", "count", "prefix_sum", "reset", "place"}));
  const double vertices = range + 1.0, keys_n = static_cast<double>(n);
  const std::vector<double> items = {keys_n, vertices, keys_n, vertices, vertices, keys_n};
  const std::vector<std::string> units = {"keys", "vertices", "keys", "vertices", "vertices", "keys"};
  for (std::size_t i = 0; i < trace.size(); ++i) {
    EXPECT_EQ(trace[i].items, items[i]) << trace[i].name;
    EXPECT_EQ(trace[i].unit, units[i]) << trace[i].name;
  }
  expect_timed(trace);
}

TEST_F(HashGraphTrace, V2TimesItsThreePhasesWithPhaseThreeInSharedMemory) {
  const std::size_t n = 100003;
  HashGraph probe(n, n, {Version::kV2, kDefaultBins}, stream);
  ASSERT_TRUE(probe.shared_memory_phase3());
  const auto trace = traced_build(keys(n), n, {Version::kV2, kDefaultBins});
  ASSERT_EQ(names(trace), (std::vector<std::string>{"zero_bins", "bin_count", "bin_prefix_sum", "reset_bins",
                                                    "reorganize", "build_bins"}));
  EXPECT_EQ(trace[0].items, probe.bins_used() + 1.0);
  EXPECT_EQ(trace[0].unit, "bins");
  EXPECT_EQ(trace[1].items, static_cast<double>(n));
  EXPECT_EQ(trace[4].items, static_cast<double>(n));
  EXPECT_EQ(trace[5].items, static_cast<double>(n));
  expect_timed(trace);
}

TEST_F(HashGraphTrace, V2FallbackTimesTheGlobalPhaseThree) {
  const std::uint32_t range = 1u << 24;  // one bin of 16M vertices: beyond any block's shared memory
  const auto trace = traced_build(keys(1000), range, {Version::kV2, 1});
  ASSERT_EQ(names(trace), (std::vector<std::string>{"zero_bins", "bin_count", "bin_prefix_sum", "reset_bins",
                                                    "reorganize", "phase3_zero", "phase3_count", "phase3_prefix_sum",
                                                    "phase3_reset", "phase3_place"}));
  EXPECT_EQ(trace[5].items, range + 1.0);
  EXPECT_EQ(trace[5].unit, "vertices");
}

TEST_F(HashGraphTrace, AnEmptyBuildMarksNoStep) {
  EXPECT_TRUE(traced_build({}, 10, {Version::kV1}).empty());
  EXPECT_TRUE(traced_build({}, 10, {Version::kV2}).empty());
}

TEST_F(HashGraphTrace, AnUntracedBuildAfterATracedOneIsStillCorrect) {
  const auto input = keys(5000);
  HashGraph graph(input.size(), 1000, {Version::kV2, 16}, stream);
  auto d_keys = to_device(input, stream);
  PhaseTimer phases;
  graph.build(d_keys.data(), input.size(), stream, &phases);
  graph.build(d_keys.data(), input.size(), stream);
  EXPECT_EQ(check_against_input(graph.to_host(stream), input), "");
}

class HashGraphBytes : public testing::GpuTest {
 protected:
  testing::LazyStream stream;
};

TEST_F(HashGraphBytes, V1ScratchIsTheHashesAndThePerVertexCounters) {
  const std::uint64_t capacity = 1000;
  const std::uint32_t range = 700;
  HashGraph graph(capacity, range, {Version::kV1}, stream);
  EXPECT_EQ(graph.table_bytes(), 4 * (range + 1) + sizeof(Entry) * capacity);
  EXPECT_EQ(graph.scratch_bytes(), 4 * capacity + 4 * (range + 1));
  EXPECT_EQ(graph.peak_bytes(), graph.table_bytes() + graph.scratch_bytes());
}

TEST_F(HashGraphBytes, V2ScratchIsTheRelabeledArrayOfTuplesAndTheBinCounters) {
  const std::uint64_t capacity = 1000;
  const std::uint32_t range = 700;
  HashGraph graph(capacity, range, {Version::kV2, 10}, stream);
  ASSERT_TRUE(graph.shared_memory_phase3());
  EXPECT_EQ(graph.scratch_bytes(), sizeof(Entry) * capacity + 2 * 4 * (graph.bins_used() + 1));
  EXPECT_EQ(graph.peak_bytes(), graph.table_bytes() + graph.scratch_bytes());
}

TEST_F(HashGraphBytes, V2FallbackAlsoHoldsThePerVertexCounters) {
  const std::uint64_t capacity = 1000;
  const std::uint32_t range = 1u << 24;
  HashGraph graph(capacity, range, {Version::kV2, 1}, stream);
  ASSERT_FALSE(graph.shared_memory_phase3());
  EXPECT_EQ(graph.scratch_bytes(), sizeof(Entry) * capacity + 2 * 4 * 2 + 4 * (std::uint64_t{range} + 1));
}

}  // namespace
}  // namespace hashlab::hashgraph
