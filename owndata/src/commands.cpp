// The own-data commands (commands.hpp) on the catalogue: the user's files as the catalogue's
// columns, the entry's own checks, the suite's timing routine, the references' answers for
// --verify, and the answer written with --out.
#include "hashlab/owndata/commands.hpp"

#include <boost/program_options.hpp>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <iostream>
#include <optional>
#include <sstream>

#include "hashlab/catalogue/across_servers.hpp"
#include "hashlab/catalogue/catalogue.hpp"
#include "hashlab/common/device.hpp"
#include "hashlab/common/exit_status.hpp"
#include "hashlab/common/host_memory.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/cuckoo/cuckoo_table.hpp"
#include "hashlab/harness/timing.hpp"
#include "hashlab/owndata/columns.hpp"
#include "hashlab/servers/group.hpp"

namespace po = boost::program_options;

namespace hashlab::owndata {
namespace {

/// Options every command takes.
struct Common {
  int reps = 5;
  int warmup = 1;
  bool verify = false;
  std::string out;
  std::vector<std::string> options;  // --option NAME=VALUE
};

void add_common(po::options_description& options, Common& common) {
  options.add_options()
      ("out", po::value<std::string>(&common.out), "write the answer here: .csv, or .npy (a record array)")
      ("reps", po::value<int>(&common.reps)->default_value(5), "timed runs (the median is reported)")
      ("warmup", po::value<int>(&common.warmup)->default_value(1), "untimed runs first")
      ("verify", po::bool_switch(&common.verify), "check the answer against the CPU reference")
      ("option", po::value<std::vector<std::string>>(&common.options)->composing(),
       "NAME=VALUE: an option of the algorithm (--algo A --help lists them); repeatable");
}

/// Parses `args`; every stray word or bad value is an InputError naming it. Returns the parsed
/// map, or nullopt when --help was shown.
std::optional<po::variables_map> parse(const std::vector<std::string>& args, const po::options_description& options,
                                       const char* command) {
  po::options_description all;
  all.add(options);
  all.add_options()("help,h", "this help")("stray", po::value<std::vector<std::string>>());
  po::positional_options_description positional;
  positional.add("stray", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
    if (vm.count("help")) return vm;
    if (vm.count("stray"))
      throw InputError("unexpected argument '" + vm["stray"].as<std::vector<std::string>>()[0] + "' (see 'hashlab " +
                       command + " --help')");
    po::notify(vm);
  } catch (const po::error& e) {
    throw InputError(std::string(e.what()) + " (see 'hashlab " + command + " --help')");
  }
  return vm;
}

/// --help: the command's options, and with --algo the entry's own options and statistics.
template <class Entry>
void print_help(const po::options_description& options, const Entry* entry) {
  std::cout << options << "\n";
  if (entry != nullptr) {
    std::cout << entry->name << ": " << entry->description << (entry->needs_gpu ? "" : " (no GPU needed)") << "\n";
    if (!entry->options.empty()) std::cout << "options (--option NAME=VALUE):\n";
    for (const auto& o : entry->options)
      std::cout << "  " << o.name << " (default " << o.default_value << "): " << o.help << "\n";
    std::cout << "statistics:\n";
    for (const auto& s : entry->statistics)
      std::cout << "  " << s.name << (s.array ? "[]" : "") << " (" << s.unit << "): " << s.description << "\n";
  }
  std::cout << "See README.md, \"Your own data\".\n";
}

/// The options, the input files' existence and the output (never one of the inputs), checked
/// before anything is read.
void check_common(const Common& c, const std::vector<std::string>& sources) {
  if (c.reps < 1) throw InputError("--reps " + std::to_string(c.reps) + ": at least 1");
  if (c.warmup < 0) throw InputError("--warmup " + std::to_string(c.warmup) + ": at least 0");
  for (const auto& s : sources) check_source(s);
  if (!c.out.empty()) check_output_path(c.out, sources);
}

/// Refuses a source named twice in one list (--keys k.npy k.npy).
void refuse_repeats(const std::vector<std::string>& sources, const char* option) {
  for (std::size_t i = 0; i < sources.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (sources[i] == sources[j]) throw InputError(std::string(option) + " names " + sources[i] + " twice");
}

/// The host memory the command needs before it reads its columns: what the reader takes of each
/// column, plus `rows` times `bytes_per_row` for what the algorithm and --verify copy. Throws
/// OutOfHostMemory (exit status 3) with both figures when it does not fit.
void check_host_memory(const std::vector<std::string>& key_sources, const std::vector<std::string>& value_sources,
                       std::size_t bytes_per_row, const std::string& what) {
  std::size_t columns = 0, rows = 0;
  for (const auto& s : key_sources) {
    columns += bytes_to_read(s, true);
    rows = std::max(rows, estimated_rows(s));
  }
  for (const auto& s : value_sources) {
    columns += bytes_to_read(s, false);
    rows = std::max(rows, estimated_rows(s));
  }
  cpu::require_host_memory(columns + rows * bytes_per_row, what + " (" + std::to_string(rows) + " rows)");
}

// ---- what a command takes of the host's memory, per row, beyond its columns as read ----------
// From the code, and checked against the peak resident memory of the CPU algorithms at 8M rows
// (/usr/bin/time -v: a group-by of 1000 groups took its columns and 1 byte a row more; --verify
// 28 more with one aggregation, 92 with five). The groups' own arrays come on top: they depend on
// the number of groups, which only the run finds (5M groups of 8M rows took 28 bytes a row more).

std::size_t groupby_host_bytes_per_row(const std::string& algo, std::size_t key_columns, std::size_t value_columns,
                                       std::size_t aggs, bool verify) {
  std::size_t bytes = 0;
  // The keys side by side, the value matrix (a column per aggregation), the values as int32.
  if (algo == "rapids") bytes = 4 * key_columns + 4 * value_columns + 8 * value_columns * aggs;
  else if (algo == "mp_ega") bytes = 4 * value_columns + 28;  // and the pinned tiles, merged rows, groups
  else if (algo == "cpu_stl") bytes = 4 * key_columns + 8 * aggs;  // a copy of the keys and the values per aggregation
  else if (algo != "cpu") bytes = 4 * value_columns;  // the values as uint32
  // --verify: the reference copies the keys and, one value column at a time, its values per
  // aggregation, and sorts them above 2^20 rows.
  if (verify) bytes += 4 * key_columns + 16 * aggs + 8;
  return bytes;
}

std::size_t join_host_bytes_per_row(const std::string& algo, bool r_row_numbers, bool s_row_numbers, bool verify) {
  std::size_t bytes = 4 * (r_row_numbers + s_row_numbers);
  bytes += algo == "cpu_join" ? 28 : 0;  // the CPU join's partitions (25 bytes a row at 8M x 8M)
  if (verify) bytes += 8;
  return bytes;
}

std::size_t table_host_bytes_per_row(bool row_numbers, bool verify) {
  return 4 * row_numbers + 8 + (verify ? 16 : 0);  // the answers (count, value), the reference's
}

/// A join's output names: key, R's value, S's value; prefixed r_ and s_ when R's and S's are alike
/// or one is "key".
std::vector<std::string> join_output_names(const KeyColumn& r_values, const KeyColumn& s_values) {
  std::string r = r_values.name, s = s_values.name;
  if (r == s || r == "key" || s == "key") {
    r = "r_" + r;
    s = "s_" + s;
  }
  std::vector<std::string> names = {"key", r, s};
  check_output_names(names, {"", "R's values, " + r_values.source, "S's values, " + s_values.source});
  return names;
}

/// The entry's options from --option NAME=VALUE, and from the command's own flags (`flags`: flag
/// name -> option name) when given.
catalogue::Options entry_options(const Common& common, const po::variables_map& vm,
                                 const std::vector<std::pair<const char*, const char*>>& flags) {
  catalogue::Options options;
  for (const auto& [flag, name] : flags)
    if (vm.count(flag) && !vm[flag].defaulted()) options[name] = vm[flag].as<std::string>();
  for (const auto& text : common.options) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0) throw InputError("--option " + text + ": NAME=VALUE");
    options[text.substr(0, eq)] = text.substr(eq + 1);
  }
  return options;
}

/// Refuses, before anything is read, an option the entry does not take, by the flag the user gave
/// (`flags`: flag name -> option name) or by its name (--option NAME=VALUE).
template <class Entry>
void refuse_options_not_taken(const Entry& entry, const catalogue::Options& given,
                              const std::vector<std::pair<const char*, const char*>>& flags) {
  std::string takes;
  for (const auto& o : entry.options) takes += (takes.empty() ? "" : ", ") + o.name;
  for (const auto& [name, value] : given) {
    const bool taken = std::any_of(entry.options.begin(), entry.options.end(), [&](const auto& o) { return o.name == name; });
    if (taken) continue;
    std::string as = "--option " + name;
    for (const auto& [flag, option] : flags)
      if (name == option) as = std::string("--") + flag;
    throw InputError(as + " does not apply to --algo " + entry.name + " (" +
                     (takes.empty() ? std::string("it takes no option") : "it takes: " + takes) + ")");
  }
}

/// The entry called `name` (find: the catalogue's lookup); an unknown name is the user's error.
template <class Find>
auto find_entry(const std::string& name, Find find) -> decltype(&find(name)) {
  try {
    return &find(name);
  } catch (const std::invalid_argument& e) {
    throw InputError(e.what());
  }
}

/// Runs the entry's check; a refusal is the user's input error (exit status 2), naming an option
/// by the flag the user gave (`flags`: flag name -> option name: --table-factor, not table_factor).
template <class Check>
void check_input(Check&& check, const std::vector<std::pair<const char*, const char*>>& flags = {}) {
  try {
    check();
  } catch (const std::invalid_argument& e) {
    std::string what = e.what();
    for (const auto& [flag, option] : flags) {
      const std::string as_option = std::string("--") + option + " ", as_flag = std::string("--") + flag + " ";
      for (auto at = what.find(as_option); at != std::string::npos; at = what.find(as_option, at + as_flag.size()))
        what.replace(at, as_option.size(), as_flag);
    }
    throw InputError(what);
  }
}

void require_gpu(const std::string& algo) {
  std::string why;
  if (!gpu_available(&why))
    throw MachineLimit("--algo " + algo + " needs a CUDA GPU (" + why + "); the CPU algorithms run without one");
}

/// The command's stream: a Stream with a GPU, the null stream without one (the CPU algorithms
/// ignore it).
class CommandStream {
 public:
  explicit CommandStream(bool gpu) {
    if (gpu) stream_.emplace();
  }
  cudaStream_t get() const { return stream_ ? stream_->get() : nullptr; }

