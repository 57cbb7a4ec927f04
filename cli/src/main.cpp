// The `hashlab` command line: list, run, probe, demo, gen, and the own-data commands groupby,
// join and table (owndata/). One exit status convention for every command (common/exit_status.hpp):
// 0 done; 1 a failed verification, point or run, or a runtime error; 2 a usage or input error (one
// line on stderr); 3 this machine cannot run it (no GPU, too little host or device memory).
#include <boost/program_options.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "hashlab/common/column_io.hpp"
#include "hashlab/common/device.hpp"
#include "hashlab/common/exit_status.hpp"
#include "hashlab/common/generator.hpp"
#include "hashlab/common/host_memory.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/harness/estimates.hpp"
#include "hashlab/harness/experiment.hpp"
#include "hashlab/harness/parse.hpp"
#include "hashlab/harness/probe.hpp"
#include "hashlab/harness/runner.hpp"
#include "hashlab/owndata/columns.hpp"
#include "hashlab/owndata/commands.hpp"
#include "list_json.hpp"

namespace po = boost::program_options;
using namespace hashlab;
using namespace hashlab::harness;

namespace {

/// A usage error: reported as one line, exit status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const char* kUsage =
    "usage: hashlab <command> [options]\n"
    "\n"
    "commands:\n"
    "  list [<paper>]                 papers, their experiments (named after the figures), variants, sizes\n"
    "  run <paper>|all [<experiment>...] [options]\n"
    "                                 run experiments; results/<paper>/<experiment>.csv and .json\n"
    "  probe [--out DIR]              measure the GPU's limits; writes DIR/device.json\n"
    "  demo <paper>                   a small traced example of the paper's algorithm\n"
    "  gen --dist D --n N --out FILE  write a generated key column (.npy or .csv)\n"
    "\n"
    "your own data (.npy or .csv columns; README.md, \"Your own data\"):\n"
    "  groupby --algo A --keys K.. --values V.. --agg sum,min,max,count,mean [--out F] [--verify]\n"
    "  join --algo A --r-keys RK --s-keys SK [--r-values RV] [--s-values SV] [--out F] [--verify]\n"
    "  table --algo A --build KEYS [--values V] --probe QUERIES [--out F] [--verify]\n"
    "\n"
    "Sizes take K, M, G (powers of ten) or Ki, Mi, Gi (powers of two): --n 32Mi, --n 10M.\n"
    "Run 'hashlab <command> --help' for a command's options.\n";

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

/// A seed: a decimal integer from 0 to 2^64 - 1 (program_options would wrap "-1" around).
std::uint64_t parse_seed(const std::string& text) {
  std::uint64_t seed = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seed);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    throw UsageError("--seed " + text + ": a whole number from 0 to 18446744073709551615");
  return seed;
}

void require_paper(const std::string& paper) {
  const auto papers = Registry::instance().papers();
  if (std::find(papers.begin(), papers.end(), paper) == papers.end())
    throw UsageError("unknown paper '" + paper + "' (known: " + join(papers, ", ") + ")");
}

po::variables_map parse(const std::vector<std::string>& args, const po::options_description& options,
                        const po::positional_options_description& positional) {
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(options).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  return vm;
}

std::string describe_sizes(const std::vector<Point>& points) {
  std::vector<std::uint64_t> ns;
  for (const auto& p : points)
    if (std::find(ns.begin(), ns.end(), p.n) == ns.end()) ns.push_back(p.n);
  std::vector<std::string> text;
  for (auto n : ns) text.push_back(format_count(n));
  return join(text, " ");
}

// ---- list -------------------------------------------------------------------------------------

