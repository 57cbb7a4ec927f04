#include "hashlab/owndata/commands.hpp"

#include <boost/program_options.hpp>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <optional>
#include <sstream>

#include "hashlab/common/device.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/cuckoo/cuckoo_table.hpp"
#include "hashlab/harness/parse.hpp"
#include "hashlab/owndata/groupby.hpp"
#include "hashlab/owndata/join.hpp"
#include "hashlab/owndata/table.hpp"

namespace po = boost::program_options;

namespace hashlab::owndata {
namespace {

constexpr int kExitFailed = 1;

/// Options every command takes.
struct Common {
  int reps = 5;
  int warmup = 1;
  bool verify = false;
  std::string out;
};

void add_common(po::options_description& options, Common& common) {
  options.add_options()
      ("out", po::value<std::string>(&common.out), "write the answer here: .csv, or .npy (a record array)")
      ("reps", po::value<int>(&common.reps)->default_value(5), "timed runs (the median is reported)")
      ("warmup", po::value<int>(&common.warmup)->default_value(1), "untimed runs first")
      ("verify", po::bool_switch(&common.verify), "check the answer against the CPU reference");
}

/// Parses `args`; every stray word or bad value is an InputError naming it. false: --help shown.
bool parse(const std::vector<std::string>& args, const po::options_description& options, const char* command) {
  po::options_description all;
  all.add(options);
  all.add_options()("help,h", "this help")("stray", po::value<std::vector<std::string>>());
  po::positional_options_description positional;
  positional.add("stray", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
    if (vm.count("help")) {
      std::cout << options << "\nSee README.md, \"Your own data\".\n";
      return false;
    }
    if (vm.count("stray"))
      throw InputError("unexpected argument '" + vm["stray"].as<std::vector<std::string>>()[0] + "' (see 'hashlab " +
                       command + " --help')");
    po::notify(vm);
  } catch (const po::error& e) {
    throw InputError(std::string(e.what()) + " (see 'hashlab " + command + " --help')");
  }
  return true;
}

void check_common(const Common& c) {
  if (!c.out.empty()) check_output_path(c.out);
  if (c.reps < 1) throw InputError("--reps " + std::to_string(c.reps) + ": at least 1");
  if (c.warmup < 0) throw InputError("--warmup " + std::to_string(c.warmup) + ": at least 0");
}

void require_gpu(const std::string& algo) {
  std::string why;
  if (!gpu_available(&why))
    throw InputError("--algo " + algo + " needs a CUDA GPU (" + why + ")");
}

/// The command's stream: common's Stream with a GPU, the null stream without one (the CPU
/// algorithms ignore it).
class CommandStream {
 public:
  explicit CommandStream(bool gpu) {
    if (gpu) stream_.emplace();
  }
  cudaStream_t get() const { return stream_ ? stream_->get() : nullptr; }

