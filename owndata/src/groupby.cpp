// The adapters of groupby.hpp. No kernels: every group-by is its paper's module's or common/'s.
#include "hashlab/owndata/groupby.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "hashlab/baselines/groupby.hpp"
#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/ega/mp_ega.hpp"
#include "hashlab/ega/sp_ega.hpp"
#include "hashlab/reference/cpu_baselines.hpp"
#include "named.hpp"

namespace hashlab::owndata {
namespace {

constexpr detail::Named<GroupByAlgo> kAlgos[] = {
    {GroupByAlgo::kRapids, "rapids", "RAPIDS hash group-by (Chen et al.): sampling, 2.6x table, relaunch at 75%"},
    {GroupByAlgo::kSpEga, "sp_ega", "SP-EGA (Wang et al. 4.1): five phases on three buffers of L = rows"},
    {GroupByAlgo::kLphga, "lphga", "LPHGA, EGA's linear-probing comparator, on the same three buffers"},
    {GroupByAlgo::kMpEga, "mp_ega", "MP-EGA (Wang et al. 4.2): data in host memory, a GPU memory budget"},
    {GroupByAlgo::kSort, "sort", "common/'s sort-based group-by (CUB radix sort + reduce-by-key)"},
    {GroupByAlgo::kHash, "hash", "common/'s cuDF-style linear-probing hash group-by"},
    {GroupByAlgo::kCpu, "cpu", "common/'s multi-threaded radix-partitioned CPU group-by"},
};

/// The passes of a one-aggregation-per-pass algorithm: (value column, base aggregation).
struct Pass {
  std::size_t value;
  Aggregation op;
};

bool needs(const std::vector<Aggregation>& aggs, Aggregation base) {
  for (Aggregation a : aggs)
    if (a == base || (a == Aggregation::kMean && (base == Aggregation::kSum || base == Aggregation::kCount)))
      return true;
  return false;
}

/// One pass per value column and base aggregation; count once (it is the same for every column).
std::vector<Pass> plan_passes(const GroupByInput& input, const std::vector<Aggregation>& aggs) {
  std::vector<Pass> passes;
  for (std::size_t v = 0; v < input.values.size(); ++v)
    for (Aggregation base : {Aggregation::kSum, Aggregation::kMin, Aggregation::kMax})
      if (needs(aggs, base)) passes.push_back({v, base});
  if (needs(aggs, Aggregation::kCount)) passes.push_back({0, Aggregation::kCount});
  return passes;
}

/// Assembles the output columns from the passes' results (each sorted by key, one aggregate).
reference::GroupByResult assemble(const GroupByInput& input, const std::vector<Aggregation>& aggs,
                                  const std::vector<Pass>& passes, const std::vector<reference::GroupByResult>& results) {
  if (results.empty()) throw std::logic_error("group-by: no passes");
  const auto find = [&](std::size_t v, Aggregation op) -> const reference::AggregateColumn& {
    for (std::size_t p = 0; p < passes.size(); ++p)
      if (passes[p].op == op && (op == Aggregation::kCount || passes[p].value == v)) return results[p].aggregates.at(0);
    throw std::logic_error("group-by: a pass is missing");
  };
  for (const auto& r : results)
    if (r.keys != results.front().keys) throw std::runtime_error("group-by: the passes found different groups");
  reference::GroupByResult out;
  out.keys = results.front().keys;
  for (std::size_t v = 0; v < input.values.size(); ++v)
    for (Aggregation a : aggs) {
      reference::AggregateColumn column;
      column.op = a;
      if (a == Aggregation::kMean) {
        const auto& sum = find(v, Aggregation::kSum);
        const auto& count = find(v, Aggregation::kCount);
        column.real.resize(count.exact.size());
        for (std::size_t g = 0; g < column.real.size(); ++g)
          column.real[g] = (sum.is_exact() ? static_cast<double>(sum.exact[g]) : sum.real[g]) /
                           static_cast<double>(count.exact[g]);
      } else {
        const auto& base = find(v, a);
        column.exact = base.exact;
        column.real = base.real;
      }
      out.aggregates.push_back(std::move(column));
    }
  return out;
}

void require_one_key(GroupByAlgo algo, const GroupByInput& input) {
  if (input.keys.size() != 1)
    throw InputError(std::string("--algo ") + to_string(algo) + " groups by one 32-bit key column; " +
                     std::to_string(input.keys.size()) + " key columns given (--algo rapids takes up to " +
                     std::to_string(rapids::kMaxKeyColumns) + ")");
}

void require_no_key(const KeyColumn& keys, std::uint32_t sentinel, GroupByAlgo algo) {
  const auto it = std::find(keys.data.begin(), keys.data.end(), sentinel);
  if (it != keys.data.end())
    throw InputError(keys.source + ": row " + std::to_string(it - keys.data.begin()) + " holds key " +
                     std::to_string(sentinel) + ", the empty-slot marker of --algo " + to_string(algo) +
                     " (it cannot be a key there; remap it, or use rapids, sort or cpu)");
}

/// Who needs unsigned 32-bit values, for the errors of as_uint32 / require_uint32.
std::string uint32_user(GroupByAlgo algo) { return std::string("--algo ") + to_string(algo) + " aggregates unsigned 32-bit"; }

std::vector<std::vector<std::uint32_t>> uint32_values(GroupByAlgo algo, const GroupByInput& input) {
  std::vector<std::vector<std::uint32_t>> values;
  for (const auto& v : input.values) values.push_back(as_uint32(v, uint32_user(algo)));
  return values;
}

// ---- RAPIDS: every output column in one pass ----------------------------------------------------

template <class V>
class RapidsRun final : public GroupByRun {
 public:
  RapidsRun(const GroupByInput& input, const std::vector<std::vector<V>>& values, const GroupByOptions& options,
            cudaStream_t stream)
      : rows_(input.rows()), key_columns_(static_cast<int>(input.keys.size())) {
    std::vector<std::uint32_t> keys;
    for (const auto& k : input.keys) keys.insert(keys.end(), k.data.begin(), k.data.end());
    host_keys_ = std::move(keys);
    std::vector<V> matrix;
    for (std::size_t v = 0; v < values.size(); ++v)
      for (Aggregation a : options.aggs) {
        matrix.insert(matrix.end(), values[v].begin(), values[v].end());
        ops_.push_back(a);
      }
    keys_ = to_device(host_keys_, stream);
    values_ = to_device(matrix, stream);
    options_.sampling = options.sampling;
    options_.table_factor = options.table_factor;
    if (options.sampling == rapids::Sampling::kNone)  // no prediction: table_factor slots per row
      options_.table_size = std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(options.table_factor * rows_)));
    rapids::GroupByInput<V> in = view();
    try {
      rapids::validate(in, ops_, options_);
    } catch (const std::invalid_argument& e) {
      throw InputError(std::string("--algo rapids: ") + e.what());
    }
  }
  void run(cudaStream_t stream) override { groups_ = groupby_.aggregate(view(), ops_, options_, stream); }
  reference::GroupByResult result(cudaStream_t stream) override { return groups_.to_reference(stream); }
  std::vector<Stat> stats() const override {
    const auto& s = groupby_.stats();
    return {{"predicted_groups", s.predicted_cardinality},
            {"initial_table_slots", static_cast<double>(s.initial_table_size)},
            {"table_slots", static_cast<double>(s.table_size)},
            {"relaunches", static_cast<double>(s.relaunches)},
            {"groups", static_cast<double>(s.groups)}};
  }

