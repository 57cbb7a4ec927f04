// The group-by entries (groupby.hpp). No kernels: every group-by is its module's; this file turns
// the catalogue's columns into each one's input, runs its passes and reads its statistics.
#include "hashlab/catalogue/groupby.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <type_traits>

#include "detail.hpp"
#include "device_answers.hpp"
#include "hashlab/baselines/groupby.hpp"
#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/common/sentinels.hpp"
#include "hashlab/ega/mp_ega.hpp"
#include "hashlab/ega/sp_ega.hpp"
#include "hashlab/rapids_groupby/groupby.hpp"
#include "hashlab/reference/cpu_baselines.hpp"

namespace hashlab::catalogue {
namespace {

using detail::array_spec;
using detail::number_spec;
using detail::OptionReader;
using harness::Clock;

// ---- the input's shape, shared by every entry --------------------------------------------------

/// Throws std::invalid_argument when the columns do not form a table, the entry cannot group by
/// this many key columns, or a float64 column holds a NaN (no group-by has null values: host
/// columns always, device-only ones when `stream` is given, as make() gives it).
void check_table(const GroupByEntry& entry, const GroupByInput& input, const cudaStream_t* stream) {
  if (input.keys.empty()) throw std::invalid_argument(entry.name + ": no key column given");
  if (input.values.empty()) throw std::invalid_argument(entry.name + ": no value column given");
  if (input.aggregations.empty()) throw std::invalid_argument(entry.name + ": no aggregation given");
  const Column& first = input.keys.front();
  for (const auto& k : input.keys) {
    detail::require_rows(k, first.rows, first);
    detail::require_keys(k, entry.name);
  }
  for (const auto& v : input.values) detail::require_rows(v, first.rows, first);
  for (const auto& v : input.values) detail::require_no_nan(v, entry.name, stream);
  if (input.rows() == 0) throw std::invalid_argument(first.label() + ": no rows");
  if (static_cast<int>(input.keys.size()) > entry.max_key_columns)
    throw std::invalid_argument(
        entry.name + " groups by " +
        (entry.max_key_columns == 1 ? std::string("one 32-bit key column")
                                    : "up to " + std::to_string(entry.max_key_columns) + " key columns") +
        "; " + std::to_string(input.keys.size()) + " key columns given (rapids takes up to " +
        std::to_string(rapids::kMaxKeyColumns) + ", cpu_stl any number)");
  // Exact integer sums (a sum, or a mean's) must fit 64 bits: the sum of |v| over all rows bounds
  // every group's sum. min, max and count need no sum.
  const bool sums = std::any_of(input.aggregations.begin(), input.aggregations.end(),
                                [](Aggregation a) { return a == Aggregation::kSum || a == Aggregation::kMean; });
  for (const auto& v : input.values) {
    if (!sums || v.host == nullptr || detail::is_real(v)) continue;
    const auto values = detail::host_as<std::int64_t>(v, "", nullptr);
    long double total = 0;
    for (std::int64_t x : values) total += x < 0 ? -static_cast<long double>(x) : static_cast<long double>(x);
    if (total >= 9.2e18L)
      throw std::invalid_argument(v.label() + ": the values' sum may exceed 64-bit integers; divide or convert to float64");
  }
}

// ---- one aggregation per pass ------------------------------------------------------------------

/// One pass of an algorithm that computes one aggregation at a time: a value column and a base
/// aggregation (sum, min, max, count; a mean is a sum and a count).
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
std::vector<Pass> plan_passes(const GroupByInput& input) {
  std::vector<Pass> passes;
  for (std::size_t v = 0; v < input.values.size(); ++v)
    for (Aggregation base : {Aggregation::kSum, Aggregation::kMin, Aggregation::kMax})
      if (needs(input.aggregations, base)) passes.push_back({v, base});
  if (needs(input.aggregations, Aggregation::kCount)) passes.push_back({0, Aggregation::kCount});
  return passes;
}

/// The output columns from the passes' results (each sorted by key, one aggregate each).
reference::GroupByResult assemble(const GroupByInput& input, const std::vector<Pass>& passes,
                                  std::vector<reference::GroupByResult> results) {
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
    for (Aggregation a : input.aggregations) {
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

std::string uint32_user(const std::string& name) { return name + " aggregates unsigned 32-bit"; }

/// The checks of the entries that take one key column and unsigned 32-bit values (EGA, the
/// baselines): the value ranges and the empty-slot key (host columns).
void check_uint32_values(const GroupByEntry& entry, const GroupByInput& input) {
  for (const auto& v : input.values) {
    detail::require_fits<std::uint32_t>(v, uint32_user(entry.name));
    if (v.host == nullptr && v.dtype != DType::kUint32)
      throw std::invalid_argument(v.label() + ": " + uint32_user(entry.name) + " values; the device column holds " +
                                  to_string(v.dtype));
  }
}

// ---- RAPIDS: every output column in one pass ---------------------------------------------------

constexpr const char* kSamplingOption = "sampling";
constexpr const char* kTableFactorOption = "table_factor";

rapids::Sampling parse_sampling(const OptionReader& o) {
  const std::string& s = o.choice(kSamplingOption, {"gpu", "cpu", "none"});
  return s == "none" ? rapids::Sampling::kNone : s == "cpu" ? rapids::Sampling::kCpu : rapids::Sampling::kGpu;
}

/// RAPIDS reads a column-major key matrix and one value column per aggregation. One key column
/// and one value column with one aggregation, on the device, are read in place; otherwise the
/// matrices are assembled on the device (from device columns, or uploaded from host ones) when
/// the group-by is made, untimed.
template <class V>
class RapidsGroupBy final : public GroupBy {
 public:
  RapidsGroupBy(const GroupByInput& input, const OptionReader& o, cudaStream_t stream)
      : rows_(input.rows()), key_columns_(static_cast<int>(input.keys.size())), value_columns_(input.values.size()) {
    options_.sampling = parse_sampling(o);
    options_.table_factor = o.number(kTableFactorOption);
    if (options_.sampling == rapids::Sampling::kNone)  // no prediction: table_factor slots per row
      options_.table_size = std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(options_.table_factor * rows_)));
    const std::string what = std::is_same_v<V, double> ? "rapids aggregates float64" : "rapids aggregates 32-bit";
    // Keys: in place, or a matrix of the columns one after another.
    if (key_columns_ == 1 && input.keys.front().device != nullptr) {
      keys_ = static_cast<const std::uint32_t*>(input.keys.front().device);
    } else {
      key_matrix_ = DeviceBuffer<std::uint32_t>(rows_ * key_columns_, stream);
      for (int c = 0; c < key_columns_; ++c) copy_into(key_matrix_.data() + c * rows_, input.keys[c], what, stream);
      keys_ = key_matrix_.data();
    }
    for (std::size_t v = 0; v < input.values.size(); ++v)
      for (Aggregation a : input.aggregations) ops_.push_back(a);
    const Column& first = input.values.front();
    if (ops_.size() == 1 && first.device != nullptr && readable_in_place(first, stream)) {
      values_ = static_cast<const V*>(first.device);
    } else {
      value_matrix_ = DeviceBuffer<V>(rows_ * ops_.size(), stream);
      std::size_t column = 0;
      for (const auto& v : input.values)
        for (std::size_t a = 0; a < input.aggregations.size(); ++a, ++column)
          copy_into(value_matrix_.data() + column * rows_, v, what, stream);
      values_ = value_matrix_.data();
    }
    if (options_.sampling == rapids::Sampling::kCpu) {  // the CPU sampler reads a host copy of the keys
      for (const auto& k : input.keys) {
        const auto host = detail::host_as<std::uint32_t>(k, "rapids groups by", stream);
        host_keys_.insert(host_keys_.end(), host.begin(), host.end());
      }
    }
    rapids::validate(view(), ops_, options_);
  }
  void run(cudaStream_t stream) override { groups_ = groupby_.aggregate(view(), ops_, options_, stream); }
  reference::GroupByResult result(cudaStream_t stream) override { return groups_.to_reference(stream); }
  /// The table's groups sorted by key tuple on the device, every output column gathered in that order.
  std::optional<DeviceGroupByResult> device_result(cudaStream_t stream) override {
    DeviceGroupByResult out;
    out.groups = groups_.groups;
    std::vector<const std::uint32_t*> columns;
    for (int c = 0; c < groups_.key_columns; ++c) columns.push_back(groups_.keys.data() + c * out.groups);
    const auto order = detail::sort_order(columns, out.groups, stream);
    for (const std::uint32_t* c : columns) out.keys.push_back(detail::gather(c, order.data(), out.groups, stream));
    for (const auto& column : groups_.columns) {
      DeviceGroupByResult::Aggregate a;
      a.op = column.op;
      a.exact = !column.exact.empty() || column.real.empty();
      if (a.exact) a.exact_values = detail::gather(column.exact.data(), order.data(), out.groups, stream);
      else a.real_values = detail::gather(column.real.data(), order.data(), out.groups, stream);
      out.aggregates.push_back(std::move(a));
    }
    return out;
  }
  /// The key columns, then each value column's first column of the value matrix (or itself).
  std::vector<const void*> device_inputs() const override {
    std::vector<const void*> out;
    for (int c = 0; c < key_columns_; ++c) out.push_back(keys_ + c * rows_);
    const std::size_t per_value = ops_.size() / value_columns_;
    for (std::size_t v = 0; v < value_columns_; ++v) out.push_back(values_ + v * per_value * rows_);
    return out;
  }
  Statistics statistics(cudaStream_t, bool) override {
    const auto& s = groupby_.stats();
    return {{{"predicted_groups", s.predicted_cardinality, "groups"},
             {"initial_table_slots", static_cast<double>(s.initial_table_size), "slots"},
             {"table_slots", static_cast<double>(s.table_size), "slots"},
             {"relaunches", static_cast<double>(s.relaunches), "count"},
             {"groups", static_cast<double>(s.groups), "groups"},
             {"sample_trials", static_cast<double>(s.sample.trials), "count"},
             {"sample_equal_pairs", static_cast<double>(s.sample.equal_pairs), "count"}},
            {}};
  }
  std::vector<std::string> warnings() const override {
    const auto& s = groupby_.stats();
    if (s.relaunches < 2) return {};
    return {"rapids: the table was relaunched " + std::to_string(s.relaunches) + " times (predicted " +
            detail::with_commas(static_cast<std::uint64_t>(s.predicted_cardinality)) + " groups, found " +
            detail::with_commas(s.groups) + "): each relaunch redoes the fill; a larger table_factor, or sampling=cpu, "
            "avoids it"};
  }
  std::size_t bytes() const override { return key_matrix_.bytes() + value_matrix_.bytes(); }

 private:
  /// A device uint32 column read as int32 holds the same numbers only below 2^31 (checked on the
  /// device); a float64 column reads as itself.
  bool readable_in_place(const Column& column, cudaStream_t stream) const {
    if (column.dtype == dtype_of<V>()) return true;
    if constexpr (std::is_same_v<V, std::int32_t>) {
      if (column.dtype == DType::kUint32) {
        if (detail::device_max(static_cast<const std::uint32_t*>(column.device), column.rows, stream) > 0x7fffffffu)
          throw std::invalid_argument(column.label() + ": rapids aggregates 32-bit integer values (below 2^31); the "
                                      "device column holds larger unsigned values");
        return true;
      }
    }
    return false;
  }
  /// The column's values into a column of a matrix (device to device when it lives there).
  template <class T>
  void copy_into(T* out, const Column& column, const std::string& what, cudaStream_t stream) {
    if (column.device != nullptr && (column.dtype == dtype_of<T>() || readable_in_place(column, stream))) {
      HASHLAB_CUDA_CHECK(cudaMemcpyAsync(out, column.device, rows_ * sizeof(T), cudaMemcpyDeviceToDevice, stream));
      return;
    }
    const auto host = detail::host_as<T>(column, what, stream);
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(out, host.data(), rows_ * sizeof(T), cudaMemcpyHostToDevice, stream));
    HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream));  // `host` goes out of scope
  }
  rapids::GroupByInput<V> view() const {
    rapids::GroupByInput<V> in;
    in.keys = keys_;
    in.key_columns = key_columns_;
    in.values = values_;
    in.value_columns = static_cast<int>(ops_.size());
    in.rows = rows_;
    in.host_keys = host_keys_.empty() ? nullptr : host_keys_.data();
    return in;
  }
  std::size_t rows_;
  int key_columns_;
  std::size_t value_columns_;
  std::vector<Aggregation> ops_;
  const std::uint32_t* keys_ = nullptr;
  const V* values_ = nullptr;
  DeviceBuffer<std::uint32_t> key_matrix_;
  DeviceBuffer<V> value_matrix_;
  std::vector<std::uint32_t> host_keys_;
  rapids::GroupByOptions options_;
  rapids::HashGroupBy groupby_;
  rapids::DeviceGroups groups_;
};

