// Running experiments: one progress line per point, one CSV row per metric, a JSON sidecar per
// experiment (see docs/design.md "Result rows").
#include "hashlab/harness/runner.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/device.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/harness/estimates.hpp"
#include "hashlab/harness/json.hpp"
#include "hashlab/harness/parse.hpp"
#include "hashlab/harness/probe.hpp"
#include "hashlab_git_sha.hpp"

namespace hashlab::harness {
namespace {

using SteadyClock = std::chrono::steady_clock;

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string format_duration(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (const char c : text) out += (c == '"') ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string number(double value) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", value);
  return buf;
}

constexpr const char* kCsvHeader =
    "paper,experiment,variant,n,param_name,param_value,metric,median,min,max,unit,verified,device,"
    "timestamp,git_sha,repetitions,note,status,wall_s,device_peak_bytes";

// The cost weight of a point for the ETA: proportional to its size, with a floor for fixed costs.
double weight(const Point& p) { return static_cast<double>(std::max<std::uint64_t>(p.n, 1u << 20)); }

std::string device_json(const std::string& label) {
  JsonWriter json;
  json.begin_object();
  json.field("name", label);
  if (gpu_available()) {
    const DeviceInfo info = device_info();
    json.field("compute_capability", std::to_string(info.compute_major) + "." + std::to_string(info.compute_minor));
    json.field("multiprocessors", info.multiprocessors);
    json.field("global_memory_bytes", static_cast<unsigned long long>(info.global_memory_bytes));
    json.field("l2_cache_bytes", static_cast<unsigned long long>(info.l2_cache_bytes));
    json.field("memory_bus_width_bits", info.memory_bus_width_bits);
    json.field("memory_clock_khz", info.memory_clock_khz);
    json.field("clock_khz", info.clock_khz);
    json.field("driver_version", info.driver_version);
    json.field("runtime_version", info.runtime_version);
  }
  json.end_object();
  return json.str();
}

std::string limits_json(const RunOptions& options) {
  const auto limits = load_device_limits(options.out_dir);
  return limits ? device_limits_json(*limits) : "null";
}

struct PlannedExperiment {
  const Experiment* experiment;
  std::vector<Point> points;
};

// What makes two runs of an experiment the same run: the revision, the device, and every option
// that changes its points or their timing. Written to each result's JSON; --resume compares it.
std::string run_identity(const RunOptions& options, const std::string& device) {
  std::ostringstream out;
  out << "git=" << git_sha() << ";device=" << device << ";profile=" << (options.full() ? "full" : "quick")
      << ";seed=" << options.seed << ";reps=" << options.effective_repetitions() << ";warmup=" << options.warmups
      << ";n=";
  for (std::size_t i = 0; i < options.sizes.size(); ++i) out << (i ? "," : "") << options.sizes[i];
  for (const auto& [name, value] : options.module_options) out << ";" << name << "=" << value;  // a sorted map
  return out.str();
}

// The settings in which two run identities differ: "git 730a84b3ed18 (this run: 23182a259e92)".
std::string identity_differences(const std::string& earlier, const std::string& now) {
  auto fields = [](const std::string& identity) {
    std::map<std::string, std::string> out;
    std::istringstream in(identity);
    for (std::string item; std::getline(in, item, ';');) {
      const auto eq = item.find('=');
      out[item.substr(0, eq)] = eq == std::string::npos ? "" : item.substr(eq + 1);
    }
    return out;
  };
  const auto a = fields(earlier), b = fields(now);
  std::set<std::string> names;
  for (const auto& m : {a, b})
    for (const auto& [name, value] : m) names.insert(name);
  std::string out;
  for (const auto& name : names) {
    const auto x = a.find(name), y = b.find(name);
    const std::string was = x == a.end() ? "-" : x->second, is = y == b.end() ? "-" : y->second;
    if (was != is) out += (out.empty() ? "" : ", ") + name + " " + was + " (this run: " + is + ")";
  }
  return out.empty() ? "no recorded identity" : out;
}

// With --resume: the earlier result of `e` in out_dir, as (finished, failed points, skipped
// points) when the same run wrote it (its JSON's run_identity), else with `differs` saying which
// settings differ; nothing when there is no earlier result.
struct KeptResult {
  std::string finished;
  int failed = 0;
  int skipped = 0;
  std::string differs;  // not kept: the settings its run had otherwise
};
std::optional<KeptResult> kept_result(const RunOptions& options, const Experiment& e, const std::string& device) {
  const auto dir = std::filesystem::path(options.out_dir) / e.paper;
  if (!std::filesystem::exists(dir / (e.name + ".csv"))) return std::nullopt;
  std::ifstream in(dir / (e.name + ".json"));
  if (!in) return std::nullopt;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::map<std::string, double> numbers;
  std::map<std::string, std::string> strings;
  read_flat_json(text, numbers, strings);
  const std::string identity = run_identity(options, device);
  if (strings["run_identity"] != identity) return KeptResult{{}, 0, 0, identity_differences(strings["run_identity"], identity)};
  return KeptResult{strings["finished"], static_cast<int>(numbers["failed_points"]),
                    static_cast<int>(numbers["skipped_points"]), {}};
}

// Writes one experiment's CSV and JSON. While the experiment runs, its rows go to
// `<name>.csv.partial` (appended after every point, so a crash keeps what ran there); when it ends,
// both files are renamed over the previous `<name>.csv` and `<name>.json`. A run that is
// interrupted (Ctrl-C, a killed job) leaves the previous complete pair as it was.
class ResultFile {
 public:
  ResultFile(const RunOptions& options, const Experiment& e, std::string device)
      : experiment_(e), device_(std::move(device)) {
    const auto dir = std::filesystem::path(options.out_dir) / e.paper;
    std::filesystem::create_directories(dir);
    csv_path_ = (dir / (e.name + ".csv")).string();
    json_path_ = (dir / (e.name + ".json")).string();
    std::ofstream out(partial(csv_path_));
    out << kCsvHeader << "\n";
    if (!out) throw std::runtime_error("cannot write " + partial(csv_path_));
  }