 private:
  std::optional<Stream> stream_;
};

harness::TimingPlan plan_of(const Common& c) {
  harness::TimingPlan plan;
  plan.warmups = c.warmup;
  plan.repetitions = c.reps;
  return plan;
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
  return hashlab::kExitFailed;
}

std::string format_ms(double ms) {
  char text[32];
  std::snprintf(text, sizeof text, ms < 1 ? "%.4f" : ms < 100 ? "%.3f" : "%.1f", ms);
  return text;
}

void print_time(const std::string& what, const harness::Timing& t, harness::Clock clock) {
  std::cout << what << ": median " << format_ms(t.median_ms) << " ms of " << t.repetitions << " runs (min "
            << format_ms(t.min_ms) << ", max " << format_ms(t.max_ms) << "; " << harness::to_string(clock) << ")\n";
}

std::string format_number(double value) {
  std::ostringstream v;
  if (value == static_cast<double>(static_cast<long long>(value))) v << static_cast<long long>(value);
  else v << value;
  return v.str();
}

/// The statistics (numbers, and each array's length) and the warnings of the last run.
void print_statistics(const catalogue::Statistics& s, const std::vector<std::string>& warnings) {
  std::cout << "stats:";
  for (const auto& n : s.numbers) std::cout << " " << n.name << "=" << format_number(n.value);
  for (const auto& a : s.arrays) std::cout << " " << a.name << "[" << a.values.size() << "]";
  std::cout << "\n";
  for (const auto& w : warnings) std::cout << "warning: " << w << "\n";
}

/// The comma-separated list of --agg, in order; each aggregation once.
std::vector<catalogue::Aggregation> parse_aggs(const std::string& text) {
  std::vector<catalogue::Aggregation> aggs;
  std::vector<std::string> names;
  std::size_t start = 0;
  while (true) {
    const auto comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty()) throw InputError("--agg '" + text + "': an empty name between commas (e.g. --agg sum,count)");
    try {
      aggs.push_back(reference::parse_aggregation(item));
    } catch (const std::invalid_argument& e) {
      throw InputError(std::string("--agg: ") + e.what());
    }
    if (std::find(names.begin(), names.end(), item) != names.end())
      throw InputError("--agg '" + text + "' names " + item + " twice (each output column once)");
    names.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return aggs;
}

/// Runs `body` and turns an allocation that does not fit into a clear error with a way out; an
/// entry that refuses its input only once it sees it on the device (a key it reserves) is the
/// user's input error too.
int guarded(const std::function<int()>& body, const std::string& hint) {
  try {
    return body();
  } catch (const OutOfDeviceMemory& e) {
    throw MachineLimit(std::string(e.what()) + "; the data does not fit this GPU's free memory" + hint);
  } catch (const std::invalid_argument& e) {
    throw InputError(e.what());
  }
}

/// A group-by's answer as output columns (keys uint32, exact aggregates int64, real ones float64).
std::vector<OutputColumn> to_output(const reference::GroupByResult& result, const std::vector<std::string>& names) {
  std::vector<OutputColumn> out;
  std::size_t n = 0;
  for (const auto& k : result.keys) {
    OutputColumn c;
    c.name = names.at(n++);
    c.type = OutputColumn::Type::kUint32;
    c.u32 = k;
    out.push_back(std::move(c));
  }
  for (const auto& a : result.aggregates) {
    OutputColumn c;
    c.name = names.at(n++);
    if (a.is_exact()) {
      c.type = OutputColumn::Type::kInt64;
      c.i64 = a.exact;
    } else {
      c.type = OutputColumn::Type::kFloat64;
      c.f64 = a.real;
    }
    out.push_back(std::move(c));
  }
  return out;
}

OutputColumn uint32_column(std::string name, std::vector<std::uint32_t> values) {
  OutputColumn c;
  c.name = std::move(name);
  c.type = OutputColumn::Type::kUint32;
  c.u32 = std::move(values);
  return c;
}

// ---- across GPU servers (--gpus) -------------------------------------------------------------------

/// --gpus and the options that choose how the servers run (the gpu_servers module's names).
struct ServersFlags {
  std::string gpus;                 // not given: one GPU, no servers
  std::string share_gpu = "no";     // --servers-share-gpu yes|no
  std::string backend = "nccl";     // --servers-backend nccl|local
};

void add_servers_flags(po::options_description& options, ServersFlags& flags, const char* what) {
  options.add_options()
      ("gpus", po::value<std::string>(&flags.gpus),
       (std::string("N: run across N GPU servers (each table's rows split evenly among them, then ") + what +
        "); the algorithms that run across servers are listed under --algo")
           .c_str())
      ("servers-share-gpu", po::value<std::string>(&flags.share_gpu)->default_value("no"),
       "with --gpus larger than this host's GPU count: yes runs the servers sharing its GPUs, in this process "
       "(a test of the code, or teaching: the time is one GPU's work, not N GPUs'); no: refused")
      ("servers-backend", po::value<std::string>(&flags.backend)->default_value("nccl"),
       "with --gpus: nccl (one GPU per server) or local (the servers in this process, copying between their "
       "buffers)");
}

/// The servers asked for: their count (0 without --gpus), refusing, before anything is read, a
/// bad count, a servers option without --gpus, and an algorithm that does not run across servers
/// (`across`: those that do).
int parse_servers_flags(const ServersFlags& flags, const po::variables_map& vm, const std::string& algo,
                        const std::vector<std::string>& across, const std::vector<const char*>& only_with_gpus) {
  if (!vm.count("gpus")) {
    for (const char* flag : only_with_gpus)
      if (vm.count(flag) && !vm[flag].defaulted())
        throw InputError(std::string("--") + flag + " applies with --gpus (the algorithm across GPU servers)");
    return 0;
  }
  int servers = 0;
  try {
    servers = servers::parse_server_count(flags.gpus);
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("--gpus: ") + e.what());
  }
  try {
    servers::parse_backend(flags.backend);
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("--servers-backend: ") + e.what());
  }
  if (flags.share_gpu != "yes" && flags.share_gpu != "no")
    throw InputError("--servers-share-gpu takes yes or no, got '" + flags.share_gpu + "'");
  if (std::find(across.begin(), across.end(), algo) == across.end()) {
    std::string those;
    for (const auto& a : across) those += (those.empty() ? "" : ", ") + a;
    throw InputError("--gpus: --algo " + algo + " does not run across GPU servers (those that do: " + those + ")");
  }
  return servers;
}