void check_rapids(const GroupByEntry& entry, const GroupByInput& input, const Options& options,
                  const cudaStream_t* stream) {
  check_table(entry, input, stream);
  const OptionReader o(entry.name, entry.options, options);
  parse_sampling(o);
  if (!(o.number(kTableFactorOption) > 0)) o.refuse(kTableFactorOption, "must be positive");
  const bool real = detail::is_real(input.values.front());
  for (const auto& v : input.values) {
    if (detail::is_real(v) != real)
      throw std::invalid_argument(v.label() + ": rapids takes value columns of one type (all integer or all float); " +
                                  input.values.front().label() + " differs");
    if (!real) detail::require_fits<std::int32_t>(v, "rapids aggregates 32-bit");
  }
}

std::unique_ptr<GroupBy> make_rapids(const GroupByEntry& entry, const GroupByInput& input, const Options& options,
                                     cudaStream_t stream) {
  check_rapids(entry, input, options, &stream);
  const OptionReader o(entry.name, entry.options, options);
  if (detail::is_real(input.values.front())) return std::make_unique<RapidsGroupBy<double>>(input, o, stream);
  return std::make_unique<RapidsGroupBy<std::int32_t>>(input, o, stream);
}

// ---- one aggregation per pass on the device: SP-EGA, LPHGA, the baselines ----------------------