  // `verified`: "true" (the whole output checked), "sampled" (a documented sample), "false" (the
  // check failed), "skipped" (the point did not run: nothing was checked).
  // `status`: "ok", "failed" or "skipped" (did not fit this machine's memory, or threw SkipPoint).
  // `wall_s`: the point's wall time; `device_peak_bytes`: the device pool's peak while it ran.
  // `repetitions`: a timed row's own (RunOptions::repetitions_after), else the profile's.
  void add(const Point& p, const PointContext& ctx, const char* verified, const std::string& note, int repetitions,
           const char* status, double wall_s, std::size_t device_peak_bytes) {
    std::ofstream out(partial(csv_path_), std::ios::app);
    const std::string stamp = utc_timestamp();
    auto row = [&](const Metric& m) {
      out << csv_field(experiment_.paper) << "," << csv_field(experiment_.name) << "," << csv_field(p.variant) << ","
          << p.n << "," << csv_field(p.param_name) << "," << csv_field(p.value_text()) << ","
          << csv_field(m.name) << "," << number(m.median) << "," << number(m.min) << "," << number(m.max) << ","
          << csv_field(m.unit) << "," << verified << "," << csv_field(device_) << "," << stamp
          << "," << git_sha() << "," << (m.repetitions > 0 ? m.repetitions : repetitions) << ","
          << csv_field(note) << "," << status << ","
          << number(wall_s) << "," << device_peak_bytes << "\n";
    };
    if (ctx.metrics().empty() || std::string(status) == "skipped") {
      row({"status", 0, 0, 0, ""});  // a point that produced nothing is still recorded
      return;
    }
    for (const auto& m : ctx.metrics()) row(m);
  }

  void finish(const RunOptions& options, const std::string& started, int points, int failed, int skipped) {
    JsonWriter json;
    json.begin_object();
    json.field("paper", experiment_.paper);
    const Module module = Registry::instance().module(experiment_.paper);
    const auto modules = Registry::instance().papers();
    json.begin_object("module");  // what the reports title a module by, and where its claims are
    json.field("name", module.name);
    json.field("title", module.title);
    json.field("folder", module.folder);
    json.field("order", static_cast<int>(std::find(modules.begin(), modules.end(), module.name) - modules.begin()));
    json.end_object();
    json.field("experiment", experiment_.name);
    json.field("figure", experiment_.figure);
    json.field("description", experiment_.description);
    json.field("command_line", options.command_line);
    json.field("profile", options.full() ? "full" : "quick");
    json.field("seed", static_cast<unsigned long long>(options.seed));
    json.field("repetitions", options.effective_repetitions());
    json.field("warmups", options.warmups);
    json.field("run_identity", run_identity(options, device_));
    json.raw("device", device_json(device_));
    json.raw("hardware_limits", limits_json(options));
    json.field("git_sha", git_sha());
    json.field("started", started);
    json.field("finished", utc_timestamp());
    json.field("points", points);
    json.field("failed_points", failed);
    json.field("skipped_points", skipped);
    json.end_object();
    {
      std::ofstream out(partial(json_path_));
      out << json.str() << "\n";
      if (!out) throw std::runtime_error("cannot write " + partial(json_path_));
    }
    // The CSV last: a reader that sees the new CSV also sees its JSON.
    std::filesystem::rename(partial(json_path_), json_path_);
    std::filesystem::rename(partial(csv_path_), csv_path_);
  }