/// The group for `servers` servers on this host, or MachineLimit (exit status 3) with the counts
/// and the way out: more servers than GPUs without --servers-share-gpu yes, no GPU at all, no
/// NCCL in this build for the nccl backend. With more servers than GPUs they share the GPUs on
/// the local backend, as the gpu_servers experiments' --servers-share-gpu yes does.
servers::GroupOptions servers_group(const ServersFlags& flags, int servers, const std::string& algo) {
  require_gpu(algo);
  const int gpus = servers::device_count();
  servers::GroupOptions group{servers, servers::parse_backend(flags.backend), {}};
  if (servers > gpus) {
    if (flags.share_gpu != "yes")
      throw MachineLimit("--gpus " + std::to_string(servers) + ": this host has " + std::to_string(gpus) + " GPU" +
                         (gpus == 1 ? "" : "s") + " (--servers-share-gpu yes runs " + std::to_string(servers) +
                         " servers sharing them: a test of the code, not a scaling measurement)");
    group.backend = servers::Backend::kLocal;
  }
  if (group.backend == servers::Backend::kNccl && !servers::nccl_built())
    throw MachineLimit("--gpus: this build has no NCCL (--servers-backend local runs the servers in this process)");
  return group;
}

/// "servers: 4 (nccl, GPU 0 1 2 3)", and a note when servers share a GPU.
void print_servers(const servers::ServerGroup& group) {
  std::cout << "servers: " << group.size() << " (" << servers::to_string(group.backend()) << ", GPU";
  for (const int d : group.devices()) std::cout << " " << d;
  std::cout << ")\n";
  if (group.shares_devices())
    std::cout << "note: the servers share GPUs: the time measures one GPU's work, not " << group.size() << " GPUs'\n";
}