int cmd_list(const std::vector<std::string>& args) {
  po::options_description options("hashlab list [<paper>] [--json]");
  options.add_options()("help,h", "this help")("paper", po::value<std::string>(), "only this paper")
      ("json", "the registry as JSON: modules, experiments, variants, each profile's points and axes, options, "
               "the catalogue's entries");
  po::positional_options_description positional;
  positional.add("paper", 1);
  const auto vm = parse(args, options, positional);
  if (vm.count("help")) {
    std::cout << options;
    return 0;
  }
  auto& registry = Registry::instance();
  std::vector<std::string> papers = registry.papers();
  if (vm.count("paper")) {
    require_paper(vm["paper"].as<std::string>());
    papers = {vm["paper"].as<std::string>()};
  }
  if (vm.count("json")) {
    std::cout << cli::registry_json(papers);
    return 0;
  }
  RunOptions quick, full;
  full.profile = Profile::kFull;
  for (const auto& o : registry.options()) quick.module_options[o.name] = full.module_options[o.name] = o.default_value;
  for (const auto& paper : papers) {
    std::cout << paper << "\n";
    for (const Experiment* e : registry.experiments(paper)) {
      const auto q = e->plan(quick);
      const auto f = e->plan(full);
      std::cout << "  " << e->name << "  [" << e->figure << "]" << (e->needs_gpu ? "" : "  (CPU only)") << "\n"
                << "      " << e->description << "\n"
                << "      variants: " << join(e->variants, ", ") << "\n";
      std::vector<std::string> params;
      for (const auto& p : q)
        if (!p.param_name.empty() && std::find(params.begin(), params.end(), p.param_name) == params.end())
          params.push_back(p.param_name);
      if (!params.empty()) std::cout << "      parameters: " << join(params, ", ") << "\n";
      std::cout << "      quick: " << q.size() << " points, n = " << describe_sizes(q) << "\n"
                << "      full:  " << f.size() << " points, n = " << describe_sizes(f) << "\n";
    }
    if (const Demo* d = registry.demo(paper)) std::cout << "  demo: " << d->description << "\n";
    for (const auto& o : registry.options())
      if (o.paper == paper) std::cout << "  option --" << o.name << " (default " << o.default_value << "): " << o.help << "\n";
  }
  return 0;
}

// ---- run --------------------------------------------------------------------------------------

// Where the committed reference runs (results/reference/<gpu>/) are, first found of:
// $HASHLAB_REFERENCE_DIR; results/reference under the working directory (a checkout, where `make`
// runs); <prefix>/share/hashlab/reference beside an installed program (<prefix>/bin/hashlab).
// No source path is compiled in: a build or an install may be moved.
std::vector<std::filesystem::path> reference_roots() {
  std::vector<std::filesystem::path> roots;
  if (const char* env = std::getenv("HASHLAB_REFERENCE_DIR"); env != nullptr && *env != '\0') roots.emplace_back(env);
  roots.emplace_back(std::filesystem::path("results") / "reference");
  std::error_code error;
  const auto program = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) roots.push_back(program.parent_path().parent_path() / "share" / "hashlab" / "reference");
  return roots;
}

// The reference runs (one folder per GPU, sorted) of the first root that has any.
std::vector<std::filesystem::path> reference_dirs() {
  for (const auto& references : reference_roots()) {
    if (!std::filesystem::is_directory(references)) continue;
    std::vector<std::filesystem::path> gpus;
    for (const auto& entry : std::filesystem::directory_iterator(references))
      if (entry.is_directory()) gpus.push_back(entry.path());
    std::sort(gpus.begin(), gpus.end());
    if (!gpus.empty()) return gpus;
  }
  return {};
}

std::string default_reference_dir() {
  const auto dirs = reference_dirs();
  return dirs.empty() ? std::string() : dirs.front().string();
}

std::string format_seconds(double s) {
  char buf[32];
  if (s < 60) std::snprintf(buf, sizeof buf, "%.1f s", s);
  else std::snprintf(buf, sizeof buf, "%.0f min %02.0f s", std::floor(s / 60), std::fmod(s, 60));
  return buf;
}

