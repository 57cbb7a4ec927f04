// The runner against test-only experiments registered here (CPU only: no GPU needed).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

#include "hashlab/common/memory.hpp"
#include "hashlab/harness/estimates.hpp"
#include "hashlab/harness/experiment.hpp"
#include "hashlab/harness/probe.hpp"
#include "hashlab/harness/runner.hpp"

namespace hashlab::harness {
namespace {

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

Experiment cpu_experiment(const std::string& name, bool pass) {
  Experiment e;
  e.paper = "runner_test";
  e.name = name;
  e.figure = "Fig. T";
  e.description = "a CPU experiment for the runner's tests";
  e.needs_gpu = false;
  e.variants = {"a", "b"};
  e.plan = [](const RunOptions& o) {
    std::vector<Point> points;
    for (auto n : o.pick_sizes({10, 20}, {10, 20, 30}))
      for (const char* v : {"a", "b"}) points.push_back({v, n, "load_factor", 0.5});
    return points;
  };
  e.run = [pass](PointContext& ctx) {
    volatile double sink = 0;
    const auto t = ctx.time_host([&] {
      for (std::uint64_t i = 0; i < ctx.point().n * 1000; ++i) sink = sink + 1.0;
    });
    ctx.report_time("work", t, static_cast<double>(ctx.point().n), "items");
    ctx.report_value("answer", 42, "count");
    ctx.verify(pass, "deliberately wrong");
  };
  return e;
}

class Runner : public ::testing::Test {
 protected:
  void SetUp() override {
    // One directory per test: CTest runs tests as parallel processes.
    const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    out_ = (std::filesystem::path(::testing::TempDir()) / ("hashlab_runner_test_" + test)).string();
    std::filesystem::remove_all(out_);
    options_.out_dir = out_;
    options_.gpu = false;
    options_.repetitions = 3;
  }
  std::string out_;
  RunOptions options_;
};

TEST_F(Runner, WritesOneCsvRowPerMetricInTheDocumentedSchema) {
  const Experiment e = cpu_experiment("passing", true);
  const RunSummary summary = run_experiments({&e}, options_);
  EXPECT_EQ(summary.points, 4);
  EXPECT_EQ(summary.failed, 0);
  const auto lines = lines_of(out_ + "/runner_test/passing.csv");
  ASSERT_EQ(lines.size(), 1u + 4 * 3);  // header + 4 points x (time, rate, answer)
  EXPECT_EQ(lines[0].rfind("paper,experiment,variant,n,param_name,param_value,metric,median,min,max,unit,verified,"
                           "device,timestamp,git_sha",
                           0),
            0u);
  EXPECT_NE(lines[1].find("runner_test,passing,a,10,load_factor,0.5,work_time,"), std::string::npos) << lines[1];
  for (std::size_t i = 1; i < lines.size(); ++i) EXPECT_NE(lines[i].find(",true,cpu-only,"), std::string::npos) << lines[i];
  EXPECT_TRUE(std::filesystem::exists(out_ + "/runner_test/passing.json"));
}

TEST_F(Runner, ANamedAxisWritesItsValuesNamesAndTheSidecarItsModule) {
  Experiment e = cpu_experiment("named", true);
  e.plan = [](const RunOptions&) { return sweep_named({"a"}, {10}, "dataset", {"voxel_ball", "random"}); };
  const RunSummary summary = run_experiments({&e}, options_);
  EXPECT_EQ(summary.points, 2);
  const auto lines = lines_of(out_ + "/runner_test/named.csv");
  ASSERT_GE(lines.size(), 2u);
  EXPECT_NE(lines[1].find("runner_test,named,a,10,dataset,voxel_ball,work_time,"), std::string::npos) << lines[1];
  std::ifstream json(out_ + "/runner_test/named.json");
  const std::string text((std::istreambuf_iterator<char>(json)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"module\": {"), std::string::npos) << text;
  EXPECT_NE(text.find("\"name\": \"runner_test\""), std::string::npos) << text;
}

TEST_F(Runner, APointThatReadsTheLimitsWithoutSayingSoFailsClearly) {
  Experiment e = cpu_experiment("limits", true);
  e.run = [](PointContext& ctx) { ctx.report_value("copy", ctx.limits().copy_gbps, "GB/s"); };
  const RunSummary summary = run_experiments({&e}, options_);
  EXPECT_EQ(summary.failed, summary.points);
  ASSERT_FALSE(summary.failures.empty());
  EXPECT_NE(summary.failures.front().find("needs_limits"), std::string::npos) << summary.failures.front();
}

TEST(Point, ANamedValueLabelsThePointAndIsWrittenAsItsName) {
  const auto points = sweep_named({"x", "y"}, {8}, "query", {"suppkey", "q18"});
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points[2].variant, "x");
  EXPECT_EQ(points[2].param_text, "q18");
  EXPECT_EQ(points[2].param_value, 1);
  EXPECT_EQ(points[2].value_text(), "q18");
  EXPECT_EQ(points[2].label(), "x n=8 query=q18");
  EXPECT_EQ((Point{"v", 8, "load_factor", 0.5}.value_text()), "0.5");
  EXPECT_EQ((Point{"v", 8, "", 0}.value_text()), "");
}

// The cache outlives an experiment for the next one of the module that uses the same key; what
// an experiment did not use is dropped after it, and everything when another module starts.
TEST_F(Runner, CachedInputsAreSharedByTheNextExperimentOfTheModuleOnly) {
  std::map<std::string, int> made;
  auto using_keys = [&](const std::string& paper, const std::string& name, std::vector<std::string> keys) {
    Experiment e = cpu_experiment(name, true);
    e.paper = paper;
    e.run = [&made, keys](PointContext& ctx) {
      for (const auto& key : keys) ctx.cached<int>(key, [&] { return ++made[key]; });
      ctx.verify(true);
    };
    return e;
  };
  const Experiment first = using_keys("runner_test", "first", {"input:x", "input:y"});
  const Experiment second = using_keys("runner_test", "second", {"input:x"});      // y unused: dropped after
  const Experiment third = using_keys("runner_test", "third", {"input:x", "input:y"});
  const Experiment other = using_keys("runner_test_other", "fourth", {"input:x"});  // another module
  const RunSummary summary = run_experiments({&first, &second, &third, &other}, options_);
  EXPECT_EQ(summary.failed, 0);
  EXPECT_EQ(made["input:x"], 2);  // once for runner_test's three experiments, once for the other module
  EXPECT_EQ(made["input:y"], 2);  // again in `third`: `second` did not use it
}

// --resume keeps an experiment that the same run finished and runs one whose settings differ.
TEST_F(Runner, ResumeKeepsWhatTheSameRunFinishedAndRerunsTheRest) {
  int runs = 0;
  Experiment e = cpu_experiment("resumable", true);
  e.run = [&runs](PointContext& ctx) {
    ++runs;
    ctx.report_value("x", 1, "count");
    ctx.verify(true);
  };
  EXPECT_EQ(run_experiments({&e}, options_).failed, 0);
  EXPECT_EQ(runs, 4);
  options_.resume = true;
  const RunSummary kept = run_experiments({&e}, options_);
  EXPECT_EQ(kept.kept_experiments, 1);
  EXPECT_EQ(runs, 4);  // nothing ran again
  options_.seed = 7;   // another run: its results are not these, and it says why
  ::testing::internal::CaptureStdout();
  const RunSummary rerun = run_experiments({&e}, options_);
  const std::string said = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(rerun.kept_experiments, 0);
  EXPECT_NE(said.find("runner_test/resumable: not kept (--resume): its earlier results differ in seed 42 (this run: 7)"),
            std::string::npos) << said;
  EXPECT_EQ(runs, 8);
  options_.resume = false;  // without --resume everything runs
  run_experiments({&e}, options_);
  EXPECT_EQ(runs, 12);
}

TEST_F(Runner, ResumeCountsTheFailuresOfAKeptRun) {
  const Experiment e = cpu_experiment("failing_kept", false);
  EXPECT_EQ(run_experiments({&e}, options_).failed, 4);
  options_.resume = true;
  const RunSummary kept = run_experiments({&e}, options_);
  EXPECT_EQ(kept.kept_experiments, 1);
  EXPECT_EQ(kept.failed, 4);  // the run still exits non-zero
}

// A point that runs out of device memory while cached values are held runs again without them;
// one that runs out again is skipped.
TEST_F(Runner, APointOutOfDeviceMemoryRunsAgainWithoutTheCache) {
  int made = 0, attempts = 0;
  Experiment e = cpu_experiment("retried", true);
  e.plan = [](const RunOptions&) { return std::vector<Point>{{"a", 10, "", 0}}; };
  e.run = [&](PointContext& ctx) {
    ctx.cached<int>("input:x", [&] { return ++made; });
    if (++attempts == 1) throw OutOfDeviceMemory("the first attempt does not fit");
    ctx.report_value("x", 1, "count");
    ctx.verify(true);
  };
  const RunSummary retried = run_experiments({&e}, options_);
  EXPECT_EQ(retried.skipped, 0);
  EXPECT_EQ(retried.failed, 0);
  EXPECT_EQ(attempts, 2);
  EXPECT_EQ(made, 2);  // the cache was dropped before the second attempt

  e.run = [](PointContext& ctx) {
    ctx.cached<int>("input:x", [] { return 1; });
    throw OutOfDeviceMemory("never fits");
  };
  EXPECT_EQ(run_experiments({&e}, options_).skipped, 1);
}

TEST_F(Runner, FailedVerificationIsMarkedFalseAndCounted) {
  const Experiment e = cpu_experiment("failing", false);
  const RunSummary summary = run_experiments({&e}, options_);
  EXPECT_EQ(summary.failed, 4);
  ASSERT_EQ(summary.failures.size(), 4u);
  EXPECT_NE(summary.failures[0].find("deliberately wrong"), std::string::npos);
  const auto lines = lines_of(out_ + "/runner_test/failing.csv");
  for (std::size_t i = 1; i < lines.size(); ++i) {
    EXPECT_NE(lines[i].find(",false,"), std::string::npos) << lines[i];
    EXPECT_NE(lines[i].find("FAILED: deliberately wrong"), std::string::npos) << lines[i];
  }
}

TEST_F(Runner, ASampledCheckIsRecordedAsSampledNotTrue) {
  Experiment e = cpu_experiment("sampled", true);
  e.run = [](PointContext& ctx) {
    ctx.report_value("x", 1, "count");
    if (ctx.point().variant == "a") ctx.verify_sampled(true, "every 100th row");
    else ctx.verify(true);
  };
  const RunSummary summary = run_experiments({&e}, options_);
  EXPECT_EQ(summary.failed, 0);
  const auto lines = lines_of(out_ + "/runner_test/sampled.csv");
  ASSERT_EQ(lines.size(), 5u);
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const bool a = lines[i].find("runner_test,sampled,a,") == 0;
    EXPECT_NE(lines[i].find(a ? ",sampled,cpu-only," : ",true,cpu-only,"), std::string::npos) << lines[i];
    if (a) {
      EXPECT_NE(lines[i].find("verified on a sample: every 100th row"), std::string::npos) << lines[i];
    }
  }
}

