// PointContext::time_phases: the one repeat loop for per-phase device times (GPU tests).
#include <gtest/gtest.h>

#include <any>
#include <map>
#include <string>

#include "hashlab/common/memory.hpp"
#include "hashlab/harness/experiment.hpp"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab::harness {
namespace {

__global__ void spin(unsigned long long cycles) {
  const unsigned long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

class PhasesGpu : public testing::GpuTest {
 protected:
  RunOptions options_;
  Point point_{"v", 1, "", 0};
  std::map<std::string, std::any> cache_;
  testing::LazyStream stream_;
};

TEST_F(PhasesGpu, EachPhaseGetsItsOwnTimesOverTheRepetitions) {
  options_.repetitions = 3;
  PointContext ctx(point_, options_, stream_, cache_);
  int runs = 0, resets = 0;
  const auto phases = ctx.time_phases(
      [&](PhaseTimer& timer, cudaStream_t s) {
        ++runs;
        timer.run("short", s, 10, "keys", [&] { spin<<<1, 1, 0, s>>>(1000); });
        timer.begin("long", s, 20, "rows");  // begin() ends nothing here; end() closes it
        spin<<<1, 1, 0, s>>>(2000000);
        timer.end(s);
      },
      [&](cudaStream_t) { ++resets; });
  EXPECT_EQ(runs, 3 + options_.warmups);
  EXPECT_EQ(resets, runs);
  ASSERT_EQ(phases.size(), 2u);
  EXPECT_EQ(phases[0].name, "short");
  EXPECT_EQ(phases[0].items, 10);
  EXPECT_EQ(phases[0].unit, "keys");
  EXPECT_EQ(phases[1].name, "long");
  EXPECT_EQ(phases[1].timing.repetitions, 3);
  EXPECT_GT(phases[1].timing.median_ms, phases[0].timing.median_ms);  // 2000x the cycles
  EXPECT_LE(phases[1].timing.min_ms, phases[1].timing.median_ms);
  EXPECT_LE(phases[1].timing.median_ms, phases[1].timing.max_ms);
  EXPECT_GT(ctx.timed_seconds(), 0);
}

TEST_F(PhasesGpu, BeginEndsTheOpenPhase) {
  PhaseTimer timer;
  timer.begin("a", stream_);
  spin<<<1, 1, 0, stream_>>>(1000);
  timer.begin("b", stream_);
  EXPECT_EQ(timer.results().size(), 1u);  // "b" is still open
  timer.end(stream_);
  const auto done = timer.results();
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[1].name, "b");
  EXPECT_GE(done[0].ms, 0);
}

TEST_F(PhasesGpu, RunsThatMarkDifferentPhasesAreAnError) {
  PointContext ctx(point_, options_, stream_, cache_);
  int runs = 0;
  EXPECT_THROW(ctx.time_phases([&](PhaseTimer& timer, cudaStream_t s) {
    timer.run(runs++ == 0 ? "first" : "other", s, 1, "keys", [] {});
  }),
               std::logic_error);
}

}  // namespace
}  // namespace hashlab::harness