/// A pass's groups, copied out of the algorithm's buffers when the next pass reuses them.
struct PassGroups {
  DeviceBuffer<std::uint32_t> keys;
  DeviceBuffer<std::uint64_t> aggregates;
  const std::uint32_t* key_view = nullptr;  // where the groups are (keys or the algorithm's buffers)
  const std::uint64_t* aggregate_view = nullptr;
  std::size_t count = 0;
};

/// The columns on the device (in place, or uploaded) and the passes over them.
class DevicePasses : public GroupBy {
 public:
  DevicePasses(const GroupByEntry& entry, const GroupByInput& input, cudaStream_t stream)
      : input_(input), passes_(plan_passes(input)), rows_(input.rows()), outputs_(passes_.size()) {
    keys_ = detail::device_as<std::uint32_t>(input.keys.front(), owned_keys_, entry.name + " groups by", stream);
    owned_values_.resize(input.values.size());
    for (std::size_t v = 0; v < input.values.size(); ++v)
      values_.push_back(detail::device_as<std::uint32_t>(input.values[v], owned_values_[v], uint32_user(entry.name), stream));
  }
  reference::GroupByResult result(cudaStream_t stream) override {
    std::vector<reference::GroupByResult> results;
    for (std::size_t p = 0; p < passes_.size(); ++p)
      results.push_back(baseline::groups_to_reference(outputs_[p].key_view, outputs_[p].aggregate_view, outputs_[p].count,
                                                      passes_[p].op, stream));
    return assemble(input_, passes_, std::move(results));
  }
  /// assemble() on the device: each pass's groups sorted by key, the passes' keys compared, the
  /// output columns taken from the passes (a mean divided from its sum and count).
  std::optional<DeviceGroupByResult> device_result(cudaStream_t stream) override {
    if (passes_.empty()) throw std::logic_error("group-by: no passes");
    DeviceGroupByResult out;
    out.groups = outputs_.front().count;
    std::vector<DeviceBuffer<std::int64_t>> sorted(passes_.size());
    std::vector<int> uses(passes_.size(), 0);
    DeviceBuffer<std::uint32_t> keys;
    for (std::size_t p = 0; p < passes_.size(); ++p) {
      const PassGroups& g = outputs_[p];
      if (g.count != out.groups) throw std::runtime_error("group-by: the passes found different groups");
      const auto order = detail::sort_order({g.key_view}, g.count, stream);
      auto pass_keys = detail::gather(g.key_view, order.data(), g.count, stream);
      // The 64-bit aggregates as int64: the same bits (every sum of 32-bit values, count, min and
      // max is below 2^63), as groups_to_reference reads them.
      sorted[p] = detail::gather(reinterpret_cast<const std::int64_t*>(g.aggregate_view), order.data(), g.count, stream);
      if (p == 0) keys = std::move(pass_keys);
      else if (detail::differ(keys.data(), pass_keys.data(), g.count, stream))
        throw std::runtime_error("group-by: the passes found different groups");
    }
    out.keys.push_back(std::move(keys));
    const auto pass_of = [&](std::size_t v, Aggregation op) {
      for (std::size_t p = 0; p < passes_.size(); ++p)
        if (passes_[p].op == op && (op == Aggregation::kCount || passes_[p].value == v)) return p;
      throw std::logic_error("group-by: a pass is missing");
    };
    // The means first (they read the sum and count passes, which the columns below may take over).
    std::vector<DeviceBuffer<double>> means(input_.values.size());
    std::vector<int> mean_uses(input_.values.size(), 0);
    for (std::size_t v = 0; v < input_.values.size(); ++v)
      for (Aggregation a : input_.aggregations) {
        if (a != Aggregation::kMean) {
          ++uses[pass_of(v, a)];
        } else if (mean_uses[v]++ == 0) {
          means[v] = detail::divide(sorted[pass_of(v, Aggregation::kSum)].data(),
                                    sorted[pass_of(v, Aggregation::kCount)].data(), out.groups, stream);
        }
      }
    // A column read by one output is handed over; one read by several is copied for each but the last.
    const auto take = [&](auto& buffer, int& remaining) {
      return --remaining == 0 ? std::move(buffer) : detail::copy_of(buffer.data(), out.groups, stream);
    };
    for (std::size_t v = 0; v < input_.values.size(); ++v)
      for (Aggregation a : input_.aggregations) {
        DeviceGroupByResult::Aggregate column;
        column.op = a;
        column.exact = a != Aggregation::kMean;
        if (column.exact) {
          const std::size_t p = pass_of(v, a);
          column.exact_values = take(sorted[p], uses[p]);
        } else {
          column.real_values = take(means[v], mean_uses[v]);
        }
        out.aggregates.push_back(std::move(column));
      }
    return out;
  }
  std::vector<const void*> device_inputs() const override {
    std::vector<const void*> out{keys_};
    out.insert(out.end(), values_.begin(), values_.end());
    return out;
  }