 private:
  static std::string partial(const std::string& path) { return path + ".partial"; }

  const Experiment& experiment_;
  std::string device_;
  std::string csv_path_;
  std::string json_path_;
};

// A sticky CUDA error (illegal address, ...) poisons the context: nothing after it can run.
bool context_is_lost() {
  const cudaError_t err = cudaDeviceSynchronize();
  if (err == cudaSuccess) return false;
  std::cerr << "hashlab: the GPU context is lost (" << cudaGetErrorName(err) << ": " << cudaGetErrorString(err)
            << "); stopping the run\n";
  return true;
}

}  // namespace

const std::string& git_sha() {
  static const std::string sha = HASHLAB_GIT_SHA;
  return sha;
}

namespace {

// ---- run_experiments, in parts ---------------------------------------------------------------------

/// The experiments that run, with their points: one that needs a GPU is skipped, saying so, when
/// there is none.
struct RunPlan {
  std::vector<PlannedExperiment> experiments;
  double total_weight = 0;
};

RunPlan plan_run(const std::vector<const Experiment*>& experiments, const RunOptions& options, RunSummary& summary) {
  RunPlan plan;
  for (const Experiment* e : experiments) {
    if (e->needs_gpu && !options.gpu) {
      std::cout << "skip " << e->paper << "/" << e->name << ": needs a CUDA GPU\n";
      ++summary.skipped_experiments;
      continue;
    }
    PlannedExperiment p{e, e->plan(options)};
    for (const auto& point : p.points) plan.total_weight += weight(point);
    summary.points += static_cast<int>(p.points.size());
    plan.experiments.push_back(std::move(p));
  }
  return plan;
}

/// This GPU's limits for the experiments that read them (Experiment::needs_limits), found once per
/// run: `<out>/device.json` when `hashlab probe` wrote it for this GPU, else measured now and written
/// there. Nothing when no experiment of the run reads them.
std::optional<DeviceLimits> limits_for(const RunPlan& plan, const RunOptions& options) {
  std::string readers;
  for (const auto& [e, points] : plan.experiments)
    if (e->needs_limits && !points.empty()) readers += (readers.empty() ? "" : ", ") + e->paper + "/" + e->name;
  if (readers.empty() || !options.gpu) return std::nullopt;
  if (auto stored = load_device_limits(options.out_dir)) return stored;
  std::cout << "hashlab: probing this GPU's limits once for " << readers << " (written to " << options.out_dir
            << "/device.json)\n";
  std::filesystem::create_directories(options.out_dir);
  DeviceLimits measured = probe_device();
  write_device_limits(measured, (std::filesystem::path(options.out_dir) / "device.json").string());
  return measured;
}

/// The progress of a run: the counter, the elapsed time and the ETA of each point's line.
class Progress {
 public:
  Progress(int points, double total_weight)
      : points_(points), total_weight_(total_weight), width_(static_cast<int>(std::to_string(points).size())),
        start_(SteadyClock::now()) {}

  /// Counts points as done without a line (an experiment kept by --resume).
  void skip(const std::vector<Point>& points) {
    done_ += static_cast<int>(points.size());
    for (const auto& point : points) done_weight_ += weight(point);
  }

  /// The line of one point: its metrics (the first four), its outcome, where its wall time went.
  std::string line(const Experiment& e, const Point& point, const PointContext& ctx, const char* outcome,
                   double wall_s) {
    ++done_;
    done_weight_ += weight(point);
    const double elapsed = std::chrono::duration<double>(SteadyClock::now() - start_).count();
    const double eta = done_weight_ > 0 ? elapsed * (total_weight_ - done_weight_) / done_weight_ : 0;
    std::ostringstream line;
    char counter[32];
    std::snprintf(counter, sizeof counter, "[%*d/%d] ", width_, done_, points_);
    line << counter << e.paper << "/" << e.name << " " << point.label() << ":";
    int shown = 0;
    for (const auto& m : ctx.metrics()) {
      if (shown++ == 4) {
        line << " ...";
        break;
      }
      line << " " << m.name << "=" << number(m.median) << " " << m.unit;
    }
    line << "  " << outcome << "  (" << number(wall_s) << " s: inputs " << number(ctx.input_seconds()) << ", timed "
         << number(ctx.timed_seconds()) << "; elapsed " << format_duration(elapsed) << ", ETA "
         << format_duration(eta) << ")";
    return line.str();
  }