TEST_F(Runner, AFailedSampledCheckIsFalse) {
  Experiment e = cpu_experiment("sampled_failing", true);
  e.run = [](PointContext& ctx) {
    ctx.report_value("x", 1, "count");
    ctx.verify_sampled(false, "every 100th row", "row 300 differs");
  };
  const RunSummary summary = run_experiments({&e}, options_);
  EXPECT_EQ(summary.failed, summary.points);
  for (const auto& line : lines_of(out_ + "/runner_test/sampled_failing.csv"))
    if (line.rfind("paper,", 0) != 0) {
      EXPECT_NE(line.find(",false,cpu-only,"), std::string::npos) << line;
    }
}

std::string contents(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST_F(Runner, AnInterruptedRunLeavesThePreviousCsvAndJsonIntact) {
  const Experiment e = cpu_experiment("interrupted", true);
  run_experiments({&e}, options_);
  const std::string csv = out_ + "/runner_test/interrupted.csv", json = out_ + "/runner_test/interrupted.json";
  const std::string old_csv = contents(csv), old_json = contents(json);
  ASSERT_EQ(lines_of(csv).size(), 1u + 4 * 3);

  // The same experiment again, killed (as by Ctrl-C or a job limit) at its third point.
  Experiment killed = e;
  killed.run = [](PointContext& ctx) {
    static int points = 0;
    if (++points == 3) std::_Exit(3);
    ctx.report_value("answer", 7, "count");
    ctx.verify(true);
  };
  // "fast" death tests fork here: the child runs only the killed experiment.
  ::testing::FLAGS_gtest_death_test_style = "fast";
  EXPECT_EXIT(run_experiments({&killed}, options_), ::testing::ExitedWithCode(3), "");
  EXPECT_EQ(contents(csv), old_csv);
  EXPECT_EQ(contents(json), old_json);
  EXPECT_TRUE(std::filesystem::exists(csv + ".partial"));  // what the killed run measured, kept apart

  // A run that ends replaces the pair.
  Experiment rerun = killed;
  rerun.run = [](PointContext& ctx) {
    ctx.report_value("answer", 7, "count");
    ctx.verify(true);
  };
  run_experiments({&rerun}, options_);
  EXPECT_NE(contents(csv), old_csv);
  EXPECT_EQ(lines_of(csv).size(), 1u + 4);
  EXPECT_FALSE(std::filesystem::exists(csv + ".partial"));
}

TEST_F(Runner, APointThatDoesNotFitIsSkippedNotFailed) {
  Experiment e = cpu_experiment("too_big", true);
  e.run = [](PointContext& ctx) {
    if (ctx.point().n == 20) throw OutOfDeviceMemory("cannot allocate 10.4 GiB on the device (15.6 GiB free of 80 GiB)");
    ctx.report_value("x", 1, "count");
    ctx.verify(true);
  };
  const RunSummary summary = run_experiments({&e}, options_);
  EXPECT_EQ(summary.failed, 0);
  EXPECT_EQ(summary.skipped, 2);
  ASSERT_EQ(summary.skips.size(), 2u);
  EXPECT_NE(summary.skips[0].find("10.4 GiB"), std::string::npos) << summary.skips[0];
  int skipped_rows = 0;
  for (const auto& line : lines_of(out_ + "/runner_test/too_big.csv")) {
    if (line.find(",20,") == std::string::npos) continue;
    ++skipped_rows;
    EXPECT_NE(line.find("skipped: does not fit the GPU's memory: cannot allocate 10.4 GiB"), std::string::npos)
        << line;
    EXPECT_NE(line.find(",skipped,"), std::string::npos) << line;
  }
  EXPECT_EQ(skipped_rows, 2);
}

TEST_F(Runner, APointThatThrowsSkipPointIsSkippedWithItsReason) {
  Experiment e = cpu_experiment("no_data", true);
  e.run = [](PointContext& ctx) {
    if (ctx.point().variant == "b") throw SkipPoint("no input at data/x: run make x-data");
    ctx.report_value("x", 1, "count");
    ctx.verify(true);
  };
  const RunSummary summary = run_experiments({&e}, options_);
  EXPECT_EQ(summary.points, 4);
  EXPECT_EQ(summary.failed, 0);
  EXPECT_EQ(summary.skipped, 2);
  ASSERT_EQ(summary.skips.size(), 2u);
  EXPECT_NE(summary.skips[0].find("runner_test/no_data b n=10"), std::string::npos) << summary.skips[0];
  EXPECT_NE(summary.skips[0].find(": no input at data/x: run make x-data"), std::string::npos) << summary.skips[0];
  int skipped_rows = 0, ok_rows = 0;
  for (const auto& line : lines_of(out_ + "/runner_test/no_data.csv")) {
    if (line.find(",skipped,") != std::string::npos) {
      ++skipped_rows;
      EXPECT_NE(line.find(",b,"), std::string::npos) << line;
      EXPECT_NE(line.find(",,skipped,"), std::string::npos) << line;  // verified: nothing was checked
      EXPECT_NE(line.find("skipped: no input at data/x: run make x-data"), std::string::npos) << line;
    } else if (line.find(",ok,") != std::string::npos) {
      ++ok_rows;
    }
  }
  EXPECT_EQ(skipped_rows, 2);  // one status row per skipped point
  EXPECT_EQ(ok_rows, 2);
}

TEST_F(Runner, EveryRowRecordsThePointsWallTimeAndDevicePeak) {
  const Experiment e = cpu_experiment("costs", true);
  run_experiments({&e}, options_);
  const auto lines = lines_of(out_ + "/runner_test/costs.csv");
  EXPECT_NE(lines[0].find(",status,wall_s,device_peak_bytes"), std::string::npos) << lines[0];
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const auto fields = split_csv_line(lines[i]);
    ASSERT_EQ(fields.size(), 20u) << lines[i];
    EXPECT_GT(std::stod(fields[18]), 0.0) << lines[i];  // wall_s
    EXPECT_EQ(fields[19], "0") << lines[i];             // no device memory without a GPU
  }
}