// --dry-run: the points, each with its estimated device memory and time (from the reference run,
// scaled in n where the sizes differ), and the totals: points, the peak memory, the time.
void print_plan(const std::vector<const Experiment*>& selected, const RunOptions& run) {
  Estimates estimates(run.reference_dir, run.full());
  int points = 0, unknown = 0, too_big = 0;
  std::uint64_t peak = 0;
  double seconds = 0;
  for (const Experiment* e : selected) {
    const auto plan = e->plan(run);
    std::cout << e->paper << "/" << e->name << " (" << e->figure << "): " << plan.size() << " points"
              << (e->needs_gpu && !run.gpu ? " [needs a GPU: would be skipped]" : "") << "\n";
    for (const auto& p : plan) {
      ++points;
      std::cout << "  " << p.label();
      if (const auto est = estimates.find(*e, p)) {
        peak = std::max<std::uint64_t>(peak, est->device_bytes);
        seconds += est->wall_s;
        std::cout << "  [" << format_bytes(est->device_bytes) << ", " << format_seconds(est->wall_s)
                  << (est->scaled ? ", scaled" : "") << "]";
        if (run.memory_limit_bytes && est->device_bytes > run.memory_limit_bytes) {
          std::cout << "  would be skipped (over --memory-limit)";
          ++too_big;
        }
      } else {
        ++unknown;
        std::cout << "  [no estimate]";
      }
      std::cout << "\n";
    }
  }
  std::cout << "\n" << points << " points; peak device memory about " << format_bytes(peak) << ", time about "
            << format_seconds(seconds) << " (estimated from "
            << (run.reference_dir.empty() ? std::string("no reference run") : run.reference_dir) << "; "
            << unknown << " points without an estimate";
  if (run.memory_limit_bytes) std::cout << "; " << too_big << " over --memory-limit " << format_bytes(run.memory_limit_bytes);
  std::cout << ")\n";
}