 private:
  int points_;
  double total_weight_;
  int width_;
  SteadyClock::time_point start_;
  int done_ = 0;
  double done_weight_ = 0;
};

/// With --resume: whether `e` is kept from an earlier run of the same settings (counted in the
/// summary, and said); else it runs again (and why is said when an earlier result differs).
bool kept_by_resume(const RunOptions& options, const Experiment& e, const std::string& device, RunSummary& summary) {
  if (!options.resume) return false;
  const auto kept = kept_result(options, e, device);
  if (!kept) return false;
  if (!kept->differs.empty()) {
    std::cout << "== " << e.paper << "/" << e.name << ": not kept (--resume): its earlier results differ in "
              << kept->differs << "; it runs again\n";
    return false;
  }
  std::cout << "== " << e.paper << "/" << e.name << ": kept (--resume): the same run finished it at " << kept->finished
            << ", " << kept->failed << " failed and " << kept->skipped << " skipped points\n";
  ++summary.kept_experiments;
  summary.failed += kept->failed;
  summary.skipped += kept->skipped;
  if (kept->failed > 0)
    summary.failures.push_back(e.paper + "/" + e.name + ": " + std::to_string(kept->failed) +
                               " points FAILED in the kept earlier run");
  return true;
}

/// Inputs and answers cached by a module's points (PointContext::cached). An experiment's input is
/// often the next one's: what an experiment used stays for the next, the rest is dropped, and
/// everything goes when the next module starts.
class ModuleCache {
 public:
  explicit ModuleCache(bool gpu) : gpu_(gpu) {}
  ~ModuleCache() { drop(); }
  /// Before an experiment: a new module starts with nothing.
  void begin(const std::string& paper) {
    if (paper != paper_) {
      drop();
      paper_ = paper;
    }
    used_.clear();
  }
  /// After an experiment: keep what it used.
  void keep_used() {
    for (auto it = values_.begin(); it != values_.end();) it = used_.count(it->first) ? std::next(it) : values_.erase(it);
    if (gpu_) trim_device_pool();
  }
  void drop() {
    values_.clear();
    if (gpu_) trim_device_pool();
  }
  bool empty() const { return values_.empty(); }
  std::map<std::string, std::any>& values() { return values_; }
  std::set<std::string>* used() { return &used_; }

