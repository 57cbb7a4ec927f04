// The registry, run options, and the per-point context with its timing (see experiment.hpp).
#include "hashlab/harness/experiment.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "hashlab/common/memory.hpp"
#include "hashlab/harness/parse.hpp"

namespace hashlab::harness {

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

TimingPlan RunOptions::timing_plan() const {
  TimingPlan plan;
  plan.warmups = warmups;
  plan.repetitions = repetitions;
  plan.short_repetitions = full() ? 10 : 5;
  plan.long_repetitions = full() ? 5 : 3;
  plan.long_run_ms = kLongRunMs;
  return plan;
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
  if (!param_name.empty()) out << " " << param_name << "=" << value_text();
  return out.str();
}

std::string Point::value_text() const {
  if (param_name.empty()) return "";
  if (!param_text.empty()) return param_text;
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", param_value);
  return buf;
}

std::vector<Point> sweep_named(const std::vector<std::string>& variants, const std::vector<std::uint64_t>& sizes,
                               const std::string& param, const std::vector<std::string>& names) {
  std::vector<Point> points;
  for (auto n : sizes)
    for (std::size_t i = 0; i < names.size(); ++i)
      for (const auto& variant : variants) points.push_back({variant, n, param, static_cast<double>(i), names[i]});
  return points;
}

// ---- PointContext -----------------------------------------------------------------------------

PointContext::PointContext(const Point& point, const RunOptions& options, cudaStream_t stream,
                           std::map<std::string, std::any>& cache, std::set<std::string>* used)
    : point_(point), options_(options), stream_(stream), cache_(cache), used_(used) {}

Timing PointContext::time_gpu(const std::function<void(cudaStream_t)>& run,
                              const std::function<void(cudaStream_t)>& reset) {
  const auto began = std::chrono::steady_clock::now();
  const Timing timing = harness::time_gpu(options_.timing_plan(), stream_, run, reset);
  timed_seconds_ += seconds_since(began);
  return timing;
}

std::vector<PhaseTiming> PointContext::time_phases(const std::function<void(PhaseTimer&, cudaStream_t)>& run,
                                                   const std::function<void(cudaStream_t)>& reset) {
  const auto began = std::chrono::steady_clock::now();
  auto phases = harness::time_phases(options_.timing_plan(), stream_, run, reset);
  timed_seconds_ += seconds_since(began);
  return phases;
}

std::vector<PhaseTiming> PointContext::time_measured_phases(const std::function<std::vector<PhaseTime>()>& run,
                                                            const std::function<void()>& reset) {
  const auto began = std::chrono::steady_clock::now();
  auto phases = harness::time_measured_phases(options_.timing_plan(), run, reset);
  timed_seconds_ += seconds_since(began);
  return phases;
}

Timing PointContext::time_host(const std::function<void()>& run, const std::function<void()>& reset) {
  const auto began = std::chrono::steady_clock::now();
  const Timing timing = harness::time_host(options_.timing_plan(), run, reset);
  timed_seconds_ += seconds_since(began);
  return timing;
}

Timing PointContext::time(Clock clock, const std::function<void(cudaStream_t)>& run,
                          const std::function<void(cudaStream_t)>& reset) {
  const auto began = std::chrono::steady_clock::now();
  const Timing timing = harness::time_on(clock, options_.timing_plan(), stream_, run, reset);
  timed_seconds_ += seconds_since(began);
  return timing;
}

const DeviceLimits& PointContext::limits() const {
  if (limits_ == nullptr)
    throw std::logic_error("this point reads the GPU's limits, but its experiment does not say so (needs_limits) or "
                           "no GPU is present");
  return *limits_;
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

void Registry::add_module(Module module) {
  for (auto& m : modules_)
    if (m.name == module.name) throw std::logic_error("module " + module.name + " is registered twice");
  modules_.push_back(std::move(module));
}

void Registry::set_module_folders(const std::vector<std::pair<std::string, std::string>>& folders) {
  folders_ = folders;
}

Module Registry::module(const std::string& name) const {
  Module m{name, name, ""};
  for (const auto& registered : modules_)
    if (registered.name == name) m = registered;
  for (const auto& [module, folder] : folders_)
    if (module == name) m.folder = folder;
  return m;
}

std::vector<std::string> Registry::papers() const {
  std::vector<std::string> names;
  auto add = [&](const std::string& p) {
    if (std::find(names.begin(), names.end(), p) == names.end()) names.push_back(p);
  };
  for (const auto& m : modules_) add(m.name);
  for (const auto& e : experiments_) add(e->paper);
  for (const auto& d : demos_) add(d.paper);
  // The build's order, then any other module by name.
  const auto rank = [&](const std::string& name) {
    for (std::size_t i = 0; i < folders_.size(); ++i)
      if (folders_[i].first == name) return i;
    return folders_.size();
  };
  std::sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
    return rank(a) != rank(b) ? rank(a) < rank(b) : a < b;
  });
  return names;
}

std::vector<Module> Registry::modules() const {
  std::vector<Module> out;
  for (const auto& name : papers()) out.push_back(module(name));
  return out;
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