/// The fullest server's load against the mean (the MPC model's measure) as statistics.
void add_loads(catalogue::Statistics& s, const std::vector<std::uint64_t>& loads, const char* unit) {
  const servers::LoadBalance b = servers::load_balance(loads);
  s.numbers.push_back({"max_load", static_cast<double>(b.fullest), unit});
  s.numbers.push_back({"load_ratio", b.fullest_over_mean(), "max/mean"});
  catalogue::Array a{"loads", {}, unit};
  for (const auto l : loads) a.values.push_back(static_cast<double>(l));
  s.arrays.push_back(std::move(a));
}

/// The servers' warnings, each once, naming the servers that gave it.
std::vector<std::string> servers_warnings(const std::vector<std::vector<std::string>>& per_server) {
  std::vector<std::string> out;
  std::vector<std::string> seen;
  for (std::size_t d = 0; d < per_server.size(); ++d)
    for (const auto& w : per_server[d]) {
      if (std::find(seen.begin(), seen.end(), w) != seen.end()) continue;
      seen.push_back(w);
      std::string who;
      for (std::size_t e = d; e < per_server.size(); ++e)
        if (std::find(per_server[e].begin(), per_server[e].end(), w) != per_server[e].end())
          who += (who.empty() ? "" : ", ") + std::to_string(e);
      out.push_back((who.find(',') == std::string::npos ? "server " : "servers ") + who + ": " + w);
    }
  return out;
}

}  // namespace