 protected:
  /// Keeps `count` groups of device arrays as pass `p`'s: a view when no later pass overwrites
  /// them (the last pass), else a copy (device to device, stream-ordered).
  void keep(std::size_t p, const std::uint32_t* keys, const std::uint64_t* aggregates, std::size_t count,
            cudaStream_t stream) {
    PassGroups& out = outputs_[p];
    out.count = count;
    if (p + 1 == passes_.size()) {
      out.key_view = keys;
      out.aggregate_view = aggregates;
      return;
    }
    if (out.keys.size() < count) {
      out.keys = DeviceBuffer<std::uint32_t>(count, stream);
      out.aggregates = DeviceBuffer<std::uint64_t>(count, stream);
    }
    out.key_view = out.keys.data();
    out.aggregate_view = out.aggregates.data();
    if (count == 0) return;
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(out.keys.data(), keys, count * sizeof(std::uint32_t), cudaMemcpyDeviceToDevice, stream));
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(out.aggregates.data(), aggregates, count * sizeof(std::uint64_t),
                                       cudaMemcpyDeviceToDevice, stream));
  }
  std::size_t groups() const { return outputs_.empty() ? 0 : outputs_.back().count; }

  const GroupByInput& input_;
  std::vector<Pass> passes_;
  std::size_t rows_;
  const std::uint32_t* keys_ = nullptr;
  std::vector<const std::uint32_t*> values_;
  DeviceBuffer<std::uint32_t> owned_keys_;
  std::vector<DeviceBuffer<std::uint32_t>> owned_values_;
  std::vector<PassGroups> outputs_;
};

constexpr const char* kLengthFactorOption = "length_factor";

/// SP-EGA and LPHGA on three buffers of L = length_factor x rows (EGA's premise: L = rows). The
/// first pass's pairs are loaded into red by prepare(), untimed (the paper's input lies in red);
/// a later pass's load is part of the timed run.
template <class Ega>
class EgaGroupBy final : public DevicePasses {
 public:
  EgaGroupBy(const GroupByEntry& entry, const GroupByInput& input, const OptionReader& o, cudaStream_t stream)
      : DevicePasses(entry, input, stream),
        ega_(static_cast<std::size_t>(std::ceil(o.number(kLengthFactorOption) * static_cast<double>(rows_))), stream) {}
  void prepare(cudaStream_t stream) override {
    load(passes_.front(), stream);
    loaded_ = true;
  }
  /// A run without prepare() loads its first pass too (the phases overwrite red: a run needs a load).
  void run(cudaStream_t stream) override {
    for (std::size_t p = 0; p < passes_.size(); ++p) {
      if (p > 0 || !loaded_) load(passes_[p], stream);
      const ega::Groups g = ega_.run(rows_, passes_[p].op, stream);
      keep(p, g.keys, g.aggregates, g.count, stream);
    }
    loaded_ = false;
  }
  Statistics statistics(cudaStream_t, bool) override {
    const double length = static_cast<double>(ega_.length());
    Statistics s{{{"passes", static_cast<double>(passes_.size()), "count"},
                  {"buffer_length_L", length, "items"},
                  {"groups", static_cast<double>(groups()), "groups"},
                  {"load_factor", static_cast<double>(groups()) / length, "groups/L"}},
                 {}};
    if constexpr (std::is_same_v<Ega, ega::SpEga>) {
      const auto& c = ega_.last_counts();
      s.numbers.push_back({"phase1_hashed_pairs", 1.0 - static_cast<double>(c.unhashed_pairs) / static_cast<double>(rows_),
                           "fraction"});
      s.numbers.push_back({"phase2_partial_table_groups", static_cast<double>(c.partial_table_groups), "groups"});
      s.numbers.push_back({"phase3_unhashed_pairs", static_cast<double>(c.unhashed_pairs), "pairs"});
      s.numbers.push_back({"phase5_probe_table_groups", static_cast<double>(c.probe_table_groups), "groups"});
    }
    return s;
  }
  std::vector<std::string> warnings() const override {
    const double load = static_cast<double>(groups()) / static_cast<double>(ega_.length());
    if constexpr (std::is_same_v<Ega, ega::Lphga>) {
      if (load > kFullLoad)
        return {"lphga: " + detail::with_commas(groups()) + " groups fill " + std::to_string(int(load * 100 + 0.5)) +
                "% of its table of L = " + detail::with_commas(ega_.length()) +
                " slots: linear probing near a full table probes far (seconds where sort takes milliseconds); "
                "length_factor=2 (a table of 2 x rows), or sp_ega or sort, avoids it"};
    }
    return {};
  }
  std::size_t bytes() const override { return ega_.bytes(); }