 private:
  rapids::GroupByInput<V> view() const {
    rapids::GroupByInput<V> in;
    in.keys = keys_.data();
    in.key_columns = key_columns_;
    in.values = values_.data();
    in.value_columns = static_cast<int>(ops_.size());
    in.rows = rows_;
    in.host_keys = host_keys_.data();
    return in;
  }
  std::size_t rows_;
  int key_columns_;
  std::vector<std::uint32_t> host_keys_;
  std::vector<Aggregation> ops_;
  DeviceBuffer<std::uint32_t> keys_;
  DeviceBuffer<V> values_;
  rapids::GroupByOptions options_;
  rapids::HashGroupBy groupby_;
  rapids::DeviceGroups groups_;
};

// ---- one aggregation per pass on the device: SP-EGA, LPHGA, the baselines -----------------------

/// A pass's groups, copied out of the algorithm's buffers (which the next pass reuses).
struct PassGroups {
  DeviceBuffer<std::uint32_t> keys;
  DeviceBuffer<std::uint64_t> aggregates;
  std::size_t count = 0;
};

class DevicePassesRun : public GroupByRun {
 public:
  DevicePassesRun(GroupByAlgo algo, const GroupByInput& input, const GroupByOptions& options, cudaStream_t stream)
      : input_(input), aggs_(options.aggs), passes_(plan_passes(input, options.aggs)), rows_(input.rows()) {
    const auto values = uint32_values(algo, input);
    keys_ = to_device(input.keys.front().data, stream);
    for (const auto& v : values) values_.push_back(to_device(v, stream));
    outputs_.resize(passes_.size());
  }
  void run(cudaStream_t stream) override {
    for (std::size_t p = 0; p < passes_.size(); ++p) run_pass(passes_[p], outputs_[p], stream);
  }
  reference::GroupByResult result(cudaStream_t stream) override {
    std::vector<reference::GroupByResult> results;
    for (std::size_t p = 0; p < passes_.size(); ++p) {
      ega::Groups view{outputs_[p].keys.data(), outputs_[p].aggregates.data(), outputs_[p].count};
      results.push_back(view.to_reference(passes_[p].op, stream));
    }
    return assemble(input_, aggs_, passes_, results);
  }

