// The registry, run options, and the per-point context with its timing (see experiment.hpp).
#include "hashlab/harness/experiment.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "hashlab/common/memory.hpp"
#include "hashlab/harness/parse.hpp"

namespace hashlab::harness {
namespace {

// ---- Google Benchmark as the repetition engine ----------------------------------------------
//
// Each point is registered as one benchmark with manual time: every repetition is exactly one
// iteration whose time we measure ourselves (CUDA events or the host clock), so untimed work
// (a reset) can run inside the iteration. Google Benchmark runs the repetitions and computes
// the median; min and max are added as custom statistics.

void initialise_benchmark_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    static char name[] = "hashlab";
    static char* argv[] = {name, nullptr};
    int argc = 1;
    benchmark::Initialize(&argc, argv);
  });
}

class StatisticsReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& run : runs) {
      if (run.run_type != Run::RT_Aggregate) continue;
      const double ms = run.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(run.time_unit) * 1e3;
      if (run.aggregate_name == "median") timing.median_ms = ms;
      else if (run.aggregate_name == "min") timing.min_ms = ms;
      else if (run.aggregate_name == "max") timing.max_ms = ms;
    }
  }
  void Finalize() override {}
  Timing timing;
};

double min_of(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }
double max_of(const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }

// Runs `one_run_ms` (which returns the measured milliseconds of one run) `repetitions` times.
Timing repeat_with_benchmark(const std::function<double()>& one_run_ms, int repetitions) {
  initialise_benchmark_once();
  repetitions = std::max(repetitions, 2);  // aggregates need at least two repetitions
  std::exception_ptr error;
  benchmark::ClearRegisteredBenchmarks();
  benchmark::RegisterBenchmark("point", [&](benchmark::State& state) {
    for (auto _ : state) {
      if (error) {
        state.SkipWithError("an earlier repetition failed");
        break;
      }
      try {
        state.SetIterationTime(one_run_ms() / 1e3);
      } catch (...) {
        error = std::current_exception();
        state.SkipWithError("the run threw");
        break;
      }
    }
  })
      ->UseManualTime()
      ->Iterations(1)
      ->Repetitions(repetitions)
      ->ReportAggregatesOnly(true)
      ->Unit(benchmark::kMillisecond)
      ->ComputeStatistics("min", min_of)
      ->ComputeStatistics("max", max_of);
  StatisticsReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::ClearRegisteredBenchmarks();
  if (error) std::rethrow_exception(error);
  reporter.timing.repetitions = repetitions;
  return reporter.timing;
}

}  // namespace

Timing summarize(std::vector<double> ms) {
  if (ms.empty()) throw std::invalid_argument("summarize: no times");
  std::sort(ms.begin(), ms.end());
  const std::size_t n = ms.size();
  const double median = n % 2 == 1 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
  return {median, ms.front(), ms.back(), static_cast<int>(n)};
}

// ---- RunOptions, Point ------------------------------------------------------------------------

std::vector<std::uint64_t> RunOptions::pick_sizes(const std::vector<std::uint64_t>& quick_sizes,
                                                  const std::vector<std::uint64_t>& full_sizes) const {
  if (!sizes.empty()) return sizes;
  return full() ? full_sizes : quick_sizes;
}

std::uint64_t RunOptions::pick_size(std::uint64_t quick_size, std::uint64_t full_size) const {
  if (!sizes.empty()) return sizes.front();
  return full() ? full_size : quick_size;
}

int RunOptions::repetitions_after(double warmup_ms) const {
  if (repetitions > 0 || warmup_ms < kLongRunMs) return effective_repetitions();
  return full() ? 5 : 3;
}

const std::string& RunOptions::option(const std::string& name) const {
  const auto it = module_options.find(name);
  if (it == module_options.end()) throw std::logic_error("no module option '" + name + "' is registered");
  return it->second;
}

std::vector<Point> sweep(const std::vector<std::string>& variants, const std::vector<std::uint64_t>& sizes,
                         const std::string& param, const std::vector<double>& values) {
  std::vector<Point> points;
  for (auto n : sizes)
    for (double value : values)
      for (const auto& variant : variants) points.push_back({variant, n, param, param.empty() ? 0 : value});
  return points;
}