// ---- groupby -------------------------------------------------------------------------------------

int groupby_command(const std::vector<std::string>& args) {
  po::options_description options(
      "hashlab groupby --algo A --keys K.npy [K2.npy ..] --values V.npy [..] --agg sum,min,max,count,mean [options]\n"
      "Columns: .npy files, single-column .csv files, or FILE.csv:COLUMN");
  std::string algo_name, aggs_text = "sum";
  std::vector<std::string> key_files, value_files;
  Common common;
  options.add_options()
      ("algo", po::value<std::string>(&algo_name)->required(), "rapids, sp_ega, lphga, mp_ega, sort, hash, cpu or cpu_stl (with --gpus: rapids, sp_ega, lphga, sort or hash)")
      ("keys", po::value<std::vector<std::string>>(&key_files)->multitoken()->required(), "key columns (rapids: up to 8; cpu_stl: any; the others: 1)")
      ("values", po::value<std::vector<std::string>>(&value_files)->multitoken()->required(), "value columns")
      ("agg", po::value<std::string>(&aggs_text)->default_value("sum"), "aggregations of every value column")
      ("sampling", po::value<std::string>(), "rapids: none, cpu or gpu (the table size's prediction; default gpu)")
      ("table-factor", po::value<std::string>(), "rapids: slots per predicted group (sampling none: per row; default 2.6)")
      ("hash-load", po::value<std::string>(), "hash: rows per slot, in (0, 1] (default 0.5)")
      ("gpu-memory-budget", po::value<std::string>(), "mp_ega: device memory it may use, e.g. 2Gi (default: 90% of the free memory)")
      ("streams", po::value<std::string>(), "mp_ega: CUDA streams (default 2)")
      ("threads", po::value<std::string>(), "cpu: threads (default 0: all)")
      ("pre-aggregation", po::value<std::string>()->default_value("auto"),
       "with --gpus: auto (each server groups its own rows first when the RAPIDS estimator finds few groups), always "
       "or never");
  ServersFlags servers_flags;
  add_servers_flags(options, servers_flags, "every group's rows sent to one server, which runs --algo on them");
  add_common(options, common);
  const auto vm = parse(args, options, "groupby");
  const catalogue::GroupByEntry* entry =
      vm->count("algo") ? find_entry((*vm)["algo"].as<std::string>(), [](const std::string& n) -> const catalogue::GroupByEntry& {
        return catalogue::groupby_entry(n);
      })
                        : nullptr;
  if (vm->count("help")) {
    print_help(options, entry);
    return 0;
  }
  // Options first (nothing read yet), then the files' existence, the output, the host memory;
  // then the columns, and what the algorithm takes of them.
  const std::vector<std::pair<const char*, const char*>> flags = {
      {"sampling", "sampling"}, {"table-factor", "table_factor"}, {"hash-load", "load"},
      {"gpu-memory-budget", "gpu_memory_budget"}, {"streams", "streams"}, {"threads", "threads"}};
  const catalogue::Options algo_options = entry_options(common, *vm, flags);
  refuse_options_not_taken(*entry, algo_options, flags);
  const int servers = parse_servers_flags(servers_flags, *vm, entry->name, catalogue::groupby_algorithms_across_servers(),
                                          {"servers-share-gpu", "servers-backend", "pre-aggregation"});
  catalogue::ServersGroupByOptions across;
  if (servers > 0) {
    across.algorithm = entry->name;
    across.entry_options = algo_options;
    try {
      across.pre_aggregation = catalogue::parse_pre_aggregation((*vm)["pre-aggregation"].as<std::string>());
    } catch (const std::invalid_argument& e) {
      throw InputError(std::string("--pre-aggregation: ") + e.what());
    }
  }
  const auto aggregations = parse_aggs(aggs_text);
  refuse_repeats(key_files, "--keys");
  refuse_repeats(value_files, "--values");
  std::vector<std::string> sources = key_files;
  sources.insert(sources.end(), value_files.begin(), value_files.end());
  check_common(common, sources);
  // Across servers each server's share is converted to the entry's value type before it is
  // uploaded (4 bytes a key, at most 8 a value, for a share at a time).
  check_host_memory(key_files, value_files,
                    groupby_host_bytes_per_row(entry->name, key_files.size(), value_files.size(), aggregations.size(),
                                               common.verify) +
                        (servers > 0 ? 4 * key_files.size() + 8 * value_files.size() : 0),
                    "reading the columns and --algo " + entry->name + (common.verify ? " with --verify" : ""));
  std::vector<KeyColumn> keys;
  std::vector<ValueColumn> values;
  ColumnReader reader(sources);  // a CSV named by several FILE.csv:COLUMN sources is parsed once
  for (const auto& f : key_files) keys.push_back(reader.key_column(f));
  for (const auto& f : value_files) values.push_back(reader.value_column(f));
  catalogue::GroupByInput input;
  for (const auto& k : keys) input.keys.push_back(to_column(k));
  for (const auto& v : values) input.values.push_back(to_column(v));
  input.aggregations = aggregations;
  check_input([&] { entry->check(input, algo_options); }, flags);
  // The output's names, refused before the run when two would be alike (numpy cannot read a record
  // array with a repeated field name), each named with the file it comes from.
  const auto names = catalogue::output_names(input);
  std::vector<std::string> origin;
  for (const auto& k : keys) origin.push_back("key column " + k.source);
  for (const auto& v : values)
    for (auto a : aggregations) origin.push_back(std::string(reference::to_string(a)) + " of " + v.source);
  check_output_names(names, origin);
  // --verify against the CPU reference (above 2^20 rows computed by sorting on all cores, equal to
  // the single-threaded reference bit for bit, which takes minutes at 10^8 rows), then --out.
  const auto verify_and_write = [&](const reference::GroupByResult& got) {
    int status = 0;
    if (common.verify) {
      std::string how;
      const auto expected = catalogue::oracle_groupby(input, &how);
      status = report_verify(reference::compare(expected, got, 1e-9), got.groups(), "groups", how);
    }
    if (!common.out.empty()) {
      write_table(common.out, to_output(got, names));
      std::cout << "wrote " << got.groups() << " groups (" << names.size() << " columns) to " << common.out << "\n";
    }
    return status;
  };
  if (servers > 0) {
    const servers::GroupOptions group_options = servers_group(servers_flags, servers, algo_name);
    return guarded([&] {
      servers::ServerGroup group(group_options);
      catalogue::GroupByAcrossServers g(group, input, across);
      std::cout << "groupby: " << entry->name << " (" << entry->description << ") across GPU servers\n";
      print_servers(group);
      std::cout << "input: " << input.rows() << " rows, " << input.keys.size() << " key column(s), "
                << input.values.size() << " value column(s), aggregations " << aggs_text << "\n";
      // The servers' group-bys, made and run on their shares, on the host clock (several devices).
      const auto t = harness::time_host(plan_of(common), [&] { g.run(); });
      print_time("time", t, harness::Clock::kHost);
      std::vector<catalogue::ServerGroupByStats> stats;
      const reference::GroupByResult got = g.result(&stats);  // one more run, bringing the groups
      catalogue::Statistics s;
      s.numbers.push_back({"groups", static_cast<double>(got.groups()), "groups"});
      s.numbers.push_back({"pre_aggregated", stats[0].pre_aggregated ? 1.0 : 0.0, "flag"});
      if (across.pre_aggregation == catalogue::PreAggregation::kAuto)
        s.numbers.push_back({"estimated_groups_total", stats[0].estimated_groups_total, "groups"});
      add_loads(s, stats[0].loads, stats[0].pre_aggregated ? "partial groups" : "rows");
      std::vector<std::vector<std::string>> warnings;
      for (const auto& st : stats) warnings.push_back(st.warnings);
      print_statistics(s, servers_warnings(warnings));
      return verify_and_write(got);
    }, " (more --gpus)");
  }
  if (entry->needs_gpu) require_gpu(algo_name);

  return guarded([&] {
    CommandStream stream(entry->needs_gpu);
    auto g = entry->make(input, algo_options, stream.get());
    std::cout << "groupby: " << entry->name << " (" << entry->description << ")\n"
              << "input: " << input.rows() << " rows, " << input.keys.size() << " key column(s), "
              << input.values.size() << " value column(s), aggregations " << aggs_text << "\n";
    const auto t = harness::time_on(entry->clock, plan_of(common), stream.get(), [&](cudaStream_t s) { g->run(s); },
                                    [&](cudaStream_t s) { g->prepare(s); });
    print_time("time", t, entry->clock);
    print_statistics(g->statistics(stream.get(), false), g->warnings());
    return verify_and_write(g->result(stream.get()));
  }, entry->name == "mp_ega" ? " (a lower --gpu-memory-budget)" : " (--algo mp_ega works within a memory budget)");
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
      ("algo", po::value<std::string>(&algo_name)->required(),
       "bsp, sort_join, sort_join_hmap, hash_join, hashgraph or cpu_join (the \"_join\" may be left out; with --gpus: "
       "bsp, sort_join or hash_join)")
      ("r-keys", po::value<std::string>(&rk)->required(), "R's key column")
      ("r-values", po::value<std::string>(&rv), "R's values (unsigned 32-bit; default: row numbers)")
      ("s-keys", po::value<std::string>(&sk)->required(), "S's key column")
      ("s-values", po::value<std::string>(&sv), "S's values (unsigned 32-bit; default: row numbers)");
  ServersFlags servers_flags;
  add_servers_flags(options, servers_flags, "every row sent to the server of its key, which joins what it receives");
  add_common(options, common);
  const auto vm = parse(args, options, "join");
  const catalogue::JoinEntry* entry =
      vm->count("algo") ? find_entry((*vm)["algo"].as<std::string>(), [](const std::string& n) -> const catalogue::JoinEntry& {
        return catalogue::join_entry(n);
      })
                        : nullptr;
  if (vm->count("help")) {
    print_help(options, entry);
    return 0;
  }
  const catalogue::Options algo_options = entry_options(common, *vm, {});
  refuse_options_not_taken(*entry, algo_options, {});
  std::vector<std::string> across;
  for (const auto& spec : catalogue::joins_across_servers()) across.push_back(spec.entry);
  const int servers =
      parse_servers_flags(servers_flags, *vm, entry->name, across, {"servers-share-gpu", "servers-backend"});
  if (servers > 0)
    for (const auto& [name, value] : algo_options)
      if (!(entry->name == "bsp" && (name == "partitions" || name == "atomic_scatter")))
        throw InputError("--option " + name + " does not apply with --gpus (across servers --algo bsp takes partitions "
                         "and atomic_scatter, each server's local join's)");
  std::vector<std::string> sources = {rk, sk};
  for (const auto& v : {rv, sv})
    if (!v.empty()) sources.push_back(v);
  check_common(common, sources);
  // Keys and values are read as 4-byte columns; row numbers (no --r-values) take as much.
  check_host_memory({rk, sk}, {}, join_host_bytes_per_row(entry->name, rv.empty(), sv.empty(), common.verify),
                    "reading the tables and --algo " + entry->name + (common.verify ? " with --verify" : ""));
  ColumnReader reader(sources);
  const auto values_of = [&reader](const KeyColumn& keys, const std::string& file, const char* row_name) {
    return file.empty() ? row_numbers(keys.data.size(), row_name) : reader.uint32_column(file, "values");
  };
  const KeyColumn r_keys = reader.key_column(rk), s_keys = reader.key_column(sk);
  const KeyColumn r_values = values_of(r_keys, rv, "r_row"), s_values = values_of(s_keys, sv, "s_row");
  const catalogue::JoinInput input{to_column(r_keys), to_column(r_values), to_column(s_keys), to_column(s_values)};
  check_input([&] { entry->check(input, algo_options); });
  const std::vector<std::string> names = join_output_names(r_values, s_values);
  const auto write_rows = [&](const std::vector<pkpk::JoinedRow>& rows) {
    std::vector<std::uint32_t> key, value1, value2;
    for (const auto& r : rows) {
      key.push_back(r.key);
      value1.push_back(r.value1);
      value2.push_back(r.value2);
    }
    write_table(common.out, {uint32_column(names[0], std::move(key)), uint32_column(names[1], std::move(value1)),
                             uint32_column(names[2], std::move(value2))});
    std::cout << "wrote " << rows.size() << " rows to " << common.out << "\n";
  };
  // --verify against the CPU reference (above 2^20 rows a table, the sort-merge join on all cores:
  // pkpk::oracle_join), then --out.
  const auto verify_and_write = [&](const std::vector<pkpk::JoinedRow>& rows) {
    int status = 0;
    if (common.verify) {
      std::string how;
      const auto expected = catalogue::oracle_join(input, &how);
      status = report_verify(catalogue::compare_rows(expected, rows), rows.size(), "rows", how);
    }
    if (!common.out.empty()) write_rows(rows);
    return status;
  };
  if (servers > 0) {
    const servers::GroupOptions group_options = servers_group(servers_flags, servers, algo_name);
    return guarded([&] {
      servers::ServerGroup group(group_options);
      catalogue::JoinAcrossServers j(group, entry->name, input, algo_options);
      std::cout << "join: " << entry->name << " (" << entry->description << ") across GPU servers: "
                << catalogue::join_across_servers(entry->name)->how << "\n";
      print_servers(group);
      std::cout << "input: R " << r_keys.data.size() << " rows, S " << s_keys.data.size() << " rows\n";
      // The servers' joins on their shares, on the host clock (several devices).
      const auto t = harness::time_host(plan_of(common), [&] { j.run(); });
      print_time("time", t, harness::Clock::kHost);
      const auto rows = j.result();
      const pkpk::ServerJoinStats& st = j.stats().front();
      catalogue::Statistics s;
      s.numbers.push_back({"rows_out", static_cast<double>(rows.size()), "rows"});
      if (j.options().partitioning == pkpk::Partitioning::kSampledSplitters)
        s.numbers.push_back({"samples_total", static_cast<double>(st.samples_total), "keys"});
      add_loads(s, st.loads, "rows");
      print_statistics(s, {});
      return verify_and_write(rows);
    }, " (more --gpus)");
  }
  if (entry->needs_gpu) require_gpu(algo_name);
  return guarded([&] {
    CommandStream stream(entry->needs_gpu);
    auto j = entry->make(input, algo_options, stream.get());
    std::cout << "join: " << entry->name << " (" << entry->description << ")\n"
              << "input: R " << r_keys.data.size() << " rows, S " << s_keys.data.size() << " rows\n";
    const auto t = harness::time_on(entry->clock, plan_of(common), stream.get(), [&](cudaStream_t s) { j->run(s); },
                                    [&](cudaStream_t s) { j->prepare(s); });
    print_time("time", t, entry->clock);
    print_statistics(j->statistics(stream.get(), false), j->warnings());
    return verify_and_write(j->result(stream.get()));
  }, "");
}