 private:
  static constexpr double kFullLoad = 0.9;  // EGA's "load factor above 0.90", where LPHGA degrades
  void load(const Pass& pass, cudaStream_t stream) { ega_.load(keys_, values_[pass.value], rows_, pass.op, stream); }
  Ega ega_;
  bool loaded_ = false;  // red holds the first pass's pairs
};

/// `stream`: where make() checks device-only columns; check() passes none and reads host columns only.
void check_ega(const GroupByEntry& entry, const GroupByInput& input, const Options& options, const cudaStream_t* stream) {
  check_table(entry, input, stream);
  const OptionReader o(entry.name, entry.options, options);
  if (!(o.number(kLengthFactorOption) >= 1))
    o.refuse(kLengthFactorOption, "at least 1 (L = length_factor x rows; the buffers hold every row)");
  check_uint32_values(entry, input);
  detail::require_no_key(input.keys.front(), kEmptyKey, "--algo " + entry.name, "rapids, sort or cpu", stream);
}

template <class Ega>
std::unique_ptr<GroupBy> make_ega(const GroupByEntry& entry, const GroupByInput& input, const Options& options,
                                  cudaStream_t stream) {
  check_ega(entry, input, options, &stream);
  return std::make_unique<EgaGroupBy<Ega>>(entry, input, OptionReader(entry.name, entry.options, options), stream);
}

constexpr const char* kHashLoadOption = "load";

/// baselines/'s sort-based and hash group-bys: each pass returns buffers of its own.
class BaselineGroupBy final : public DevicePasses {
 public:
  BaselineGroupBy(const GroupByEntry& entry, const GroupByInput& input, const OptionReader& o, cudaStream_t stream)
      : DevicePasses(entry, input, stream) {
    if (entry.name == "hash") {
      capacity_ = static_cast<std::size_t>(std::ceil(static_cast<double>(rows_) / o.number(kHashLoadOption)));
      table_ = std::make_unique<baseline::HashGroupBy>(capacity_, stream);
    }
    results_.resize(passes_.size());
  }
  void run(cudaStream_t stream) override {
    for (std::size_t p = 0; p < passes_.size(); ++p) {
      const Pass& pass = passes_[p];
      results_[p] = table_ ? table_->aggregate(keys_, values_[pass.value], rows_, pass.op, stream)
                           : baseline::sort_groupby(keys_, values_[pass.value], rows_, pass.op, stream);
      outputs_[p].key_view = results_[p].keys.data();
      outputs_[p].aggregate_view = results_[p].aggregate.data();
      outputs_[p].count = results_[p].groups;
    }
  }
  Statistics statistics(cudaStream_t, bool) override {
    Statistics s{{{"passes", static_cast<double>(passes_.size()), "count"},
                  {"groups", static_cast<double>(groups()), "groups"}},
                 {}};
    if (table_) s.numbers.push_back({"table_slots", static_cast<double>(capacity_), "slots"});
    return s;
  }
  std::vector<std::string> warnings() const override {
    if (!table_ || static_cast<double>(groups()) <= 0.9 * static_cast<double>(capacity_)) return {};
    return {"hash: " + detail::with_commas(groups()) + " groups in " + detail::with_commas(capacity_) +
            " slots: linear probing near a full table probes far; a lower load (the default 0.5) or sort avoids it"};
  }
  std::size_t bytes() const override { return table_ ? table_->bytes() : 0; }

 private:
  std::size_t capacity_ = 0;
  std::unique_ptr<baseline::HashGroupBy> table_;
  std::vector<baseline::DeviceGroups> results_;
};

void check_baseline(const GroupByEntry& entry, const GroupByInput& input, const Options& options,
                    const cudaStream_t* stream) {
  check_table(entry, input, stream);
  const OptionReader o(entry.name, entry.options, options);
  check_uint32_values(entry, input);
  if (entry.name == "hash") {
    const double load = o.number(kHashLoadOption);
    if (!(load > 0 && load <= 1)) o.refuse(kHashLoadOption, "must lie in (0, 1] (rows per slot)");
    detail::require_no_key(input.keys.front(), kEmptyKey, "--algo hash", "rapids, sort or cpu",
                           stream);
  }
}

std::unique_ptr<GroupBy> make_baseline(const GroupByEntry& entry, const GroupByInput& input, const Options& options,
                                       cudaStream_t stream) {
  check_baseline(entry, input, options, &stream);
  return std::make_unique<BaselineGroupBy>(entry, input, OptionReader(entry.name, entry.options, options), stream);
}

// ---- on the host: MP-EGA (host data, GPU work), the CPU group-bys -------------------------------

/// One aggregation per pass of host columns: each pass's groups, sorted and put side by side by
/// result(), untimed.
class HostPasses : public GroupBy {
 public:
  explicit HostPasses(const GroupByInput& input) : input_(input), passes_(plan_passes(input)) {}
  void run(cudaStream_t) override {
    results_.clear();
    for (const Pass& p : passes_) results_.push_back(run_pass(p));
  }
  reference::GroupByResult result(cudaStream_t) override {
    for (auto& r : results_) r.sort_by_key();
    return assemble(input_, passes_, results_);
  }