 protected:
  virtual void run_pass(const Pass& pass, PassGroups& out, cudaStream_t stream) = 0;
  /// Copies `count` groups from device arrays into out (device to device, stream-ordered).
  static void keep(const std::uint32_t* keys, const std::uint64_t* aggregates, std::size_t count, PassGroups& out,
                   cudaStream_t stream) {
    if (out.keys.size() < count) {
      out.keys = DeviceBuffer<std::uint32_t>(count, stream);
      out.aggregates = DeviceBuffer<std::uint64_t>(count, stream);
    }
    out.count = count;
    if (count == 0) return;
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(out.keys.data(), keys, count * sizeof(std::uint32_t), cudaMemcpyDeviceToDevice, stream));
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(out.aggregates.data(), aggregates, count * sizeof(std::uint64_t),
                                       cudaMemcpyDeviceToDevice, stream));
  }
  std::size_t groups() const { return outputs_.empty() ? 0 : outputs_.front().count; }

  const GroupByInput& input_;
  std::vector<Aggregation> aggs_;
  std::vector<Pass> passes_;
  std::size_t rows_;
  DeviceBuffer<std::uint32_t> keys_;
  std::vector<DeviceBuffer<std::uint32_t>> values_;
  std::vector<PassGroups> outputs_;
};

/// SP-EGA and LPHGA: each pass loads the pairs into red (part of the timed run) and aggregates.
template <class Ega>
class EgaRun final : public DevicePassesRun {
 public:
  EgaRun(GroupByAlgo algo, const GroupByInput& input, const GroupByOptions& options, cudaStream_t stream)
      : DevicePassesRun(algo, input, options, stream), ega_(std::max<std::size_t>(rows_, 1), stream) {}
  std::vector<Stat> stats() const override {
    std::vector<Stat> s = {{"passes", static_cast<double>(passes_.size())},
                           {"buffer_length_L", static_cast<double>(rows_)},
                           {"groups", static_cast<double>(groups())}};
    if constexpr (std::is_same_v<Ega, ega::SpEga>) {
      const auto& c = ega_.last_counts();
      s.push_back({"phase2_partial_table_groups", static_cast<double>(c.partial_table_groups)});
      s.push_back({"phase3_unhashed_pairs", static_cast<double>(c.unhashed_pairs)});
      s.push_back({"phase5_probe_table_groups", static_cast<double>(c.probe_table_groups)});
    }
    return s;
  }

 private:
  void run_pass(const Pass& pass, PassGroups& out, cudaStream_t stream) override {
    ega_.load(keys_.data(), values_[pass.value].data(), rows_, pass.op, stream);
    const ega::Groups g = ega_.run(rows_, pass.op, stream);
    keep(g.keys, g.aggregates, g.count, out, stream);
  }
  Ega ega_;
};