Experiment make_experiment(std::string paper, std::string name, std::string figure, std::string description,
                           std::vector<std::string> variants,
                           std::function<std::vector<Point>(const RunOptions&)> plan,
                           std::function<void(PointContext&)> run) {
  Experiment e;
  e.paper = std::move(paper);
  e.name = std::move(name);
  e.figure = std::move(figure);
  e.description = std::move(description);
  e.variants = std::move(variants);
  e.plan = std::move(plan);
  e.run = std::move(run);
  return e;
}

Experiment make_experiment(std::string paper, std::string name, std::string figure, std::string description,
                           Variants variants, std::function<std::vector<Point>(const RunOptions&, const Variants&)> plan,
                           std::function<void(PointContext&)> run) {
  auto plan_over_declared = [declared = variants, plan = std::move(plan)](const RunOptions& o) { return plan(o, declared); };
  return make_experiment(std::move(paper), std::move(name), std::move(figure), std::move(description),
                         std::move(variants), std::move(plan_over_declared), std::move(run));
}

std::string Point::label() const {
  std::ostringstream out;
  out << variant << " n=" << format_count(n);
  if (!param_name.empty()) out << " " << param_name << "=" << param_value;
  return out.str();
}

// ---- PointContext -----------------------------------------------------------------------------

PointContext::PointContext(const Point& point, const RunOptions& options, cudaStream_t stream,
                           std::map<std::string, std::any>& cache, std::set<std::string>* used)
    : point_(point), options_(options), stream_(stream), cache_(cache), used_(used) {}

Timing PointContext::time_gpu(const std::function<void(cudaStream_t)>& run,
                              const std::function<void(cudaStream_t)>& reset) {
  const auto began = std::chrono::steady_clock::now();
  EventTimer timer;
  double warmup_ms = -1;
  for (int w = 0; w < options_.warmups; ++w) {
    if (reset) reset(stream_);
    timer.start(stream_);
    run(stream_);
    timer.stop(stream_);
    warmup_ms = timer.elapsed_ms();
  }
  HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream_));
  const Timing timing = repeat_with_benchmark(
      [&] {
        if (reset) reset(stream_);
        timer.start(stream_);
        run(stream_);
        timer.stop(stream_);
        return timer.elapsed_ms();
      },
      options_.repetitions_after(warmup_ms));
  timed_seconds_ += seconds_since(began);
  return timing;
}

std::vector<PhaseTiming> PointContext::time_phases(const std::function<void(PhaseTimer&, cudaStream_t)>& run,
                                                   const std::function<void(cudaStream_t)>& reset) {
  PhaseTimer timer;
  std::function<void()> reset_on_stream;
  if (reset) reset_on_stream = [&] { reset(stream_); };
  return time_measured_phases(
      [&] {
        timer.clear();
        run(timer, stream_);
        return timer.results();
      },
      reset_on_stream);
}

std::vector<PhaseTiming> PointContext::time_measured_phases(const std::function<std::vector<PhaseTime>()>& run,
                                                            const std::function<void()>& reset) {
  std::vector<PhaseTiming> phases;
  std::vector<std::vector<double>> times;
  int runs = 0;
  // One run; its phases after the warm-ups are recorded. Returns their sum.
  auto one_run = [&](bool record) {
    if (reset) reset();
    const std::vector<PhaseTime> marked = run();
    if (runs++ == 0)
      for (const auto& p : marked) phases.push_back({p.name, p.items, p.unit, {}});
    if (marked.size() != phases.size())
      throw std::logic_error("time_phases: a run marked " + std::to_string(marked.size()) + " phases, the first " +
                             std::to_string(phases.size()));
    times.resize(phases.size());
    double total = 0;
    for (std::size_t i = 0; i < marked.size(); ++i) {
      if (marked[i].name != phases[i].name)
        throw std::logic_error("time_phases: phase " + std::to_string(i) + " is '" + marked[i].name + "', was '" +
                               phases[i].name + "'");
      if (record) times[i].push_back(marked[i].ms);
      total += marked[i].ms;
    }
    return total;
  };
  const auto began = std::chrono::steady_clock::now();
  double warmup_ms = -1;
  for (int w = 0; w < options_.warmups; ++w) warmup_ms = one_run(false);
  repeat_with_benchmark([&] { return one_run(true); }, options_.repetitions_after(warmup_ms));
  for (std::size_t i = 0; i < phases.size(); ++i) phases[i].timing = summarize(times[i]);
  timed_seconds_ += seconds_since(began);
  return phases;
}

