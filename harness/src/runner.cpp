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
  if (!limits) return "null";
  JsonWriter json;
  json.begin_object();
  json.field("copy_gbps", limits->copy_gbps);
  json.field("atomic_exch_gops_large", limits->atomic_exch_gops_large);
  json.field("atomic_cas_gops_large", limits->atomic_cas_gops_large);
  json.field("atomic_exch_gops_128mib", limits->atomic_exch_gops_128mib);
  json.field("atomic_exch_gops_8mib", limits->atomic_exch_gops_8mib);
  json.field("random_read_gops_large", limits->random_read_gops_large);
  json.field("h2d_pinned_gbps", limits->h2d_pinned_gbps);
  json.field("h2d_pageable_gbps", limits->h2d_pageable_gbps);
  for (const AllToAllLimit& a : limits->all_to_all)
    json.field("all_to_all_gbps_p" + std::to_string(a.servers) + "_" + std::to_string(a.bytes_per_gpu >> 20) + "mib",
               a.gbps_per_gpu);
  json.end_object();
  return json.str();
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

  // `verified`: "true" (the whole output checked), "sampled" (a documented sample), "false".
  // `status`: "ok", "failed" or "skipped" (did not fit this machine's memory, or threw SkipPoint).
  // `wall_s`: the point's wall time; `device_peak_bytes`: the device pool's peak while it ran.
  // `repetitions`: a timed row's own (RunOptions::repetitions_after), else the profile's.
  void add(const Point& p, const PointContext& ctx, const char* verified, const std::string& note, int repetitions,
           const char* status, double wall_s, std::size_t device_peak_bytes) {
    std::ofstream out(partial(csv_path_), std::ios::app);
    const std::string stamp = utc_timestamp();
    auto row = [&](const Metric& m) {
      out << csv_field(experiment_.paper) << "," << csv_field(experiment_.name) << "," << csv_field(p.variant) << ","
          << p.n << "," << csv_field(p.param_name) << "," << (p.param_name.empty() ? "" : number(p.param_value)) << ","
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

RunSummary run_experiments(const std::vector<const Experiment*>& experiments, const RunOptions& options) {
  RunSummary summary;
  std::vector<PlannedExperiment> plan;
  double total_weight = 0;
  for (const Experiment* e : experiments) {
    if (e->needs_gpu && !options.gpu) {
      std::cout << "skip " << e->paper << "/" << e->name << ": needs a CUDA GPU\n";
      ++summary.skipped_experiments;
      continue;
    }
    PlannedExperiment p{e, e->plan(options)};
    for (const auto& point : p.points) total_weight += weight(point);
    summary.points += static_cast<int>(p.points.size());
    plan.push_back(std::move(p));
  }
  if (summary.points == 0) return summary;

  const std::string device = options.gpu ? device_label() : std::string("cpu-only");
  Estimates estimates(options.reference_dir, options.full());
  std::unique_ptr<Stream> stream;
  if (options.gpu) stream = std::make_unique<Stream>();
  const auto run_start = SteadyClock::now();
  double done_weight = 0;
  int done = 0;
  const int width = static_cast<int>(std::to_string(summary.points).size());

  // Inputs and answers cached by a module's points (PointContext::cached). An experiment's input is
  // often the next one's: what an experiment used stays for the next, the rest is dropped, and
  // everything goes when the next module starts.
  std::map<std::string, std::any> cache;
  std::set<std::string> used;  // the keys the current experiment asked for
  std::string cache_paper;
  auto drop_cache = [&] {
    cache.clear();
    if (options.gpu) trim_device_pool();
  };
  for (const auto& [e, points] : plan) {
    if (options.resume) {
      const auto kept = kept_result(options, *e, device);
      if (kept && !kept->differs.empty()) {
        std::cout << "== " << e->paper << "/" << e->name << ": not kept (--resume): its earlier results differ in "
                  << kept->differs << "; it runs again\n";
      } else if (kept) {
        std::cout << "== " << e->paper << "/" << e->name << ": kept (--resume): the same run finished it at "
                  << kept->finished << ", " << kept->failed << " failed and " << kept->skipped << " skipped points\n";
        ++summary.kept_experiments;
        summary.failed += kept->failed;
        summary.skipped += kept->skipped;
        if (kept->failed > 0) summary.failures.push_back(e->paper + "/" + e->name + ": " + std::to_string(kept->failed) +
                                                         " points FAILED in the kept earlier run");
        done += static_cast<int>(points.size());
        for (const auto& point : points) done_weight += weight(point);
        continue;
      }
    }
    std::cout << "== " << e->paper << "/" << e->name << " (" << e->figure << "): " << e->description << "\n";
    if (e->paper != cache_paper) {
      drop_cache();
      cache_paper = e->paper;
    }
    used.clear();
    ResultFile file(options, *e, device);
    const std::string started = utc_timestamp();
    int failed_here = 0, skipped_here = 0;
    bool lost = false;
    for (const Point& point : points) {
      std::optional<PointContext> ctx_slot;
      ctx_slot.emplace(point, options, stream ? stream->get() : nullptr, cache, &used);
      std::string error, skip;
      const auto point_start = SteadyClock::now();
      std::size_t peak = 0;
      // A point estimated not to fit is skipped before it runs; one that runs out of memory anyway
      // is skipped when its allocation fails (below).
      const auto need = estimates.find(*e, point);
      if (need && need->device_bytes > 0 && (options.gpu || options.memory_limit_bytes > 0)) {
        const std::uint64_t available = options.memory_limit_bytes ? options.memory_limit_bytes
                                                                 : device_memory_available(need->device_bytes);
        if (need->device_bytes > available)
          skip = "needs about " + format_bytes(need->device_bytes) + " of device memory (the reference run's peak" +
                 (need->scaled ? ", scaled to this size" : "") + "), " + format_bytes(available) +
                 (options.memory_limit_bytes ? " allowed by --memory-limit" : " available");
      }
      // Runs the point once, and once more without the cached values if it ran out of device memory
      // while they were held.
      for (bool retried = false; skip.empty();) {
        try {
          std::optional<DevicePeakScope> scope;
          if (options.gpu) scope.emplace();
          e->run(*ctx_slot);
          if (scope) peak = scope->peak();
        } catch (const SkipPoint& ex) {
          skip = ex.what();
        } catch (const OutOfDeviceMemory& ex) {
          if (!retried && !cache.empty()) {  // the cached values of other points may hold the memory
            retried = true;
            drop_cache();
            ctx_slot.emplace(point, options, stream ? stream->get() : nullptr, cache, &used);
            continue;
          }
          skip = std::string("does not fit the GPU's memory: ") + ex.what();
        } catch (const OutOfHostMemory& ex) {
          skip = std::string("does not fit the host's memory: ") + ex.what();
        } catch (const std::bad_alloc&) {
          skip = "does not fit the host's memory (a host allocation failed)";
        } catch (const std::exception& ex) {
          error = ex.what();
        }
        break;
      }
      const PointContext& ctx = *ctx_slot;
      const bool skipped = !skip.empty();
      const bool verified = !skipped && error.empty() && ctx.verified();
      std::string note = ctx.notes();
      if (skipped) {
        note = "skipped: " + skip;
        ++summary.skipped;
        ++skipped_here;
        summary.skips.push_back(e->paper + "/" + e->name + " " + point.label() + ": " + skip);
      } else if (!verified) {
        std::string why = !error.empty() ? error : !ctx.failure().empty() ? ctx.failure() : "the point was not verified";
        note = note.empty() ? "FAILED: " + why : note + "; FAILED: " + why;
        ++summary.failed;
        ++failed_here;
        summary.failures.push_back(e->paper + "/" + e->name + " " + point.label() + ": " + why);
      }
      file.add(point, ctx, !verified ? "false" : ctx.sampled() ? "sampled" : "true", note,
               options.effective_repetitions(), skipped ? "skipped" : verified ? "ok" : "failed",
               std::chrono::duration<double>(SteadyClock::now() - point_start).count(), peak);

      ++done;
      done_weight += weight(point);
      const double elapsed = std::chrono::duration<double>(SteadyClock::now() - run_start).count();
      const double eta = done_weight > 0 ? elapsed * (total_weight - done_weight) / done_weight : 0;
      std::ostringstream line;
      char counter[32];
      std::snprintf(counter, sizeof counter, "[%*d/%d] ", width, done, summary.points);
      line << counter << e->paper << "/" << e->name << " " << point.label() << ":";
      int shown = 0;
      for (const auto& m : ctx.metrics()) {
        if (shown++ == 4) {
          line << " ...";
          break;
        }
        line << " " << m.name << "=" << number(m.median) << " " << m.unit;
      }
      // The point's wall time, and how much of it built inputs and answers and ran the timed runs.
      line << (skipped ? "  skipped" : verified ? "  ok" : "  FAILED") << "  ("
           << number(std::chrono::duration<double>(SteadyClock::now() - point_start).count()) << " s: inputs "
           << number(ctx.input_seconds()) << ", timed " << number(ctx.timed_seconds()) << "; elapsed "
           << format_duration(elapsed) << ", ETA " << format_duration(eta) << ")";
      std::cout << line.str() << std::endl;
      if (!verified) std::cout << "    " << note << std::endl;
      if (skipped && options.gpu) trim_device_pool();  // what the point did allocate goes back
      if (!error.empty() && options.gpu && context_is_lost()) {
        lost = true;
        break;
      }
    }
    file.finish(options, started, static_cast<int>(points.size()), failed_here, skipped_here);
    if (lost) break;
    for (auto it = cache.begin(); it != cache.end();) it = used.count(it->first) ? std::next(it) : cache.erase(it);
    if (options.gpu) trim_device_pool();
  }
  drop_cache();
  return summary;
}

}  // namespace hashlab::harness