/// common/'s sort-based and hash group-bys: each pass returns its own buffers.
class BaselineRun final : public DevicePassesRun {
 public:
  BaselineRun(GroupByAlgo algo, const GroupByInput& input, const GroupByOptions& options, cudaStream_t stream)
      : DevicePassesRun(algo, input, options, stream) {
    if (algo == GroupByAlgo::kHash) {
      capacity_ = static_cast<std::size_t>(std::ceil(static_cast<double>(rows_) / options.hash_load));
      table_ = std::make_unique<baseline::HashGroupBy>(capacity_, stream);
    }
  }
  std::vector<Stat> stats() const override {
    std::vector<Stat> s = {{"passes", static_cast<double>(passes_.size())}, {"groups", static_cast<double>(groups())}};
    if (table_) s.push_back({"table_slots", static_cast<double>(capacity_)});
    return s;
  }

 private:
  void run_pass(const Pass& pass, PassGroups& out, cudaStream_t stream) override {
    baseline::DeviceGroups g = table_ ? table_->aggregate(keys_.data(), values_[pass.value].data(), rows_, pass.op, stream)
                                      : baseline::sort_groupby(keys_.data(), values_[pass.value].data(), rows_, pass.op, stream);
    out.keys = std::move(g.keys);
    out.aggregates = std::move(g.aggregate);
    out.count = g.groups;
  }
  std::size_t capacity_ = 0;
  std::unique_ptr<baseline::HashGroupBy> table_;
};

// ---- one aggregation per pass on the host: MP-EGA (host data, GPU work) and the CPU group-by -----

class HostPassesRun : public GroupByRun {
 public:
  HostPassesRun(const GroupByInput& input, const GroupByOptions& options)
      : input_(input), aggs_(options.aggs), passes_(plan_passes(input, options.aggs)) {}
  void run(cudaStream_t) override {
    results_.clear();
    for (const Pass& p : passes_) results_.push_back(run_pass(p));
  }
  reference::GroupByResult result(cudaStream_t) override {
    for (auto& r : results_) r.sort_by_key();  // untimed: each pass's groups in key order
    return assemble(input_, aggs_, passes_, results_);
  }
  bool on_host() const override { return true; }

 protected:
  virtual reference::GroupByResult run_pass(const Pass& pass) = 0;
  std::size_t groups() const { return results_.empty() ? 0 : results_.front().groups(); }
  const GroupByInput& input_;
  std::vector<Aggregation> aggs_;
  std::vector<Pass> passes_;
  std::vector<reference::GroupByResult> results_;
};

class MpEgaRun final : public HostPassesRun {
 public:
  MpEgaRun(const GroupByInput& input, const GroupByOptions& options) : HostPassesRun(input, options) {
    values_ = uint32_values(GroupByAlgo::kMpEga, input);
    ega::MpEgaConfig config;
    config.gpu_memory_budget = options.gpu_memory_budget;
    config.streams = options.streams;
    try {
      mp_ = std::make_unique<ega::MpEga>(config, std::max<std::size_t>(input.rows(), 1));
    } catch (const std::invalid_argument& e) {
      throw InputError(std::string("--algo mp_ega: ") + e.what());
    }
  }
  std::vector<Stat> stats() const override {
    const auto& s = mp_->stats();
    return {{"passes", static_cast<double>(passes_.size())},
            {"tile_rows_L", static_cast<double>(s.tile_rows)},
            {"tiles", static_cast<double>(s.tiles)},
            {"partitions", static_cast<double>(s.partitions)},
            {"merged_partitions", static_cast<double>(s.merged_partitions)},
            {"oversize_partitions", static_cast<double>(s.oversize_partitions)},
            {"feedback_rounds", static_cast<double>(s.feedback_rounds)},
            {"cpu_rows", static_cast<double>(s.cpu_rows)},
            {"last_pass_generate_ms", s.generate_ms},
            {"last_pass_merge_ms", s.merge_ms},
            {"last_pass_process_ms", s.process_ms},
            {"groups", static_cast<double>(groups())}};
  }