 private:
  std::optional<Stream> stream_;
};

/// Runs `work` warmup + reps times (`before` untimed before each), times each: common's
/// EventTimer on the stream for device work, a host clock for host work. Returns the times in ms.
std::vector<double> time_runs(const Common& c, bool on_host, cudaStream_t stream, const std::function<void()>& before,
                              const std::function<void()>& work) {
  std::vector<double> times;
  std::optional<EventTimer> timer;  // CUDA events exist only with a GPU
  if (!on_host) timer.emplace();
  for (int i = 0; i < c.warmup + c.reps; ++i) {
    before();
    double ms = 0;
    if (on_host) {
      const auto t0 = std::chrono::steady_clock::now();
      work();
      ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    } else {
      timer->start(stream);
      work();
      timer->stop(stream);
      ms = timer->elapsed_ms();
    }
    if (i >= c.warmup) times.push_back(ms);
  }
  return times;
}

/// Prints --verify's outcome ("" is agreement) and returns the exit status it implies; `how` (if
/// any) says how the reference's answer was computed.
int report_verify(const std::string& problem, std::size_t count, const char* what, const std::string& how = "") {
  if (problem.empty()) {
    std::cout << "verify: ok (" << count << " " << what << " equal the CPU reference's" << (how.empty() ? "" : "; ")
              << how << ")\n";
    return 0;
  }
  std::cout << "verify: FAILED: " << problem << "\n";
  return kExitFailed;
}

std::string format_ms(double ms) {
  char text[32];
  std::snprintf(text, sizeof text, ms < 1 ? "%.4f" : ms < 100 ? "%.3f" : "%.1f", ms);
  return text;
}

void print_times(const std::string& what, const std::vector<double>& times, bool on_host) {
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  const double median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  std::cout << what << ": median " << format_ms(median) << " ms of " << n << " runs (min " << format_ms(sorted.front())
            << ", max " << format_ms(sorted.back()) << "; " << (on_host ? "host clock" : "CUDA events") << ")\n";
}

void print_stats(const std::vector<Stat>& stats) {
  std::cout << "stats:";
  for (const auto& s : stats) {
    std::ostringstream v;
    if (s.value == static_cast<double>(static_cast<long long>(s.value))) v << static_cast<long long>(s.value);
    else v << s.value;
    std::cout << " " << s.name << "=" << v.str();
  }
  std::cout << "\n";
}

/// The comma-separated list of --agg, in order.
std::vector<Aggregation> parse_aggs(const std::string& text) {
  std::vector<Aggregation> aggs;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    try {
      aggs.push_back(reference::parse_aggregation(item));
    } catch (const std::invalid_argument& e) {
      throw InputError(std::string("--agg: ") + e.what());
    }
  }
  if (aggs.empty()) throw InputError("--agg: no aggregation named");
  return aggs;
}

/// Runs `body` and turns an allocation that does not fit into a clear error with a way out.
int guarded(const std::function<int()>& body, const std::string& hint) {
  try {
    return body();
  } catch (const OutOfDeviceMemory& e) {
    throw InputError(std::string(e.what()) + "; the data does not fit this GPU's free memory" + hint);
  }
}

}  // namespace

// ---- groupby -------------------------------------------------------------------------------------

int groupby_command(const std::vector<std::string>& args) {
  po::options_description options(
      "hashlab groupby --algo A --keys K.npy [K2.npy ..] --values V.npy [..] --agg sum,min,max,count,mean [options]\n"
      "Columns: .npy files, single-column .csv files, or FILE.csv:COLUMN");
  std::string algo_name, aggs_text = "sum", sampling = "gpu", budget;
  std::vector<std::string> key_files, value_files;
  GroupByOptions go;
  Common common;
  options.add_options()
      ("algo", po::value<std::string>(&algo_name)->required(), "rapids, sp_ega, lphga, mp_ega, sort, hash or cpu")
      ("keys", po::value<std::vector<std::string>>(&key_files)->multitoken()->required(), "key columns (rapids: up to 8; the others: 1)")
      ("values", po::value<std::vector<std::string>>(&value_files)->multitoken()->required(), "value columns")
      ("agg", po::value<std::string>(&aggs_text)->default_value("sum"), "aggregations of every value column")
      ("sampling", po::value<std::string>(&sampling)->default_value("gpu"), "rapids: none, cpu or gpu (the table size's prediction)")
      ("table-factor", po::value<double>(&go.table_factor)->default_value(rapids::kTableFactor), "rapids: slots per predicted group (sampling none: slots per row)")
      ("hash-load", po::value<double>(&go.hash_load)->default_value(0.5), "hash: rows per slot, in (0, 1]")
      ("gpu-memory-budget", po::value<std::string>(&budget), "mp_ega: device memory it may use, e.g. 2Gi (default: 90% of the free memory)")
      ("streams", po::value<int>(&go.streams)->default_value(2), "mp_ega: CUDA streams")
      ("threads", po::value<unsigned>(&go.threads)->default_value(0), "cpu: threads (0: all)");
  add_common(options, common);
  if (!parse(args, options, "groupby")) return 0;
  check_common(common);
  const GroupByAlgo algo = parse_groupby_algo(algo_name);
  go.aggs = parse_aggs(aggs_text);
  if (sampling == "none") go.sampling = rapids::Sampling::kNone;
  else if (sampling == "cpu") go.sampling = rapids::Sampling::kCpu;
  else if (sampling == "gpu") go.sampling = rapids::Sampling::kGpu;
  else throw InputError("--sampling '" + sampling + "': none, cpu or gpu");
  if (!budget.empty()) {
    try {
      go.gpu_memory_budget = harness::parse_bytes(budget);
    } catch (const std::invalid_argument& e) {
      throw InputError(std::string("--gpu-memory-budget: ") + e.what());
    }
  }
  GroupByInput input;
  ColumnReader reader;  // a CSV named by several FILE.csv:COLUMN sources is parsed once
  for (const auto& f : key_files) input.keys.push_back(reader.key_column(f));
  for (const auto& f : value_files) input.values.push_back(reader.value_column(f));
  check_groupby(algo, input, go);
  if (needs_gpu(algo)) require_gpu(algo_name);

  return guarded([&] {
    CommandStream stream(needs_gpu(algo));
    auto g = make_groupby(algo, input, go, stream.get());
    std::cout << "groupby: " << to_string(algo) << " (" << describe(algo) << ")\n"
              << "input: " << input.rows() << " rows, " << input.keys.size() << " key column(s), "
              << input.values.size() << " value column(s), aggregations " << aggs_text << "\n";
    const auto times = time_runs(common, g->on_host(), stream.get(), [&] { g->prepare(stream.get()); },
                                 [&] { g->run(stream.get()); });
    print_times("time", times, g->on_host());
    print_stats(g->stats());
    const reference::GroupByResult got = g->result(stream.get());
    const auto names = output_names(input, go);
    // Above 2^20 rows the reference's answer is computed by sorting on all cores (equal to the
    // single-threaded reference bit for bit, which takes minutes at 10^8 rows).
    int status = 0;
    if (common.verify) {
      std::string how;
      const auto expected = oracle_groupby(input, go, &how);
      status = report_verify(reference::compare(expected, got, 1e-9), got.groups(), "groups", how);
    }
    if (!common.out.empty()) {
      write_table(common.out, to_output(got, names));
      std::cout << "wrote " << got.groups() << " groups (" << names.size() << " columns) to " << common.out << "\n";
    }
    return status;
  }, algo == GroupByAlgo::kMpEga ? " (lower --gpu-memory-budget)" : " (--algo mp_ega works within a memory budget)");
}