// A reference run's CSV with the estimate columns: variant a at n = 10 needed 8 GiB for 2 s.
void write_reference(const std::string& dir, const std::string& experiment) {
  std::filesystem::create_directories(dir + "/runner_test");
  std::ofstream(dir + "/runner_test/" + experiment + ".csv")
      << "paper,experiment,variant,n,param_name,param_value,metric,median,min,max,unit,verified,device,timestamp,"
         "git_sha,repetitions,note,status,wall_s,device_peak_bytes\n"
      << "runner_test," << experiment << ",a,10,load_factor,0.5,answer,42,42,42,count,true,gpu,t,g,3,\"a, note\",ok,2,"
      << (8ull << 30) << "\n"
      << "runner_test," << experiment << ",b,10,load_factor,0.5,answer,42,42,42,count,true,gpu,t,g,3,,ok,1,1024\n";
}

TEST_F(Runner, EstimatesComeFromTheReferenceRunScaledInN) {
  write_reference(out_ + "/ref", "estimated");
  const Experiment e = cpu_experiment("estimated", true);
  Estimates estimates(out_ + "/ref");
  const auto exact = estimates.find(e, {"a", 10, "load_factor", 0.5});
  ASSERT_TRUE(exact.has_value());
  EXPECT_EQ(exact->device_bytes, 8ull << 30);
  EXPECT_DOUBLE_EQ(exact->wall_s, 2.0);
  EXPECT_FALSE(exact->scaled);
  const auto scaled = estimates.find(e, {"a", 20, "load_factor", 0.5});
  ASSERT_TRUE(scaled.has_value());
  EXPECT_EQ(scaled->device_bytes, 16ull << 30);
  EXPECT_TRUE(scaled->scaled);
  EXPECT_FALSE(estimates.find(e, {"a", 10, "load_factor", 0.9}).has_value());
  EXPECT_FALSE(estimates.find(e, {"c", 10, "load_factor", 0.5}).has_value());
  EXPECT_FALSE(Estimates(out_ + "/nowhere").find(e, {"a", 10, "load_factor", 0.5}).has_value());
}