 protected:
  virtual reference::GroupByResult run_pass(const Pass& pass) = 0;
  std::size_t groups() const { return results_.empty() ? 0 : results_.front().groups(); }
  const GroupByInput& input_;
  std::vector<Pass> passes_;
  std::vector<reference::GroupByResult> results_;
};

constexpr const char* kBudgetOption = "gpu_memory_budget";
constexpr const char* kStreamsOption = "streams";

ega::MpEgaConfig mp_config(const OptionReader& o) {
  ega::MpEgaConfig config;
  config.gpu_memory_budget = o.bytes(kBudgetOption);
  const long long streams = o.integer(kStreamsOption);
  if (streams < 1 || streams > 64) o.refuse(kStreamsOption, "from 1 to 64");
  config.streams = static_cast<int>(streams);
  return config;
}

class MpEgaGroupBy final : public HostPasses {
 public:
  MpEgaGroupBy(const GroupByEntry& entry, const GroupByInput& input, const OptionReader& o, cudaStream_t stream)
      : HostPasses(input) {
    const Column& k = input.keys.front();
    if (k.host != nullptr) {
      keys_ = static_cast<const std::uint32_t*>(k.host);  // the host copy, in place
    } else {
      owned_keys_ = detail::host_as<std::uint32_t>(k, entry.name + " groups by", stream);
      keys_ = owned_keys_.data();
    }
    for (const auto& v : input.values) values_.push_back(detail::host_as<std::uint32_t>(v, uint32_user(entry.name), stream));
    mp_ = std::make_unique<ega::MpEga>(mp_config(o), std::max<std::size_t>(input.rows(), 1));
  }
  Statistics statistics(cudaStream_t, bool) override {
    const auto& s = mp_->stats();
    return {{{"passes", static_cast<double>(passes_.size()), "count"},
             {"tile_rows_L", static_cast<double>(s.tile_rows), "rows"},
             {"tiles", static_cast<double>(s.tiles), "count"},
             {"partitions", static_cast<double>(s.partitions), "count"},
             {"merged_partitions", static_cast<double>(s.merged_partitions), "count"},
             {"oversize_partitions", static_cast<double>(s.oversize_partitions), "count"},
             {"feedback_rounds", static_cast<double>(s.feedback_rounds), "count"},
             {"cpu_rows", static_cast<double>(s.cpu_rows), "rows"},
             {"last_pass_generate_ms", s.generate_ms, "ms"},
             {"last_pass_merge_ms", s.merge_ms, "ms"},
             {"last_pass_process_ms", s.process_ms, "ms"},
             {"groups", static_cast<double>(groups()), "groups"}},
            {}};
  }

 private:
  reference::GroupByResult run_pass(const Pass& pass) override {
    // The groups copied out of MP-EGA's pinned output, in its order (result() sorts them, untimed).
    const ega::HostGroups& g = mp_->run(keys_, values_[pass.value].data(), input_.rows(), pass.op);
    reference::GroupByResult r;
    r.keys.emplace_back(g.keys, g.keys + g.count);
    r.aggregates.push_back({pass.op, std::vector<std::int64_t>(g.aggregates, g.aggregates + g.count), {}});
    return r;
  }
  const std::uint32_t* keys_ = nullptr;
  std::vector<std::uint32_t> owned_keys_;
  std::vector<std::vector<std::uint32_t>> values_;
  std::unique_ptr<ega::MpEga> mp_;
};

void check_mp_ega(const GroupByEntry& entry, const GroupByInput& input, const Options& options,
                  const cudaStream_t* stream) {
  check_table(entry, input, stream);
  const OptionReader o(entry.name, entry.options, options);
  check_uint32_values(entry, input);
  detail::require_no_key(input.keys.front(), kEmptyKey, "--algo mp_ega", "rapids, sort or cpu", stream);
  try {
    mp_config(o).validate();
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(entry.name + ": " + e.what());
  }
}

std::unique_ptr<GroupBy> make_mp_ega(const GroupByEntry& entry, const GroupByInput& input, const Options& options,
                                     cudaStream_t stream) {
  check_mp_ega(entry, input, options, &stream);
  return std::make_unique<MpEgaGroupBy>(entry, input, OptionReader(entry.name, entry.options, options), stream);
}

/// A value column on the host as the CPU group-bys read it: integers exactly (int64), reals as
/// double.
struct HostValues {
  bool real = false;
  std::vector<std::int64_t> ints;
  std::vector<double> reals;
};
HostValues host_values(const Column& column, cudaStream_t stream) {
  HostValues v;
  v.real = detail::is_real(column);
  if (v.real) v.reals = detail::host_as<double>(column, "", stream);
  else v.ints = detail::host_as<std::int64_t>(column, "", stream);
  return v;
}

constexpr const char* kThreadsOption = "threads";

/// common/'s multi-threaded radix-partitioned group-by, one aggregation per pass.
class CpuGroupBy final : public HostPasses {
 public:
  CpuGroupBy(const GroupByInput& input, const OptionReader& o, cudaStream_t stream) : HostPasses(input) {
    const long long threads = o.integer(kThreadsOption);
    threads_ = threads > 0 ? static_cast<unsigned>(threads) : cpu::default_threads();
    keys_ = detail::host_as<std::uint32_t>(input.keys.front(), "cpu groups by", stream);
    for (const auto& v : input.values) values_.push_back(host_values(v, stream));
  }
  Statistics statistics(cudaStream_t, bool) override {
    return {{{"passes", static_cast<double>(passes_.size()), "count"},
             {"threads", static_cast<double>(threads_), "count"},
             {"groups", static_cast<double>(groups()), "groups"}},
            {}};
  }

