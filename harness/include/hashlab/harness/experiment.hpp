// The experiment registry: how a paper module (or compare/) declares the experiments that
// reproduce its figures, and what the harness hands each point of a sweep. The harness knows no
// paper by name: modules register themselves from one static initialiser, experiments/register.cpp.
//
//   namespace {
//   const hashlab::harness::Registrar registrar([](hashlab::harness::Registry& r) {
//     r.add_experiment(hashlab::harness::make_experiment(
//         "cuckoo", "fig4_4", "Fig. 4.4", "build and retrieval rates vs N", {"cuckoo_1.25N", "sorted_array"},
//         [](const RunOptions& o, const Variants& v) { return sweep(v, o.pick_sizes({1u << 20}, {1u << 27})); },
//         run_fig4_4));
//     r.add_module({"cuckoo", "Alcantara et al., \"Building an Efficient Hash Table on the GPU\""});
//     r.add_demo({"cuckoo", "12 keys into a 15-slot table, traced", /*needs_gpu=*/false, run_demo});
//   });
//   }
#pragma once

#include <cuda_runtime_api.h>

#include <any>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "hashlab/common/phase_timer.hpp"
#include "hashlab/harness/timing.hpp"

namespace hashlab::harness {

struct DeviceLimits;  // probe.hpp

enum class Profile { kQuick, kFull };

/// What `hashlab run` was asked for; experiments read their sizes and options from it.
struct RunOptions {
  Profile profile = Profile::kQuick;
  std::vector<std::uint64_t> sizes;   // --n: replaces the n axis of every experiment run
  std::uint64_t seed = 42;            // --seed
  std::string out_dir = "results";    // --out
  int repetitions = 0;                // --reps (0: by the profile and the run's length, repetitions_after)
  int warmups = 1;                    // --warmup
  bool gpu = true;                    // a CUDA GPU is present
  std::map<std::string, std::string> module_options;  // options modules registered (--name value)
  std::string command_line;
  /// A committed reference run whose per-point memory and time estimate this run's points
  /// (estimates.hpp); empty: none.
  std::string reference_dir;
  /// --memory-limit: skip points estimated to need more device memory than this (0: the GPU's free
  /// memory). Emulates a smaller GPU for planning; the points that run are not confined to it.
  std::uint64_t memory_limit_bytes = 0;
  /// --resume: keep an experiment whose results in out_dir this revision wrote with the same
  /// profile, sizes, seed, repetitions, warm-ups, module options and device (a long run split over
  /// several sessions, or interrupted); run the others.
  bool resume = false;