// ---- join ----------------------------------------------------------------------------------------

int join_command(const std::vector<std::string>& args) {
  po::options_description options(
      "hashlab join --algo A --r-keys RK.npy [--r-values RV.npy] --s-keys SK.npy [--s-values SV.npy] [options]\n"
      "A Pk-Pk join: keys unique within each table. Values default to row numbers.\n"
      "Output rows: key, R's value, S's value, sorted by key");
  std::string algo_name, rk, rv, sk, sv;
  Common common;
  options.add_options()
      ("algo", po::value<std::string>(&algo_name)->required(), "bsp, sort, hash, hashgraph or cpu")
      ("r-keys", po::value<std::string>(&rk)->required(), "R's key column")
      ("r-values", po::value<std::string>(&rv), "R's values (unsigned 32-bit; default: row numbers)")
      ("s-keys", po::value<std::string>(&sk)->required(), "S's key column")
      ("s-values", po::value<std::string>(&sv), "S's values (unsigned 32-bit; default: row numbers)");
  add_common(options, common);
  if (!parse(args, options, "join")) return 0;
  check_common(common);
  const JoinAlgo algo = parse_join_algo(algo_name);
  JoinInput input;
  ColumnReader reader;
  const auto table = [&reader](const std::string& keys, const std::string& values, const char* row_name) {
    JoinTable t;
    t.keys = reader.key_column(keys);
    t.values = values.empty() ? row_numbers(t.keys.data.size(), row_name) : reader.key_column(values);
    return t;
  };
  input.r = table(rk, rv, "r_row");
  input.s = table(sk, sv, "s_row");
  check_join(algo, input);
  if (algo != JoinAlgo::kCpu) require_gpu(algo_name);
  return guarded([&] {
    CommandStream stream(algo != JoinAlgo::kCpu);
    auto j = make_join(algo, input, stream.get());
    std::cout << "join: " << to_string(algo) << " (" << describe(algo) << ")\n"
              << "input: R " << input.r.keys.data.size() << " rows, S " << input.s.keys.data.size() << " rows\n";
    const auto times = time_runs(common, j->on_host(), stream.get(), [] {}, [&] { j->run(stream.get()); });
    print_times("time", times, j->on_host());
    print_stats(j->stats());
    const auto rows = j->result(stream.get());
    // Above 2^20 rows a table the answer is the sort-merge join on all cores (pkpk::oracle_join).
    int status = 0;
    if (common.verify) {
      std::string how;
      const auto expected = oracle_join(input, &how);
      status = report_verify(compare_rows(expected, rows), rows.size(), "rows", how);
    }
    if (!common.out.empty()) {
      std::vector<OutputColumn> out(3);
      out[0].name = "key";
      out[1].name = input.r.values.name;
      out[2].name = input.s.values.name;
      if (out[1].name == out[2].name) {
        out[1].name = "r_" + out[1].name;
        out[2].name = "s_" + out[2].name;
      }
      for (auto& c : out) c.type = OutputColumn::Type::kUint32;
      for (const auto& r : rows) {
        out[0].u32.push_back(r.key);
        out[1].u32.push_back(r.value1);
        out[2].u32.push_back(r.value2);
      }
      write_table(common.out, out);
      std::cout << "wrote " << rows.size() << " rows to " << common.out << "\n";
    }
    return status;
  }, "");
}