// A run at the papers' sizes takes the points its full/ reference measured from there, the others
// from the quick reference.
TEST_F(Runner, AFullRunEstimatesFromTheFullReferenceFirst) {
  write_reference(out_ + "/ref", "estimated_full");
  std::filesystem::create_directories(out_ + "/ref/full/runner_test");
  std::ofstream(out_ + "/ref/full/runner_test/estimated_full.csv")
      << "paper,experiment,variant,n,param_name,param_value,metric,median,min,max,unit,verified,device,timestamp,"
         "git_sha,repetitions,note,status,wall_s,device_peak_bytes\n"
      << "runner_test,estimated_full,a,10,load_factor,0.5,answer,42,42,42,count,true,gpu,t,g,3,,ok,5,4096\n";
  const Experiment e = cpu_experiment("estimated_full", true);
  Estimates full(out_ + "/ref", true), quick(out_ + "/ref");
  EXPECT_DOUBLE_EQ(full.find(e, {"a", 10, "load_factor", 0.5})->wall_s, 5.0);
  EXPECT_EQ(full.find(e, {"a", 10, "load_factor", 0.5})->device_bytes, 4096u);
  EXPECT_DOUBLE_EQ(quick.find(e, {"a", 10, "load_factor", 0.5})->wall_s, 2.0);
  EXPECT_DOUBLE_EQ(full.find(e, {"b", 10, "load_factor", 0.5})->wall_s, 1.0);  // only in the quick run
}