 private:
  reference::GroupByResult run_pass(const Pass& pass) override {
    const HostValues& v = values_[pass.value];
    return v.real ? cpu::parallel_groupby(keys_, v.reals, pass.op, threads_)
                  : cpu::parallel_groupby(keys_, v.ints, pass.op, threads_);
  }
  unsigned threads_;
  std::vector<std::uint32_t> keys_;
  std::vector<HostValues> values_;
};

void check_cpu(const GroupByEntry& entry, const GroupByInput& input, const Options& options,
               const cudaStream_t* stream) {
  check_table(entry, input, stream);
  const OptionReader o(entry.name, entry.options, options);
  if (o.integer(kThreadsOption) < 0) o.refuse(kThreadsOption, "at least 0 (0: all cores)");
}

void check_cpu_stl(const GroupByEntry& entry, const GroupByInput& input, const Options& options,
                   const cudaStream_t* stream) {
  check_table(entry, input, stream);
  OptionReader(entry.name, entry.options, options);
}

/// The references' own group-by (an STL hash map per value column, every aggregation of it in one
/// pass): RAPIDS's CPU baseline, "cpu_stl" in its experiments.
class CpuStlGroupBy final : public GroupBy {
 public:
  /// The reference takes one value column per aggregation: each value column is repeated once per
  /// aggregation here, untimed.
  CpuStlGroupBy(const GroupByInput& input, cudaStream_t stream) : aggregations_(input.aggregations) {
    for (const auto& k : input.keys) keys_.push_back(detail::host_as<std::uint32_t>(k, "cpu_stl groups by", stream));
    const std::size_t n = aggregations_.size();
    for (const auto& v : input.values) {
      HostValues values = host_values(v, stream);
      real_.push_back(values.real);
      ints_.emplace_back(values.real ? 0 : n, values.ints);
      reals_.emplace_back(values.real ? n : 0, values.reals);
    }
  }
  void run(cudaStream_t) override {
    out_ = {};
    for (std::size_t v = 0; v < real_.size(); ++v) {
      reference::GroupByResult part = real_[v] ? reference::groupby(keys_, reals_[v], aggregations_)
                                               : reference::groupby(keys_, ints_[v], aggregations_);
      if (out_.keys.empty()) out_.keys = std::move(part.keys);
      for (auto& column : part.aggregates) out_.aggregates.push_back(std::move(column));
    }
  }
  reference::GroupByResult result(cudaStream_t) override { return out_; }
  Statistics statistics(cudaStream_t, bool) override {
    return {{{"passes", static_cast<double>(real_.size()), "count"},
             {"groups", static_cast<double>(out_.groups()), "groups"}},
            {}};
  }

 private:
  std::vector<Aggregation> aggregations_;
  std::vector<std::vector<std::uint32_t>> keys_;
  std::vector<bool> real_;
  std::vector<std::vector<std::vector<std::int64_t>>> ints_;  // per value column: one copy per aggregation
  std::vector<std::vector<std::vector<double>>> reals_;
  reference::GroupByResult out_;
};

// ---- the entries -------------------------------------------------------------------------------