// ---- table ---------------------------------------------------------------------------------------

int table_command(const std::vector<std::string>& args) {
  po::options_description options(
      "hashlab table --algo A --build KEYS.npy [--values V.npy] --probe QUERIES.npy [options]\n"
      "Per query: count (build rows with its key) and value (the smallest of their values; 0 if none).\n"
      "Values default to row numbers, so `value` is then the key's row in the build file");
  std::string algo_name, build, values, probe;
  TableOptions to;
  Common common;
  options.add_options()
      ("algo", po::value<std::string>(&algo_name)->required(), "cuckoo, hashgraph, linear_probing or sorted_array")
      ("build", po::value<std::string>(&build)->required(), "the keys to build from")
      ("values", po::value<std::string>(&values), "their values (unsigned 32-bit; default: row numbers)")
      ("probe", po::value<std::string>(&probe)->required(), "the query keys")
      ("load", po::value<double>(&to.load)->default_value(0), "keys per slot (0: the table's default; hashgraph: keys per vertex)")
      ("cuckoo-functions", po::value<int>(&to.cuckoo_functions)->default_value(4), "cuckoo: hash functions, 2 to 5");
  add_common(options, common);
  if (!parse(args, options, "table")) return 0;
  check_common(common);
  const TableAlgo algo = parse_table_algo(algo_name);
  TableInput input;
  ColumnReader reader;
  input.keys = reader.key_column(build);
  input.values = values.empty() ? row_numbers(input.keys.data.size(), "row") : reader.key_column(values);
  input.queries = reader.key_column(probe);
  check_table(algo, input, to);
  require_gpu(algo_name);
  return guarded([&] {
    CommandStream stream(true);
    auto t = make_table(algo, input, to, stream.get());
    std::cout << "table: " << to_string(algo) << " (" << describe(algo) << ")\n"
              << "input: " << input.keys.data.size() << " keys, " << input.queries.data.size() << " queries\n";
    std::vector<double> build_times;
    try {
      build_times = time_runs(common, false, stream.get(), [] {}, [&] { t->build(stream.get()); });
    } catch (const cuckoo::BuildFailure& e) {
      // An outcome, not a crash: at this load the chapter's construction gives up.
      std::cout << "build: failed: " << e.what() << " (a lower --load or more --cuckoo-functions builds it)\n";
      return kExitFailed;
    }
    const auto probe_times = time_runs(common, false, stream.get(), [] {}, [&] { t->probe(stream.get()); });
    print_times("build", build_times, false);
    print_times("probe", probe_times, false);
    print_stats(t->stats());
    const Lookup got = t->result(stream.get());
    const int status =
        common.verify ? report_verify(compare_lookup(reference_lookup(input), got, input), got.count.size(), "answers")
                      : 0;
    if (!common.out.empty()) {
      std::vector<OutputColumn> out(2);
      out[0].name = "count";
      out[1].name = "value";
      for (auto& c : out) c.type = OutputColumn::Type::kUint32;
      out[0].u32 = got.count;
      out[1].u32 = got.value;
      write_table(common.out, out);
      std::cout << "wrote " << got.count.size() << " answers to " << common.out << "\n";
    }
    return status;
  }, "");
}

}  // namespace hashlab::owndata