 private:
  bool gpu_;
  std::string paper_;
  std::map<std::string, std::any> values_;
  std::set<std::string> used_;  // the keys the current experiment asked for
};

/// What running one point gave: its context (metrics, verdict, notes), or why it was skipped or
/// what it threw, with its device memory peak.
struct PointOutcome {
  std::optional<PointContext> ctx;
  std::string error, skip;
  std::size_t peak = 0;
};

/// Why a point estimated not to fit must be skipped before it runs ("" when it may run).
std::string estimated_skip(Estimates& estimates, const Experiment& e, const Point& point, const RunOptions& options) {
  const auto need = estimates.find(e, point);
  if (!need || need->device_bytes == 0 || !(options.gpu || options.memory_limit_bytes > 0)) return "";
  const std::uint64_t available =
      options.memory_limit_bytes ? options.memory_limit_bytes : device_memory_available(need->device_bytes);
  if (need->device_bytes <= available) return "";
  return "needs about " + format_bytes(need->device_bytes) + " of device memory (the reference run's peak" +
         (need->scaled ? ", scaled to this size" : "") + "), " + format_bytes(available) +
         (options.memory_limit_bytes ? " allowed by --memory-limit" : " available");
}

/// Runs one point: skipped before it runs when it is estimated not to fit; else run once, and once
/// more without the cached values if it ran out of device memory while they were held. A point
/// whose allocation does not fit, or that throws SkipPoint, is skipped; any other exception is its
/// error.
PointOutcome run_point(const Experiment& e, const Point& point, const RunOptions& options, cudaStream_t stream,
                       ModuleCache& cache, const DeviceLimits* limits, Estimates& estimates) {
  PointOutcome out;
  const auto make_context = [&] {
    out.ctx.emplace(point, options, stream, cache.values(), cache.used());
    out.ctx->set_limits(limits);
  };
  make_context();
  out.skip = estimated_skip(estimates, e, point, options);
  for (bool retried = false; out.skip.empty();) {
    try {
      std::optional<DevicePeakScope> scope;
      if (options.gpu) scope.emplace();
      e.run(*out.ctx);
      if (scope) out.peak = scope->peak();
    } catch (const SkipPoint& ex) {
      out.skip = ex.what();
    } catch (const OutOfDeviceMemory& ex) {
      if (!retried && !cache.empty()) {  // the cached values of other points may hold the memory
        retried = true;
        cache.drop();
        make_context();
        continue;
      }
      out.skip = std::string("does not fit the GPU's memory: ") + ex.what();
    } catch (const OutOfHostMemory& ex) {
      out.skip = std::string("does not fit the host's memory: ") + ex.what();
    } catch (const std::bad_alloc&) {
      out.skip = "does not fit the host's memory (a host allocation failed)";
    } catch (const std::exception& ex) {
      out.error = ex.what();
    }
    break;
  }
  return out;
}

/// What the runner shares between an experiment's points.
struct RunState {
  const RunOptions& options;
  std::string device;
  cudaStream_t stream = nullptr;
  std::optional<DeviceLimits> limits;
  Estimates estimates;
  ModuleCache cache;
  Progress progress;
  RunSummary& summary;
};

/// Runs one experiment's points into its result files. Returns false when the GPU context was lost
/// (a sticky CUDA error): nothing after it can run.
bool run_experiment(const Experiment& e, const std::vector<Point>& points, RunState& run) {
  std::cout << "== " << e.paper << "/" << e.name << " (" << e.figure << "): " << e.description << "\n";
  run.cache.begin(e.paper);
  ResultFile file(run.options, e, run.device);
  const std::string started = utc_timestamp();
  int failed_here = 0, skipped_here = 0;
  bool lost = false;
  for (const Point& point : points) {
    const auto point_start = SteadyClock::now();
    PointOutcome out = run_point(e, point, run.options, run.stream, run.cache, run.limits ? &*run.limits : nullptr,
                                 run.estimates);
    const PointContext& ctx = *out.ctx;
    const bool skipped = !out.skip.empty();
    const bool verified = !skipped && out.error.empty() && ctx.verified();
    std::string note = ctx.notes();
    if (skipped) {
      note = "skipped: " + out.skip;
      ++run.summary.skipped;
      ++skipped_here;
      run.summary.skips.push_back(e.paper + "/" + e.name + " " + point.label() + ": " + out.skip);
    } else if (!verified) {
      const std::string why = !out.error.empty()       ? out.error
                              : !ctx.failure().empty() ? ctx.failure()
                                                       : "the point was not verified";
      note = note.empty() ? "FAILED: " + why : note + "; FAILED: " + why;
      ++run.summary.failed;
      ++failed_here;
      run.summary.failures.push_back(e.paper + "/" + e.name + " " + point.label() + ": " + why);
    }
    const double wall_s = std::chrono::duration<double>(SteadyClock::now() - point_start).count();
    file.add(point, ctx, skipped ? "skipped" : !verified ? "false" : ctx.sampled() ? "sampled" : "true", note,
             run.options.effective_repetitions(), skipped ? "skipped" : verified ? "ok" : "failed", wall_s, out.peak);
    std::cout << run.progress.line(e, point, ctx, skipped ? "skipped" : verified ? "ok" : "FAILED", wall_s) << std::endl;
    if (!verified) std::cout << "    " << note << std::endl;
    if (skipped && run.options.gpu) trim_device_pool();  // what the point did allocate goes back
    if (!out.error.empty() && run.options.gpu && context_is_lost()) {
      lost = true;
      break;
    }
  }
  file.finish(run.options, started, static_cast<int>(points.size()), failed_here, skipped_here);
  if (!lost) run.cache.keep_used();
  return !lost;
}

}  // namespace

RunSummary run_experiments(const std::vector<const Experiment*>& experiments, const RunOptions& options) {
  RunSummary summary;
  const RunPlan plan = plan_run(experiments, options, summary);
  if (summary.points == 0) return summary;
  std::unique_ptr<Stream> stream;
  if (options.gpu) stream = std::make_unique<Stream>();
  RunState run{options,
               options.gpu ? device_label() : std::string("cpu-only"),
               stream ? stream->get() : nullptr,
               limits_for(plan, options),
               Estimates(options.reference_dir, options.full()),
               ModuleCache(options.gpu),
               Progress(summary.points, plan.total_weight),
               summary};
  for (const auto& [e, points] : plan.experiments) {
    if (kept_by_resume(options, *e, run.device, summary)) {
      run.progress.skip(points);
      continue;
    }
    if (!run_experiment(*e, points, run)) break;
  }
  return summary;
}

}  // namespace hashlab::harness