std::vector<GroupByEntry> make_entries() {
  const auto passes = number_spec("passes", "count", "passes over the input (one per value column and base aggregation)");
  const auto groups = number_spec("groups", "groups", "groups found");
  std::vector<GroupByEntry> entries;

  GroupByEntry rapids;
  rapids.name = "rapids";
  rapids.description = "RAPIDS hash group-by (Chen et al.): sampling, 2.6x table, relaunch at 75%";
  rapids.max_key_columns = rapids::kMaxKeyColumns;
  rapids.across_servers = true;
  rapids.options = {{kSamplingOption, "the table size's prediction: gpu (triples), cpu (pairs) or none", "gpu"},
                    {kTableFactorOption, "slots per predicted group (sampling none: per row)", "2.6"}};
  rapids.statistics = {number_spec("predicted_groups", "groups", "the sampler's estimate of the groups (0: none)"),
                       number_spec("initial_table_slots", "slots", "the first table's size"),
                       number_spec("table_slots", "slots", "the table's size after the relaunches"),
                       number_spec("relaunches", "count", "fillTable relaunches with a larger table"), groups,
                       number_spec("sample_trials", "count", "pairs or triples the sampler drew"),
                       number_spec("sample_equal_pairs", "count", "equal pairs among them")};
  entries.push_back(rapids);

  GroupByEntry sp_ega;
  sp_ega.name = "sp_ega";
  sp_ega.description = "SP-EGA (Wang et al. 4.1): five phases on three buffers of L = rows";
  sp_ega.across_servers = true;
  sp_ega.options = {{kLengthFactorOption, "L = length_factor x rows (EGA's premise: 1)", "1"}};
  sp_ega.statistics = {passes, number_spec("buffer_length_L", "items", "L, the length of each buffer"), groups,
                       number_spec("load_factor", "groups/L", "groups per slot of the buffers"),
                       number_spec("phase1_hashed_pairs", "fraction", "pairs phase 1 aggregated into the partial table"),
                       number_spec("phase2_partial_table_groups", "groups", "groups of the partial hash table"),
                       number_spec("phase3_unhashed_pairs", "pairs", "pairs phase 3 collected for phase 4"),
                       number_spec("phase5_probe_table_groups", "groups", "groups of the linear-probing table")};
  entries.push_back(sp_ega);

  GroupByEntry lphga = sp_ega;
  lphga.name = "lphga";
  lphga.description = "LPHGA, EGA's linear-probing comparator, on the same three buffers";
  lphga.across_servers = true;
  lphga.statistics.resize(4);
  entries.push_back(lphga);

  GroupByEntry mp_ega;
  mp_ega.name = "mp_ega";
  mp_ega.description = "MP-EGA (Wang et al. 4.2): data in host memory, a GPU memory budget";
  mp_ega.clock = Clock::kHost;
  mp_ega.options = {{kBudgetOption, "device memory it may use, e.g. 2GiB (auto: 90% of the free memory)", "auto"},
                    {kStreamsOption, "CUDA streams s", "2"}};
  mp_ega.statistics = {passes,
                       number_spec("tile_rows_L", "rows", "rows per tile"),
                       number_spec("tiles", "count", "tiles of the partition-generating phase"),
                       number_spec("partitions", "count", "partitions (Theorem 1)"),
                       number_spec("merged_partitions", "count", "partitions after Algorithm 1's merge"),
                       number_spec("oversize_partitions", "count", "partitions larger than a stream's buffers"),
                       number_spec("feedback_rounds", "count", "feedback-load rounds of the oversize partitions"),
                       number_spec("cpu_rows", "rows", "rows the CPU aggregated"),
                       number_spec("last_pass_generate_ms", "ms", "the last pass's partition-generating phase"),
                       number_spec("last_pass_merge_ms", "ms", "the last pass's merge"),
                       number_spec("last_pass_process_ms", "ms", "the last pass's partition processing"),
                       groups};
  entries.push_back(mp_ega);

  GroupByEntry sort;
  sort.name = "sort";
  sort.description = "sort-based group-by (CUB radix sort + reduce-by-key, baselines/)";
  sort.across_servers = true;
  sort.statistics = {passes, groups};
  entries.push_back(sort);

  GroupByEntry hash;
  hash.name = "hash";
  hash.description = "cuDF-style linear-probing hash group-by (baselines/)";
  hash.across_servers = true;
  hash.options = {{kHashLoadOption, "rows per slot, in (0, 1]: slots = rows / load", "0.5"}};
  hash.statistics = {passes, groups, number_spec("table_slots", "slots", "slots of the hash table")};
  entries.push_back(hash);

  GroupByEntry cpu;
  cpu.name = "cpu";
  cpu.description = "multi-threaded radix-partitioned CPU group-by (common/)";
  cpu.needs_gpu = false;
  cpu.clock = Clock::kHost;
  cpu.options = {{kThreadsOption, "threads (0: all cores)", "0"}};
  cpu.statistics = {passes, number_spec("threads", "count", "threads"), groups};
  entries.push_back(cpu);

  GroupByEntry stl;
  stl.name = "cpu_stl";
  stl.description = "single-threaded CPU group-by on the STL's hash map (RAPIDS's CPU baseline, the references' own)";
  stl.needs_gpu = false;
  stl.clock = Clock::kHost;
  stl.max_key_columns = 1 << 16;
  stl.statistics = {number_spec("passes", "count", "passes over the input (one per value column)"), groups};
  entries.push_back(stl);

  for (auto& e : entries) {
    const std::string name = e.name;
    if (name == "rapids") {
      e.check = [](const GroupByInput& in, const Options& o) { check_rapids(groupby_entry("rapids"), in, o, nullptr); };
      e.make = [](const GroupByInput& in, const Options& o, cudaStream_t s) {
        return make_rapids(groupby_entry("rapids"), in, o, s);
      };
    } else if (name == "sp_ega" || name == "lphga") {
      e.check = [name](const GroupByInput& in, const Options& o) { check_ega(groupby_entry(name), in, o, nullptr); };
      e.make = [name](const GroupByInput& in, const Options& o, cudaStream_t s) {
        return name == "sp_ega" ? make_ega<ega::SpEga>(groupby_entry(name), in, o, s)
                                : make_ega<ega::Lphga>(groupby_entry(name), in, o, s);
      };
    } else if (name == "mp_ega") {
      e.check = [](const GroupByInput& in, const Options& o) { check_mp_ega(groupby_entry("mp_ega"), in, o, nullptr); };
      e.make = [](const GroupByInput& in, const Options& o, cudaStream_t s) {
        return make_mp_ega(groupby_entry("mp_ega"), in, o, s);
      };
    } else if (name == "sort" || name == "hash") {
      e.check = [name](const GroupByInput& in, const Options& o) { check_baseline(groupby_entry(name), in, o, nullptr); };
      e.make = [name](const GroupByInput& in, const Options& o, cudaStream_t s) {
        return make_baseline(groupby_entry(name), in, o, s);
      };
    } else if (name == "cpu") {
      e.check = [](const GroupByInput& in, const Options& o) { check_cpu(groupby_entry("cpu"), in, o, nullptr); };
      e.make = [](const GroupByInput& in, const Options& o, cudaStream_t s) -> std::unique_ptr<GroupBy> {
        const GroupByEntry& entry = groupby_entry("cpu");
        check_cpu(entry, in, o, &s);
        return std::make_unique<CpuGroupBy>(in, OptionReader(entry.name, entry.options, o), s);
      };
    } else {
      e.check = [](const GroupByInput& in, const Options& o) { check_cpu_stl(groupby_entry("cpu_stl"), in, o, nullptr); };
      e.make = [](const GroupByInput& in, const Options& o, cudaStream_t s) -> std::unique_ptr<GroupBy> {
        check_cpu_stl(groupby_entry("cpu_stl"), in, o, &s);
        return std::make_unique<CpuStlGroupBy>(in, s);
      };
    }
  }
  return entries;
}

}  // namespace

std::vector<std::string> output_names(const GroupByInput& input) {
  std::vector<std::string> names;
  for (const auto& k : input.keys) names.push_back(k.name);
  for (const auto& v : input.values)
    for (Aggregation a : input.aggregations) names.push_back(std::string(reference::to_string(a)) + "_" + v.name);
  return names;
}

const std::vector<GroupByEntry>& groupby_entries() {
  static const std::vector<GroupByEntry> entries = make_entries();
  return entries;
}

const GroupByEntry& groupby_entry(const std::string& name) {
  return detail::find_entry(groupby_entries(), name, "group-by algorithm");
}

}  // namespace hashlab::catalogue