  bool full() const { return profile == Profile::kFull; }
  /// The n axis: --n if given, else `full_sizes` or `quick_sizes` by profile.
  std::vector<std::uint64_t> pick_sizes(const std::vector<std::uint64_t>& quick_sizes,
                                        const std::vector<std::uint64_t>& full_sizes) const;
  /// A fixed n (for sweeps over another parameter): the first --n if given, else by profile.
  std::uint64_t pick_size(std::uint64_t quick_size, std::uint64_t full_size) const;
  /// A module option's value as given (or its registered default).
  const std::string& option(const std::string& name) const;
  /// The profile's repetitions, for a run shorter than kLongRunMs: --reps when given, else 5 quick, 10 full.
  int effective_repetitions() const { return repetitions > 0 ? repetitions : (full() ? 10 : 5); }
  /// The timing routine's plan for this run (timing.hpp): --warmup; --reps when given, else 5 quick
  /// and 10 full, or 3 and 5 for a run of at least kLongRunMs (docs/design.md, "Timing").
  TimingPlan timing_plan() const;
  /// The timed repetitions after a warm-up run of `warmup_ms` (negative when no warm-up ran):
  /// timing_plan().repetitions_after(warmup_ms).
  int repetitions_after(double warmup_ms) const { return timing_plan().repetitions_after(warmup_ms); }
  static constexpr double kLongRunMs = 250;
};

/// One point of a sweep: a variant at a size and (optionally) one more swept parameter, a number
/// ("load_factor" 0.8) or a name ("dataset" "voxel ball": a named axis, whose value the result
/// files write as its name).
struct Point {
  std::string variant;
  std::uint64_t n = 0;
  std::string param_name;  // e.g. "load_factor", "multiplicity"; empty when only n is swept
  double param_value = 0;  // the number; on a named axis, the name's position in the axis' list
  std::string param_text = "";  // on a named axis, the value's name; empty on a numeric axis
  std::string label() const;
  /// The parameter's value as the result files write it: its name, or the number.
  std::string value_text() const;
};

/// The points of a plain sweep: every size x every value of `param` x every variant, in that
/// nesting (so a plan visits each size once, and inputs cached per size are built once).
/// Without `param` only the sizes are swept.
std::vector<Point> sweep(const std::vector<std::string>& variants, const std::vector<std::uint64_t>& sizes,
                         const std::string& param = "", const std::vector<double>& values = {0});
/// The same over a named axis: each point's param_text is one of `names`, its param_value the
/// name's position in the list.
std::vector<Point> sweep_named(const std::vector<std::string>& variants, const std::vector<std::uint64_t>& sizes,
                               const std::string& param, const std::vector<std::string>& names);

/// Thrown by a point that cannot run on this machine for a reason of its own (its input data are
/// not there, say): the runner records the point as `skipped`, not FAILED, with what() as the
/// reason, as it does for a point that does not fit the GPU's memory. Say what to do:
///   throw SkipPoint("no TPC-H data at data/tpch/sf1: run make tpch-data SF=1");
class SkipPoint : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One result row of a point (see docs/design.md's result rows).
struct Metric {
  std::string name;   // e.g. "build_time", "build_rate", "restarts"
  double median = 0;
  double min = 0;
  double max = 0;
  std::string unit;   // e.g. "ms", "Gkeys/s", "count"
  int repetitions = 0;  // the timed repetitions behind median, min and max; 0: one measured value
};

/// What the harness hands an experiment for one point: the stream to run on, timing that
/// follows the suite's rules, and where to put results and the verdict.
class PointContext {
 public:
  /// `used` (optional) collects the keys of the cached values this point asked for.
  PointContext(const Point& point, const RunOptions& options, cudaStream_t stream,
               std::map<std::string, std::any>& cache, std::set<std::string>* used = nullptr);

  const Point& point() const { return point_; }
  const RunOptions& options() const { return options_; }
  /// This GPU's measured limits, which the runner found once for the run (an experiment that reads
  /// them says so: Experiment::needs_limits). std::logic_error when the runner handed none.
  const DeviceLimits& limits() const;
  void set_limits(const DeviceLimits* limits) { limits_ = limits; }
  cudaStream_t stream() const { return stream_; }
  std::uint64_t seed() const { return options_.seed; }

  /// Times `run` on the point's stream with CUDA events, by the suite's timing routine
  /// (timing.hpp) with the run's plan (RunOptions::timing_plan): warm-up runs, then as many
  /// repetitions as the plan asks after the last warm-up. `reset` (optional) runs before every
  /// run, untimed (e.g. clearing a table); nothing else is in the timed region.
  Timing time_gpu(const std::function<void(cudaStream_t)>& run,
                  const std::function<void(cudaStream_t)>& reset = {});
  /// The phases of a run, timed with the same warm-ups and repetitions (harness::time_phases).
  std::vector<PhaseTiming> time_phases(const std::function<void(PhaseTimer&, cudaStream_t)>& run,
                                       const std::function<void(cudaStream_t)>& reset = {});
  /// The same for a run that times its phases itself and returns them (the same phases, in the
  /// same order, every run): the servers of servers/ each mark their phases on a PhaseTimer of
  /// their own device's stream, and the run combines them (the slowest server's time per phase).
  std::vector<PhaseTiming> time_measured_phases(const std::function<std::vector<PhaseTime>()>& run,
                                                const std::function<void()>& reset = {});
  /// The same for host code, on the host's steady clock.
  Timing time_host(const std::function<void()>& run, const std::function<void()>& reset = {});
  /// time_gpu or time_host by `clock` (a catalogue entry says which clock its run needs).
  Timing time(Clock clock, const std::function<void(cudaStream_t)>& run,
              const std::function<void(cudaStream_t)>& reset = {});

  /// Adds "<what>_time" (ms) and "<what>_rate" (items / time, in G<item_unit>/s) rows.
  void report_time(const std::string& what, const Timing& timing, double items, const std::string& item_unit);
  /// Adds a row of one measured (not timed) value: median = min = max = value.
  void report_value(const std::string& name, double value, const std::string& unit);
  /// Adds a row of a value measured once per repetition (a load that depends on the sampling's
  /// seed, say): its median, minimum and maximum over `values`, with their count as repetitions.
  void report_values(const std::string& name, const std::vector<double>& values, const std::string& unit);

  /// Records the verdict of comparing this point's output with the CPU reference. Call at least
  /// once per point; any false (or no call at all) makes the point FAILED.
  void verify(bool ok, const std::string& what_failed = "");
  /// The same for a check of a documented sample of the output (the largest inputs): the point is
  /// recorded as `sampled`, not `true` (docs/verdicts.md, rule 5). `how` says what was checked.
  void verify_sampled(bool ok, const std::string& how, const std::string& what_failed = "");
  /// A note for the result row (e.g. "verified on a 1M-row sample").
  void note(const std::string& text);

  /// A value shared by the points that need it (inputs and their reference answers), built once by
  /// `make`. It outlives its experiment when the next experiment of the module uses it too (the
  /// runner keeps what the last experiment used and drops the rest), and it is dropped when the run
  /// moves on to another module, or when a point runs out of device memory while values are held
  /// (the point then runs again without them). So a key must name everything the value depends on
  /// (the generator's spec, n, the seed when it varies, what the answer is of).
  template <class T, class Make>
  T& cached(const std::string& key, Make&& make) {
    if (used_ != nullptr) used_->insert(key);
    auto it = cache_.find(key);
    if (it == cache_.end()) {
      const auto start = std::chrono::steady_clock::now();
      ++making_;
      std::shared_ptr<T> value;
      try {
        value = std::make_shared<T>(make());
      } catch (...) {
        --making_;
        throw;
      }
      if (--making_ == 0) input_seconds_ += seconds_since(start);
      it = cache_.emplace(key, std::move(value)).first;
    }
    return *std::any_cast<std::shared_ptr<T>&>(it->second);
  }
  /// Drops cached values whose key starts with `prefix` (to free memory between sizes).
  void drop_cached(const std::string& prefix);

  // Read by the harness after the point ran.
  const std::vector<Metric>& metrics() const { return metrics_; }
  bool verified() const { return verify_calls_ > 0 && all_ok_; }
  /// Whether any check of this point was a sample rather than the whole output.
  bool sampled() const { return sampled_; }
  const std::string& failure() const { return failure_; }
  const std::string& notes() const { return notes_; }
  /// Where the point's wall time went (the run log shows it): building the values it cached
  /// (inputs, reference answers), and the timed runs with their warm-ups and resets. The rest is
  /// the point's own checks and set-up.
  double input_seconds() const { return input_seconds_; }
  double timed_seconds() const { return timed_seconds_; }

 private:
  static double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  const Point& point_;
  const RunOptions& options_;
  cudaStream_t stream_;
  std::map<std::string, std::any>& cache_;
  std::set<std::string>* used_;
  const DeviceLimits* limits_ = nullptr;
  std::vector<Metric> metrics_;
  int verify_calls_ = 0;
  bool all_ok_ = true;
  bool sampled_ = false;
  std::string failure_;
  std::string notes_;
  int making_ = 0;  // nesting depth of cached() makers (a maker may use cached values itself)
  double input_seconds_ = 0;
  double timed_seconds_ = 0;
};

/// A registered experiment: the figure or table it reproduces and how to sweep it.
struct Experiment {
  std::string paper;          // module name: "cuckoo", "hashgraph", ..., "compare"
  std::string name;           // e.g. "fig4_4"
  // What it reproduces, in the paper's words ("Fig. 4.4", "Section 4.5.1 (failed queries)"), and one
  // line on what it measures whose head, up to the first colon outside parentheses, is short: the
  // figures' titles are "<figure>: <head>", read from the sidecars (plots/hashlab_style.py's title).
  std::string figure;
  std::string description;
  bool needs_gpu = true;
  /// Whether its points read this GPU's measured limits (PointContext::limits): the runner then
  /// finds them once per run (device.json, or the probe) and hands them to every point.
  bool needs_limits = false;
  std::vector<std::string> variants;
  std::function<std::vector<Point>(const RunOptions&)> plan;
  std::function<void(PointContext&)> run;
};

/// An experiment from its parts, so that a module's registration reads as one call per figure.
Experiment make_experiment(std::string paper, std::string name, std::string figure, std::string description,
                           std::vector<std::string> variants,
                           std::function<std::vector<Point>(const RunOptions&)> plan,
                           std::function<void(PointContext&)> run);

/// The variants an experiment declares (what `hashlab list` shows).
using Variants = std::vector<std::string>;
/// The same, for a plan over the declared variants: they are written once, here, and handed to
/// the plan, so `hashlab list` and the points cannot disagree. The plan above remains for the
/// few whose variants depend on the run (e.g. one per bin count of the profile).
Experiment make_experiment(std::string paper, std::string name, std::string figure, std::string description,
                           Variants variants, std::function<std::vector<Point>(const RunOptions&, const Variants&)> plan,
                           std::function<void(PointContext&)> run);

/// A module's small traced example (`hashlab demo <paper>`); returns the exit status.
struct Demo {
  std::string paper;
  std::string description;
  bool needs_gpu = true;
  std::function<int(const RunOptions&)> run;
};

/// A validator for ModuleOption from a module's own RunOptions reader (the reader throws
/// std::invalid_argument on a bad value): `validate_with("cuckoo-hash", hash_option)`.
template <class Reader>
std::function<void(const std::string&)> validate_with(const std::string& name, Reader reader) {
  return [name, reader](const std::string& value) {
    RunOptions o;
    o.module_options[name] = value;
    reader(o);
  };
}

/// An option a module adds to `hashlab run` (e.g. EGA's --gpu-mem-budget).
struct ModuleOption {
  std::string paper;
  std::string name;           // without dashes
  std::string help;
  std::string default_value;
  /// Checks a value before anything runs; throws std::invalid_argument saying what is wrong and
  /// what is accepted (the CLI reports it as a usage error naming the option). Empty: any value.
  std::function<void(const std::string&)> validate;
};

/// A module: its name, what it is (a paper's citation, or what the module compares), and its
/// folder in the source tree ("papers/cuckoo"; the program's build says which).
struct Module {
  std::string name;
  std::string title;
  std::string folder = "";  // set from the build (Registry::set_module_folders)
};

class Registry {
 public:
  static Registry& instance();

  /// A module's title (its register.cpp); a module that registers experiments without one is
  /// titled by its name.
  void add_module(Module module);
  void add_experiment(Experiment experiment);
  void add_demo(Demo demo);
  void add_option(ModuleOption option);
  /// The modules' order and folders, from the program's build (CMakeLists.txt's HASHLAB_MODULES):
  /// (name, folder) pairs. A module not named there comes after them, by name.
  void set_module_folders(const std::vector<std::pair<std::string, std::string>>& folders);

  /// Every module that registered something, in the build's order.
  std::vector<Module> modules() const;
  /// The module called `name` (its name as title when it gave none).
  Module module(const std::string& name) const;
  /// The modules' names, in that order.
  std::vector<std::string> papers() const;
  std::vector<const Experiment*> experiments(const std::string& paper) const;
  const Experiment* find(const std::string& paper, const std::string& name) const;
  const Demo* demo(const std::string& paper) const;
  const std::vector<ModuleOption>& options() const { return options_; }

 private:
  std::vector<Module> modules_;
  std::vector<std::pair<std::string, std::string>> folders_;
  std::vector<std::unique_ptr<Experiment>> experiments_;
  std::vector<Demo> demos_;
  std::vector<ModuleOption> options_;
};

/// Runs `fill(registry)` during static initialisation: one per module (experiments/register.cpp).
struct Registrar {
  explicit Registrar(const std::function<void(Registry&)>& fill) { fill(Registry::instance()); }
};

}  // namespace hashlab::harness