 private:
  reference::GroupByResult run_pass(const Pass& pass) override {
    // The groups copied out of MP-EGA's pinned output, in its order (result() sorts them, untimed).
    const auto& keys = input_.keys.front().data;
    const ega::HostGroups& g = mp_->run(keys.data(), values_[pass.value].data(), keys.size(), pass.op);
    reference::GroupByResult r;
    r.keys.emplace_back(g.keys, g.keys + g.count);
    r.aggregates.push_back({pass.op, std::vector<std::int64_t>(g.aggregates, g.aggregates + g.count), {}});
    return r;
  }
  std::vector<std::vector<std::uint32_t>> values_;
  std::unique_ptr<ega::MpEga> mp_;
};

class CpuRun final : public HostPassesRun {
 public:
  CpuRun(const GroupByInput& input, const GroupByOptions& options)
      : HostPassesRun(input, options), threads_(options.threads ? options.threads : cpu::default_threads()) {}
  std::vector<Stat> stats() const override {
    return {{"passes", static_cast<double>(passes_.size())},
            {"threads", static_cast<double>(threads_)},
            {"groups", static_cast<double>(groups())}};
  }

 private:
  reference::GroupByResult run_pass(const Pass& pass) override {
    const auto& keys = input_.keys.front().data;
    const ValueColumn& v = input_.values[pass.value];
    return v.real ? cpu::parallel_groupby(keys, v.reals, pass.op, threads_)
                  : cpu::parallel_groupby(keys, v.ints, pass.op, threads_);
  }
  unsigned threads_;
};

}  // namespace

const char* to_string(GroupByAlgo algo) { return detail::named(kAlgos, algo).name; }
const char* describe(GroupByAlgo algo) { return detail::named(kAlgos, algo).description; }
GroupByAlgo parse_groupby_algo(const std::string& name) { return detail::parse_named(kAlgos, name, "group-by algorithm"); }
const std::vector<GroupByAlgo>& all_groupby_algos() {
  static const std::vector<GroupByAlgo> algos = detail::all_of(kAlgos);
  return algos;
}

bool needs_gpu(GroupByAlgo algo) { return algo != GroupByAlgo::kCpu; }

void validate_table(const GroupByInput& input, const GroupByOptions& options) {
  if (input.keys.empty()) throw InputError("no key column given (--keys)");
  if (input.values.empty()) throw InputError("no value column given (--values)");
  if (options.aggs.empty()) throw InputError("no aggregation given (--agg)");
  const auto& first = input.keys.front();
  for (const auto& k : input.keys) require_rows(first.data.size(), first.source, k.source, k.data.size());
  for (const auto& v : input.values) require_rows(first.data.size(), first.source, v.source, v.rows());
  if (input.rows() == 0) throw InputError(first.source + ": no rows");
  if (input.keys.size() > static_cast<std::size_t>(rapids::kMaxKeyColumns))
    throw InputError(std::to_string(input.keys.size()) + " key columns; at most " +
                     std::to_string(rapids::kMaxKeyColumns) + " (RAPIDS' limit, which the commands keep)");
  // Exact integer sums must fit 64 bits: sum |v| over all rows bounds every group's sum.
  for (const auto& v : input.values) {
    if (v.real) continue;
    long double total = 0;
    for (std::int64_t x : v.ints) total += x < 0 ? -static_cast<long double>(x) : static_cast<long double>(x);
    if (total >= 9.2e18L)
      throw InputError(v.source + ": the values' sum may exceed 64-bit integers; divide or convert to float64");
  }
}

std::vector<std::string> output_names(const GroupByInput& input, const GroupByOptions& options) {
  std::vector<std::string> names;
  for (const auto& k : input.keys) names.push_back(k.name);
  for (const auto& v : input.values)
    for (Aggregation a : options.aggs) names.push_back(std::string(reference::to_string(a)) + "_" + v.name);
  return names;
}