TEST_F(Runner, APointEstimatedNotToFitIsSkippedBeforeItRuns) {
  write_reference(out_ + "/ref", "planned");
  Experiment e = cpu_experiment("planned", true);
  static int runs = 0;
  runs = 0;
  e.run = [](PointContext& ctx) {
    ++runs;
    ctx.report_value("answer", 42, "count");
    ctx.verify(true);
  };
  options_.reference_dir = out_ + "/ref";
  options_.memory_limit_bytes = 4ull << 30;
  const RunSummary summary = run_experiments({&e}, options_);
  // a needs 8 GiB at n = 10 (16 GiB scaled to 20): both skipped unrun; b (1 KiB) runs at both sizes.
  EXPECT_EQ(summary.skipped, 2);
  EXPECT_EQ(summary.failed, 0);
  EXPECT_EQ(runs, 2);
  ASSERT_EQ(summary.skips.size(), 2u);
  EXPECT_NE(summary.skips[0].find("needs about 8.00 GiB of device memory"), std::string::npos) << summary.skips[0];
  EXPECT_NE(summary.skips[0].find("4.00 GiB allowed by --memory-limit"), std::string::npos) << summary.skips[0];
}

TEST_F(Runner, APointThatNeverVerifiesFails) {
  Experiment e = cpu_experiment("unverified", true);
  e.run = [](PointContext& ctx) { ctx.report_value("x", 1, "count"); };
  const RunSummary summary = run_experiments({&e}, options_);
  EXPECT_EQ(summary.failed, summary.points);
  EXPECT_NE(summary.failures[0].find("not verified"), std::string::npos);
}