Timing PointContext::time_host(const std::function<void()>& run, const std::function<void()>& reset) {
  const auto began = std::chrono::steady_clock::now();
  auto one_run_ms = [&] {
    if (reset) reset();
    const auto start = std::chrono::steady_clock::now();
    run();
    const auto stop = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::milli>(stop - start).count();
  };
  double warmup_ms = -1;
  for (int w = 0; w < options_.warmups; ++w) warmup_ms = one_run_ms();
  const Timing timing = repeat_with_benchmark(one_run_ms, options_.repetitions_after(warmup_ms));
  timed_seconds_ += seconds_since(began);
  return timing;
}

void PointContext::report_time(const std::string& what, const Timing& timing, double items,
                               const std::string& item_unit) {
  metrics_.push_back({what + "_time", timing.median_ms, timing.min_ms, timing.max_ms, "ms", timing.repetitions});
  auto rate = [&](double ms) { return ms > 0 ? items / (ms * 1e-3) / 1e9 : 0.0; };
  metrics_.push_back({what + "_rate", rate(timing.median_ms), rate(timing.max_ms), rate(timing.min_ms),
                      "G" + item_unit + "/s", timing.repetitions});
}

void PointContext::report_value(const std::string& name, double value, const std::string& unit) {
  metrics_.push_back({name, value, value, value, unit});
}

void PointContext::report_values(const std::string& name, const std::vector<double>& values, const std::string& unit) {
  const Timing t = summarize(values);
  metrics_.push_back({name, t.median_ms, t.min_ms, t.max_ms, unit, t.repetitions});
}

void PointContext::verify(bool ok, const std::string& what_failed) {
  ++verify_calls_;
  if (!ok) {
    all_ok_ = false;
    if (!failure_.empty()) failure_ += "; ";
    failure_ += what_failed.empty() ? "output differs from the CPU reference" : what_failed;
  }
}

void PointContext::verify_sampled(bool ok, const std::string& how, const std::string& what_failed) {
  sampled_ = true;
  note("verified on a sample: " + how);
  verify(ok, what_failed);
}

void PointContext::note(const std::string& text) {
  if (!notes_.empty()) notes_ += "; ";
  notes_ += text;
}

void PointContext::drop_cached(const std::string& prefix) {
  for (auto it = cache_.begin(); it != cache_.end();) {
    if (it->first.compare(0, prefix.size(), prefix) == 0) it = cache_.erase(it);
    else ++it;
  }
}

// ---- Registry ---------------------------------------------------------------------------------

Registry& Registry::instance() {
  static Registry registry;
  return registry;
}

void Registry::add_experiment(Experiment experiment) {
  if (experiment.paper.empty() || experiment.name.empty() || !experiment.plan || !experiment.run)
    throw std::logic_error("an experiment needs a paper, a name, a plan and a run function");
  if (find(experiment.paper, experiment.name) != nullptr)
    throw std::logic_error("experiment " + experiment.paper + "/" + experiment.name + " is registered twice");
  experiments_.push_back(std::make_unique<Experiment>(std::move(experiment)));
}

void Registry::add_demo(Demo demo) { demos_.push_back(std::move(demo)); }
void Registry::add_option(ModuleOption option) { options_.push_back(std::move(option)); }

std::vector<std::string> Registry::papers() const {
  std::vector<std::string> names;
  auto add = [&](const std::string& p) {
    if (std::find(names.begin(), names.end(), p) == names.end()) names.push_back(p);
  };
  for (const auto& e : experiments_) add(e->paper);
  for (const auto& d : demos_) add(d.paper);
  std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
    if ((a == "compare") != (b == "compare")) return b == "compare";
    return a < b;
  });
  return names;
}

std::vector<const Experiment*> Registry::experiments(const std::string& paper) const {
  std::vector<const Experiment*> found;
  for (const auto& e : experiments_)
    if (e->paper == paper) found.push_back(e.get());
  return found;
}

const Experiment* Registry::find(const std::string& paper, const std::string& name) const {
  for (const auto& e : experiments_)
    if (e->paper == paper && e->name == name) return e.get();
  return nullptr;
}

const Demo* Registry::demo(const std::string& paper) const {
  for (const auto& d : demos_)
    if (d.paper == paper) return &d;
  return nullptr;
}

}  // namespace hashlab::harness
