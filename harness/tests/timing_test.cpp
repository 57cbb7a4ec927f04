// The timing routine on its own (timing.hpp), as the own-data commands and Python call it: no
// PointContext, no run options.
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "hashlab/harness/timing.hpp"

namespace hashlab::harness {
namespace {

TEST(TimingRoutine, RunsTheWarmupsThenTheRepetitionsWithTheResetBeforeEach) {
  TimingPlan plan;
  plan.warmups = 2;
  plan.repetitions = 4;
  int runs = 0, resets = 0;
  const Timing t = time_host(plan, [&] { ++runs; }, [&] { ++resets; });
  EXPECT_EQ(t.repetitions, 4);
  EXPECT_EQ(runs, 6);
  EXPECT_EQ(resets, 6);
  EXPECT_LE(t.min_ms, t.median_ms);
  EXPECT_LE(t.median_ms, t.max_ms);
}

TEST(TimingRoutine, OneRepetitionWithoutAWarmupIsOneRun) {
  TimingPlan plan;
  plan.warmups = 0;
  plan.repetitions = 1;
  int runs = 0;
  const Timing t = time_host(plan, [&] { ++runs; });
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(t.repetitions, 1);
  EXPECT_EQ(t.min_ms, t.max_ms);
}

TEST(TimingRoutine, ALongWarmupTakesTheLongRunsRepetitions) {
  TimingPlan plan;
  plan.long_run_ms = 5;
  plan.short_repetitions = 6;
  plan.long_repetitions = 2;
  int runs = 0;
  const Timing t = time_host(plan, [&] {
    ++runs;
    std::this_thread::sleep_for(std::chrono::milliseconds(6));
  });
  EXPECT_EQ(t.repetitions, 2);
  EXPECT_EQ(runs, 3);
  EXPECT_EQ(plan.repetitions_after(-1), 6);  // no warm-up ran: the short runs' count
}

TEST(TimingRoutine, TheHostClockRunsHostWorkGivenAStreamToo) {
  TimingPlan plan;
  plan.repetitions = 3;
  int runs = 0, resets = 0;
  const Timing t = time_on(Clock::kHost, plan, nullptr, [&](cudaStream_t) { ++runs; }, [&](cudaStream_t) { ++resets; });
  EXPECT_EQ(t.repetitions, 3);
  EXPECT_EQ(runs, 4);
  EXPECT_EQ(resets, 4);
}

TEST(TimingRoutine, ABadPlanIsRefusedBeforeAnyRun) {
  TimingPlan plan;
  plan.warmups = -1;
  int runs = 0;
  EXPECT_THROW(time_host(plan, [&] { ++runs; }), std::invalid_argument);
  plan.warmups = 0;
  plan.short_repetitions = 0;
  EXPECT_THROW(time_host(plan, [&] { ++runs; }), std::invalid_argument);
  EXPECT_EQ(runs, 0);
}

}  // namespace
}  // namespace hashlab::harness