int cmd_run(const std::vector<std::string>& args, const std::string& command_line) {
  auto& registry = Registry::instance();
  po::options_description options("hashlab run <paper>|all [<experiment>...] [options]");
  std::vector<std::string> sizes;
  std::string seed_text;
  RunOptions run;
  options.add_options()
      ("help,h", "this help")
      ("quick", "the quick profile: fewer sizes and repetitions, same figure shapes (default)")
      ("full", "the papers' own sizes")
      ("n", po::value<std::vector<std::string>>(&sizes)->multitoken(), "sizes to run instead of the profile's (e.g. 1M 32Mi)")
      ("seed", po::value<std::string>(&seed_text)->default_value("42"), "seed of the data generator")
      ("out", po::value<std::string>(&run.out_dir)->default_value("results"), "output directory")
      ("reps", po::value<int>(&run.repetitions)->default_value(0), "timed repetitions per point (0: 5 quick, 10 full, or 3 and 5 for a run of 250 ms or more)")
      ("warmup", po::value<int>(&run.warmups)->default_value(1), "untimed warm-up runs per point")
      ("dry-run", "print the points that would run, and stop")
      ("strict", "a skipped point (does not fit this machine's memory, or its input is not here) fails the run")
      ("resume", "keep each experiment whose results in --out this revision wrote with the same options and "
                 "device (an interrupted or split run goes on where it stopped); run the others")
      ("memory-limit", po::value<std::string>(), "skip points estimated to need more device memory than this "
                                                 "(e.g. 16GiB: plan for a smaller GPU; default: the GPU's free memory)")
      ("reference", po::value<std::string>(), "the committed run whose per-point memory and time estimate this run's "
                                              "(default: results/reference/<first gpu>/; 'none')")
      ("target", po::value<std::vector<std::string>>()->multitoken(), "paper, then experiments");
  for (const auto& o : registry.options())
    options.add_options()(o.name.c_str(), po::value<std::string>()->default_value(o.default_value),
                          (o.paper + ": " + o.help).c_str());
  po::positional_options_description positional;
  positional.add("target", -1);
  const auto vm = parse(args, options, positional);
  if (vm.count("help")) {
    std::cout << options;
    return 0;
  }
  if (vm.count("quick") && vm.count("full")) throw UsageError("--quick and --full exclude each other");
  run.seed = parse_seed(seed_text);
  run.profile = vm.count("full") ? Profile::kFull : Profile::kQuick;
  run.resume = vm.count("resume") > 0;
  if (run.repetitions < 0)
    throw UsageError("--reps " + std::to_string(run.repetitions) + ": must be >= 0 (0: the profile's, 5 quick, 10 full)");
  if (run.warmups < 0) throw UsageError("--warmup " + std::to_string(run.warmups) + ": must be >= 0 (default 1)");
  for (const auto& s : sizes) {
    try {
      run.sizes.push_back(parse_count(s));
    } catch (const std::invalid_argument& e) {
      throw UsageError("--n " + s + ": " + e.what() + " (sizes like 1M, 32Mi, 1000)");
    }
    // Every experiment reports rates (items / time): a size of 0 has none to report.
    if (run.sizes.back() == 0) throw UsageError("--n " + s + ": sizes must be at least 1");
  }
  for (const auto& o : registry.options()) {
    run.module_options[o.name] = vm[o.name].as<std::string>();
    if (!o.validate) continue;
    try {
      o.validate(run.module_options[o.name]);
    } catch (const std::invalid_argument& e) {
      throw UsageError("--" + o.name + " " + run.module_options[o.name] + ": " + e.what() + " (default " +
                       o.default_value + "; see 'hashlab list " + o.paper + "')");
    }
  }
  run.command_line = command_line;
  if (vm.count("memory-limit")) {
    try {
      run.memory_limit_bytes = parse_bytes(vm["memory-limit"].as<std::string>());
    } catch (const std::invalid_argument& e) {
      throw UsageError("--memory-limit " + vm["memory-limit"].as<std::string>() + ": " + e.what());
    }
  }
  run.reference_dir = vm.count("reference") ? vm["reference"].as<std::string>() : default_reference_dir();
  if (run.reference_dir == "none") run.reference_dir.clear();
  if (!run.reference_dir.empty() && !std::filesystem::is_directory(run.reference_dir))
    throw UsageError("--reference " + run.reference_dir + ": no such folder (a results folder, or 'none')");
  if (std::filesystem::exists(run.out_dir) && !std::filesystem::is_directory(run.out_dir))
    throw UsageError("--out " + run.out_dir + ": a file, not a directory (results go to <out>/<paper>/)");

  if (!vm.count("target")) throw UsageError("run needs a paper (or 'all'); see 'hashlab list'");
  const auto target = vm["target"].as<std::vector<std::string>>();
  std::vector<const Experiment*> selected;
  if (target[0] == "all") {
    if (target.size() > 1) throw UsageError("'run all' takes no experiment names");
    for (const auto& paper : registry.papers())
      for (const Experiment* e : registry.experiments(paper)) selected.push_back(e);
  } else {
    require_paper(target[0]);
    if (target.size() == 1) selected = registry.experiments(target[0]);
    for (std::size_t i = 1; i < target.size(); ++i) {
      const Experiment* e = registry.find(target[0], target[i]);
      if (e == nullptr) {
        std::vector<std::string> names;
        for (const Experiment* x : registry.experiments(target[0])) names.push_back(x->name);
        throw UsageError("paper '" + target[0] + "' has no experiment '" + target[i] + "' (it has: " + join(names, ", ") + ")");
      }
      selected.push_back(e);
    }
  }

  std::string why;
  run.gpu = gpu_available(&why);
  if (vm.count("dry-run")) {
    print_plan(selected, run);
    return 0;
  }
  if (!run.gpu)
    std::cout << "hashlab: no CUDA GPU (" << why << "); running only the experiments that need none\n";
  else
    std::cout << "hashlab: " << device_label() << ", profile " << (run.full() ? "full" : "quick") << ", seed " << run.seed
              << ", results in " << run.out_dir << "/\n";

  const RunSummary summary = run_experiments(selected, run);
  std::cout << "\n" << summary.points << " points, " << summary.failed << " failed, " << summary.skipped
            << " skipped (do not fit this machine, or their input is not here: SKIPPED lines say why)";
  if (summary.skipped_experiments) std::cout << ", " << summary.skipped_experiments << " experiments skipped (no GPU)";
  if (summary.kept_experiments) std::cout << ", " << summary.kept_experiments << " experiments kept from an earlier run (--resume)";
  std::cout << "\n";
  for (const auto& s : summary.skips) std::cout << "SKIPPED " << s << "\n";
  for (const auto& f : summary.failures) std::cout << "FAILED " << f << "\n";
  if (summary.failed > 0) return kExitFailed;
  if (summary.skipped > 0 && vm.count("strict")) {
    std::cout << "hashlab: --strict: " << summary.skipped << " points were skipped\n";
    return kExitFailed;
  }
  return 0;
}