void check_groupby(GroupByAlgo algo, const GroupByInput& input, const GroupByOptions& options) {
  validate_table(input, options);
  const std::string who = std::string("--algo ") + to_string(algo);
  if (algo == GroupByAlgo::kRapids) {
    const bool real = input.values.front().real;
    for (const auto& v : input.values) {
      if (v.real != real)
        throw InputError(v.source + ": --algo rapids takes value columns of one type (all integer or all float); " +
                         input.values.front().source + " differs");
      if (!real) require_int32(v, who + " aggregates 32-bit");
    }
    if (!(options.table_factor > 0)) throw InputError("--table-factor must be positive");
    return;
  }
  require_one_key(algo, input);
  if (algo == GroupByAlgo::kCpu) return;
  for (const auto& v : input.values) require_uint32(v, uint32_user(algo));
  if (algo == GroupByAlgo::kHash) {
    require_no_key(input.keys.front(), baseline::HashGroupBy::kEmptyKey, algo);
    if (!(options.hash_load > 0 && options.hash_load <= 1))
      throw InputError("--hash-load " + std::to_string(options.hash_load) + ": must lie in (0, 1]");
  } else if (algo != GroupByAlgo::kSort) {
    require_no_key(input.keys.front(), ega::kEmptyKey, algo);
  }
  if (algo == GroupByAlgo::kMpEga) {
    ega::MpEgaConfig config;
    config.gpu_memory_budget = options.gpu_memory_budget;
    config.streams = options.streams;
    try {
      config.validate();
    } catch (const std::invalid_argument& e) {
      throw InputError(who + ": " + e.what());
    }
  }
}

std::unique_ptr<GroupByRun> make_groupby(GroupByAlgo algo, const GroupByInput& input, const GroupByOptions& options,
                                         cudaStream_t stream) {
  check_groupby(algo, input, options);
  switch (algo) {
    case GroupByAlgo::kRapids: {
      if (input.values.front().real) {
        std::vector<std::vector<double>> values;
        for (const auto& v : input.values) values.push_back(v.reals);
        return std::make_unique<RapidsRun<double>>(input, values, options, stream);
      }
      std::vector<std::vector<std::int32_t>> values;
      for (const auto& v : input.values) values.push_back(as_int32(v, "--algo rapids aggregates 32-bit"));
      return std::make_unique<RapidsRun<std::int32_t>>(input, values, options, stream);
    }
    case GroupByAlgo::kSpEga: return std::make_unique<EgaRun<ega::SpEga>>(algo, input, options, stream);
    case GroupByAlgo::kLphga: return std::make_unique<EgaRun<ega::Lphga>>(algo, input, options, stream);
    case GroupByAlgo::kMpEga: return std::make_unique<MpEgaRun>(input, options);
    case GroupByAlgo::kSort:
    case GroupByAlgo::kHash: return std::make_unique<BaselineRun>(algo, input, options, stream);
    case GroupByAlgo::kCpu: return std::make_unique<CpuRun>(input, options);
  }
  throw InputError("unknown group-by algorithm");
}

namespace {

// `groupby(keys, value columns, aggs)` of each value column, the results side by side in the
// input's column order (each value column is aggregated by every aggregation).
template <class GroupBy>
reference::GroupByResult groupby_table(const GroupByInput& input, const GroupByOptions& options, GroupBy groupby) {
  validate_table(input, options);
  std::vector<std::vector<std::uint32_t>> keys;
  for (const auto& k : input.keys) keys.push_back(k.data);
  reference::GroupByResult out;
  for (const auto& v : input.values) {
    reference::GroupByResult part =
        v.real ? groupby(keys, std::vector<std::vector<double>>(options.aggs.size(), v.reals), options.aggs)
               : groupby(keys, std::vector<std::vector<std::int64_t>>(options.aggs.size(), v.ints), options.aggs);
    if (out.keys.empty()) out.keys = std::move(part.keys);
    for (auto& column : part.aggregates) out.aggregates.push_back(std::move(column));
  }
  return out;
}

}  // namespace

reference::GroupByResult reference_groupby(const GroupByInput& input, const GroupByOptions& options) {
  return groupby_table(input, options, [](const auto& keys, const auto& values, const auto& aggs) {
    return reference::groupby(keys, values, aggs);
  });
}

reference::GroupByResult oracle_groupby(const GroupByInput& input, const GroupByOptions& options, std::string* note) {
  const bool small = input.rows() <= cpu::kOracleReferenceRows;
  if (note != nullptr) *note = small ? "" : kSortedGroupByOracle;
  if (small) return reference_groupby(input, options);
  return groupby_table(input, options, [](const auto& keys, const auto& values, const auto& aggs) {
    return reference::sorted_groupby(keys, values, aggs);
  });
}

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

}  // namespace hashlab::owndata