TEST_F(Runner, AThrowingPointFailsAndTheRunGoesOn) {
  Experiment e = cpu_experiment("throwing", true);
  e.run = [](PointContext& ctx) {
    if (ctx.point().variant == "a") throw std::runtime_error("boom");
    ctx.report_value("x", 1, "count");
    ctx.verify(true);
  };
  const RunSummary summary = run_experiments({&e}, options_);
  EXPECT_EQ(summary.failed, 2);
  EXPECT_NE(summary.failures[0].find("boom"), std::string::npos);
}

TEST_F(Runner, GpuExperimentsAreSkippedWithoutAGpu) {
  Experiment e = cpu_experiment("gpu_only", true);
  e.needs_gpu = true;
  const RunSummary summary = run_experiments({&e}, options_);
  EXPECT_EQ(summary.points, 0);
  EXPECT_EQ(summary.skipped_experiments, 1);
}

TEST_F(Runner, SizesFromTheCommandLineReplaceTheProfile) {
  options_.sizes = {7};
  const Experiment e = cpu_experiment("sized", true);
  const RunSummary summary = run_experiments({&e}, options_);
  EXPECT_EQ(summary.points, 2);
  const auto lines = lines_of(out_ + "/runner_test/sized.csv");
  EXPECT_NE(lines[1].find(",a,7,"), std::string::npos);
}

TEST(Timing, HostTimingReportsOrderedStatisticsOverRepetitions) {
  RunOptions options;
  options.repetitions = 5;
  Point point{"v", 1, "", 0};
  std::map<std::string, std::any> cache;
  PointContext ctx(point, options, nullptr, cache);
  int runs = 0, resets = 0;
  const Timing t = ctx.time_host([&] { ++runs; }, [&] { ++resets; });
  EXPECT_EQ(t.repetitions, 5);
  EXPECT_EQ(runs, 5 + options.warmups);
  EXPECT_EQ(resets, runs);
  EXPECT_LE(t.min_ms, t.median_ms);
  EXPECT_LE(t.median_ms, t.max_ms);
}

TEST(Timing, LongRunsTakeFewerRepetitionsUnlessRepsIsGiven) {
  RunOptions quick;
  EXPECT_EQ(quick.repetitions_after(-1), 5);  // no warm-up ran
  EXPECT_EQ(quick.repetitions_after(RunOptions::kLongRunMs - 1), 5);
  EXPECT_EQ(quick.repetitions_after(RunOptions::kLongRunMs), 3);
  RunOptions full;
  full.profile = Profile::kFull;
  EXPECT_EQ(full.repetitions_after(10), 10);
  EXPECT_EQ(full.repetitions_after(5000), 5);
  RunOptions given;
  given.repetitions = 7;
  EXPECT_EQ(given.repetitions_after(5000), 7);
}