// ---- probe ------------------------------------------------------------------------------------

int cmd_probe(const std::vector<std::string>& args) {
  po::options_description options("hashlab probe [--out DIR]");
  std::string out_dir;
  options.add_options()("help,h", "this help")
      ("out", po::value<std::string>(&out_dir)->default_value("results"), "output directory (writes device.json)");
  const auto vm = parse(args, options, {});
  if (vm.count("help")) {
    std::cout << options;
    return 0;
  }
  std::string why;
  if (!gpu_available(&why)) throw MachineLimit("probe needs a CUDA GPU (" + why + ")");
  std::cout << "probing " << device_label() << " ...\n";
  const DeviceLimits limits = probe_device();
  const std::string path = (std::filesystem::path(out_dir) / "device.json").string();
  write_device_limits(limits, path);
  for (const auto& f : harness::limit_fields())
    std::cout << "  " << f.label << ": " << limits.*f.value << " " << f.unit << "\n";
  for (const auto& a : limits.all_to_all)
    std::cout << "  " << harness::all_to_all_label(a.servers, a.bytes_per_gpu) << ": " << a.gbps_per_gpu << " "
              << harness::kAllToAllUnit << "\n";
  if (limits.all_to_all.empty()) std::cout << "  NCCL all-to-all: not measured (needs 2 or more GPUs and NCCL)\n";
  std::cout << "written to " << path << "\n";
  return 0;
}

// ---- demo -------------------------------------------------------------------------------------

// Without a GPU a demo shows the trace recorded on the GPU of a committed reference run
// (results/reference/<gpu>/logs/demo_<paper>.log), labelled as such, instead of refusing.
int show_recorded_demo(const std::string& paper, const std::string& why) {
  for (const auto& gpu : reference_dirs()) {
    const auto trace = gpu / "logs" / ("demo_" + paper + ".log");
    std::ifstream in(trace);
    if (!in) continue;
    std::string device = gpu.filename().string();
    std::ifstream limits(gpu / "device.json");
    for (std::string line; std::getline(limits, line);) {
      const auto at = line.find("\"device\"");
      if (at == std::string::npos) continue;
      const auto open = line.find('"', line.find(':', at) + 1), close = line.rfind('"');
      if (open != std::string::npos && close > open) device = line.substr(open + 1, close - open - 1);
    }
    std::cout << "[no CUDA GPU here (" << why << "): the " << paper << " demo as recorded on " << device << ", "
              << trace.string() << "]\n\n"
              << in.rdbuf();
    return 0;
  }
  throw MachineLimit("the " + paper + " demo needs a CUDA GPU (" + why +
                     "), and no recorded trace was found (results/reference/<gpu>/logs/ under the working directory, "
                     "$HASHLAB_REFERENCE_DIR, or <prefix>/share/hashlab/reference of an installed hashlab)");
}

int cmd_demo(const std::vector<std::string>& args) {
  po::options_description options("hashlab demo <paper>");
  options.add_options()("help,h", "this help")("paper", po::value<std::string>(), "the paper");
  po::positional_options_description positional;
  positional.add("paper", 1);
  const auto vm = parse(args, options, positional);
  if (vm.count("help")) {
    std::cout << options;
    return 0;
  }
  if (!vm.count("paper")) throw UsageError("demo needs a paper; see 'hashlab list'");
  const std::string paper = vm["paper"].as<std::string>();
  require_paper(paper);
  const Demo* demo = Registry::instance().demo(paper);
  if (demo == nullptr) throw UsageError("paper '" + paper + "' has no demo");
  RunOptions run;
  std::string why;
  run.gpu = gpu_available(&why);
  if (demo->needs_gpu && !run.gpu) return show_recorded_demo(paper, why);
  for (const auto& o : Registry::instance().options()) run.module_options[o.name] = o.default_value;
  return demo->run(run);
}