// ---- table ---------------------------------------------------------------------------------------

int table_command(const std::vector<std::string>& args) {
  po::options_description options(
      "hashlab table --algo A --build KEYS.npy [--values V.npy] --probe QUERIES.npy [options]\n"
      "Per query: count (build rows with its key) and value (the smallest of their values; 0 if none).\n"
      "Values default to row numbers, so `value` is then the key's row in the build file");
  std::string algo_name, build, values_file, probe;
  Common common;
  options.add_options()
      ("algo", po::value<std::string>(&algo_name)->required(), "cuckoo, hashgraph, linear_probing or sorted_array")
      ("build", po::value<std::string>(&build)->required(), "the keys to build from")
      ("values", po::value<std::string>(&values_file), "their values (unsigned 32-bit; default: row numbers)")
      ("probe", po::value<std::string>(&probe)->required(), "the query keys")
      ("load", po::value<std::string>(), "keys per slot (the table's default when not given; hashgraph: keys per vertex)")
      ("cuckoo-functions", po::value<std::string>(), "cuckoo: hash functions, 2 to 5 (default 4)");
  add_common(options, common);
  const auto vm = parse(args, options, "table");
  const catalogue::TableEntry* entry =
      vm->count("algo") ? find_entry((*vm)["algo"].as<std::string>(), [](const std::string& n) -> const catalogue::TableEntry& {
        return catalogue::table_entry(n);
      })
                        : nullptr;
  if (vm->count("help")) {
    print_help(options, entry);
    return 0;
  }
  const std::vector<std::pair<const char*, const char*>> flags = {{"load", "load"}, {"cuckoo-functions", "functions"}};
  catalogue::Options algo_options = entry_options(common, *vm, flags);
  if (algo_options.count("load") && algo_options["load"] == "0") algo_options.erase("load");  // 0: the default
  refuse_options_not_taken(*entry, algo_options, flags);
  std::vector<std::string> sources = {build, probe};
  if (!values_file.empty()) sources.push_back(values_file);
  check_common(common, sources);
  check_host_memory({build, probe}, {}, table_host_bytes_per_row(values_file.empty(), common.verify),
                    "reading the columns and --algo " + entry->name + (common.verify ? " with --verify" : ""));
  ColumnReader reader(sources);
  const KeyColumn keys = reader.key_column(build);
  const KeyColumn values =
      values_file.empty() ? row_numbers(keys.data.size(), "row") : reader.uint32_column(values_file, "values");
  const KeyColumn queries = reader.key_column(probe);
  const catalogue::TableInput input{to_column(keys), to_column(values), to_column(queries)};
  check_input([&] { entry->check(input, algo_options); }, flags);
  require_gpu(algo_name);
  return guarded([&] {
    CommandStream stream(true);
    auto t = entry->make(input, algo_options, stream.get());
    std::cout << "table: " << entry->name << " (" << entry->description << ")\n"
              << "input: " << keys.data.size() << " keys, " << queries.data.size() << " queries\n";
    const harness::TimingPlan plan = plan_of(common);
    harness::Timing build_time;
    try {
      build_time = harness::time_gpu(plan, stream.get(), [&](cudaStream_t s) { t->build(s); },
                                     [&](cudaStream_t s) { t->reset(s); });
    } catch (const cuckoo::BuildFailure& e) {
      // An outcome, not a crash: at this load the chapter's construction gives up.
      std::cout << "build: failed: " << e.what() << " (a lower --load or more --cuckoo-functions builds it)\n";
      return hashlab::kExitFailed;
    }
    const auto probe_time = harness::time_gpu(plan, stream.get(), [&](cudaStream_t s) { t->probe(s); });
    print_time("build", build_time, harness::Clock::kDevice);
    print_time("probe", probe_time, harness::Clock::kDevice);
    print_statistics(t->statistics(stream.get(), false), t->warnings());
    const catalogue::Lookup got = t->result(stream.get());
    const int status = common.verify ? report_verify(catalogue::compare_lookup(catalogue::make_lookup_reference(input),
                                                                               got, queries.data),
                                                     queries.data.size(), "answers")
                                     : 0;
    if (!common.out.empty()) {
      std::vector<OutputColumn> out;
      if (!got.count.empty()) out.push_back(uint32_column("count", got.count));
      if (!got.value.empty()) out.push_back(uint32_column("value", got.value));
      if (out.empty()) throw InputError("--algo " + entry->name + " with these options answers only the total (" +
                                        std::to_string(got.total) + " matches): nothing per query to write");
      write_table(common.out, out);
      std::cout << "wrote " << queries.data.size() << " answers to " << common.out << "\n";
    }
    return status;
  }, "");
}

}  // namespace hashlab::owndata