TEST(Timing, AHostRunAsLongAsTheThresholdIsRepeatedThreeTimesAndItsRowsSaySo) {
  RunOptions options;  // quick, --reps not given
  Point point{"v", 1, "", 0};
  std::map<std::string, std::any> cache;
  PointContext ctx(point, options, nullptr, cache);
  int runs = 0;
  const auto sleep_ms = std::chrono::milliseconds(static_cast<int>(RunOptions::kLongRunMs) + 1);
  const Timing t = ctx.time_host([&] {
    ++runs;
    std::this_thread::sleep_for(sleep_ms);
  });
  EXPECT_EQ(t.repetitions, 3);
  EXPECT_EQ(runs, 3 + options.warmups);
  ctx.report_time("work", t, 1, "items");
  ctx.report_value("count", 1, "count");
  ASSERT_EQ(ctx.metrics().size(), 3u);
  EXPECT_EQ(ctx.metrics()[0].repetitions, 3);  // work_time
  EXPECT_EQ(ctx.metrics()[1].repetitions, 3);  // work_rate
  EXPECT_EQ(ctx.metrics()[2].repetitions, 0);  // a measured value
}

TEST(Timing, AnExceptionInsideATimedRunPropagates) {
  RunOptions options;
  options.warmups = 0;
  Point point{"v", 1, "", 0};
  std::map<std::string, std::any> cache;
  PointContext ctx(point, options, nullptr, cache);
  EXPECT_THROW(ctx.time_host([] { throw std::runtime_error("inside"); }), std::runtime_error);
}

TEST(Timing, SummarizeTakesTheMeanOfTheMiddleTwoForAnEvenCount) {
  const Timing odd = summarize({5, 1, 3});
  EXPECT_EQ(odd.median_ms, 3);
  EXPECT_EQ(odd.min_ms, 1);
  EXPECT_EQ(odd.max_ms, 5);
  EXPECT_EQ(odd.repetitions, 3);
  EXPECT_EQ(summarize({4, 1, 3, 10}).median_ms, 3.5);  // the mean of the middle two
  EXPECT_THROW(summarize({}), std::invalid_argument);
}

TEST(Cache, BuildsOnceAndDropsByPrefix) {
  RunOptions options;
  Point point{"v", 1, "", 0};
  std::map<std::string, std::any> cache;
  PointContext ctx(point, options, nullptr, cache);
  int made = 0;
  auto make = [&] { ++made; return std::vector<int>{1, 2, 3}; };
  EXPECT_EQ(ctx.cached<std::vector<int>>("data:1", make).size(), 3u);
  EXPECT_EQ(ctx.cached<std::vector<int>>("data:1", make).size(), 3u);
  EXPECT_EQ(made, 1);
  ctx.drop_cached("data:");
  ctx.cached<std::vector<int>>("data:1", make);
  EXPECT_EQ(made, 2);
}

}  // namespace
}  // namespace hashlab::harness

namespace hashlab::harness {
namespace {

// make_experiment's second form: the variants written once reach the plan unchanged, and what
// `hashlab list` shows (Experiment::variants) is the same list.
TEST(MakeExperiment, ThePlanReceivesTheDeclaredVariants) {
  Variants seen;
  const Experiment e = make_experiment(
      "runner_test", "declared", "Fig. D", "variants declared once", {"a", "b", "c"},
      [&](const RunOptions&, const Variants& v) {
        seen = v;
        std::vector<Point> points;
        for (const auto& name : v) {
          Point p;
          p.variant = name;
          p.n = 10;
          points.push_back(p);
        }
        return points;
      },
      [](PointContext&) {});
  EXPECT_EQ(e.variants, (Variants{"a", "b", "c"}));
  const std::vector<Point> points = e.plan(RunOptions{});
  EXPECT_EQ(seen, e.variants);
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[2].variant, "c");
}

}  // namespace
}  // namespace hashlab::harness