// ---- gen --------------------------------------------------------------------------------------

int cmd_gen(const std::vector<std::string>& args) {
  po::options_description options("hashlab gen --dist D --n N --out FILE [options]");
  std::string dist, n_text, out, distinct_text, domain_text, seed_text = "42";
  double multiplicity = 0, zipf = 1.0;
  std::uint64_t seed = 42;
  options.add_options()("help,h", "this help")
      ("dist", po::value<std::string>(&dist)->required(), "sequence, shuffled, unique, uniform or zipf")
      ("n", po::value<std::string>(&n_text)->required(), "rows")
      ("distinct", po::value<std::string>(&distinct_text), "uniform/zipf: distinct keys")
      ("multiplicity", po::value<double>(&multiplicity), "uniform: average rows per key (instead of --distinct)")
      ("zipf", po::value<double>(&zipf), "zipf: exponent s (default 1)")
      ("domain", po::value<std::string>(&domain_text), "keys lie in [0, domain) (default 2^32 - 1)")
      ("seed", po::value<std::string>(&seed_text), "seed (default 42)")
      ("out", po::value<std::string>(&out)->required(), "output file, .npy or .csv");
  // gen takes no positional arguments: a stray word is an error that names it.
  po::options_description hidden;
  hidden.add_options()("stray", po::value<std::vector<std::string>>());
  po::options_description all;
  all.add(options).add(hidden);
  po::positional_options_description positional;
  positional.add("stray", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
    if (vm.count("stray"))
      throw UsageError("unexpected argument '" + vm["stray"].as<std::vector<std::string>>()[0] +
                       "' (gen takes only options; see 'hashlab gen --help')");
    if (vm.count("help")) {
      std::cout << options;
      return 0;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(std::string(e.what()) + " (see 'hashlab gen --help')");
  }
  gen::KeySpec spec;
  std::uint64_t n = 0;
  const auto reject = [&](const char* option, const std::string& why) {
    if (!vm.count(option)) return;
    const auto& v = vm[option].value();
    std::ostringstream value;
    if (v.type() == typeid(std::string)) value << boost::any_cast<std::string>(v);
    else if (v.type() == typeid(double)) value << boost::any_cast<double>(v);
    throw UsageError(std::string("--") + option + " " + value.str() + ": " + why);
  };
  // Options that the chosen distribution would ignore, or that contradict each other, are errors:
  // the file must hold what the command line says.
  try {
    n = parse_count(n_text);
    const gen::KeyDistribution d = gen::parse_key_distribution(dist);
    const std::string name = gen::to_string(d);
    const bool sequence = d == gen::KeyDistribution::kSequence || d == gen::KeyDistribution::kShuffledSequence;
    if (sequence) reject("domain", "a " + name + " holds the keys 0..n-1; it takes no --domain");
    if (d != gen::KeyDistribution::kUniform && d != gen::KeyDistribution::kZipf)
      reject("distinct", "--dist " + name + " has no --distinct (uniform and zipf do)");
    if (d != gen::KeyDistribution::kUniform)
      reject("multiplicity", "--dist " + name + " has no --multiplicity (uniform does)");
    if (d != gen::KeyDistribution::kZipf) reject("zipf", "--dist " + name + " has no --zipf exponent (zipf does)");
    if (vm.count("distinct") && vm.count("multiplicity"))
      throw UsageError("--distinct and --multiplicity both set the number of distinct keys: give one");
    const std::uint64_t domain = domain_text.empty() ? gen::kMaxKeyDomain : parse_count(domain_text);
    const std::uint64_t distinct = distinct_text.empty() ? 0 : parse_count(distinct_text);
    if (d == gen::KeyDistribution::kUniform && distinct > n)
      throw UsageError("--distinct " + distinct_text + " is more than --n " + n_text + ": " + format_count(n) +
                       " rows hold at most " + format_count(n) + " distinct keys");
    switch (d) {
      case gen::KeyDistribution::kSequence: spec = gen::KeySpec::sequence(); break;
      case gen::KeyDistribution::kShuffledSequence: spec = gen::KeySpec::shuffled_sequence(); break;
      case gen::KeyDistribution::kUniqueRandom: spec = gen::KeySpec::unique(domain); break;
      case gen::KeyDistribution::kUniform:
        if (vm.count("multiplicity")) spec = gen::KeySpec::multiplicity(n, multiplicity, domain);
        else if (vm.count("distinct")) spec = gen::KeySpec::uniform(distinct, domain);
        else throw std::invalid_argument("uniform keys need --distinct or --multiplicity");
        break;
      case gen::KeyDistribution::kZipf:
        if (!vm.count("distinct")) throw std::invalid_argument("zipf keys need --distinct");
        spec = gen::KeySpec::zipf(distinct, zipf, domain);
        break;
    }
    gen::validate(spec, n);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  seed = parse_seed(seed_text);
  try {
    owndata::check_output_path(out);
  } catch (const owndata::InputError& e) {
    throw UsageError(e.what());
  }
  // The keys, and the random words they are drawn from (uniform, zipf: as many as rows), and
  // zipf's table of distinct keys.
  const bool drawn = spec.distribution == gen::KeyDistribution::kUniform || spec.distribution == gen::KeyDistribution::kZipf;
  const long double need = 4.0L * n + (drawn ? 4.0L * n : 0) +
                           (spec.distribution == gen::KeyDistribution::kZipf ? 8.0L * spec.distinct : 0);
  cpu::require_host_memory(need >= 1.8e19L ? SIZE_MAX : static_cast<std::size_t>(need), "gen --n " + n_text);
  const auto keys = gen::generate_keys_host(spec, seed, n);
  io::write_column(out, "key", keys);
  std::cout << "wrote " << n << " keys (" << spec.describe() << ", seed " << seed << ") to " << out << "\n";
  return 0;
}

// What main says of an error, and the exit status it ends with (exit_status.hpp).
int error(const std::string& what, int status) {
  std::cerr << "hashlab: error: " << what << "\n";
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  Registry::instance().set_module_folders(cli::kModuleFolders);
  std::vector<std::string> args(argv + 1, argv + argc);
  std::ostringstream command_line;
  for (int i = 0; i < argc; ++i) command_line << (i ? " " : "") << argv[i];
  try {
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
      std::cout << kUsage;
      return args.empty() ? kExitUsage : 0;
    }
    if (args[0] == "--version") {
      std::cout << "hashlab " << git_sha() << "\n";
      return 0;
    }
    const std::string command = args[0];
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (command == "list") return cmd_list(rest);
    if (command == "run") return cmd_run(rest, command_line.str());
    if (command == "probe") return cmd_probe(rest);
    if (command == "demo") return cmd_demo(rest);
    if (command == "gen") return cmd_gen(rest);
    if (command == "groupby") return owndata::groupby_command(rest);
    if (command == "join") return owndata::join_command(rest);
    if (command == "table") return owndata::table_command(rest);
    throw UsageError("unknown command '" + command +
                     "' (expected list, run, probe, demo, gen, groupby, join or table)");
  } catch (const owndata::InputError& e) {
    return error(e.what(), kExitUsage);
  } catch (const UsageError& e) {
    return error(std::string(e.what()) + "\nTry 'hashlab --help'.", kExitUsage);
  } catch (const MachineLimit& e) {
    return error(e.what(), kExitMachine);
  } catch (const OutOfHostMemory& e) {
    return error(e.what(), kExitMachine);
  } catch (const OutOfDeviceMemory& e) {
    return error(e.what(), kExitMachine);
  } catch (const std::bad_alloc&) {
    return error("a host allocation failed: the data does not fit this machine's memory", kExitMachine);
  } catch (const std::exception& e) {
    return error(e.what(), kExitFailed);
  }
}
