// The group-by across GPU servers (servers_groupby.hpp).
#include "hashlab/catalogue/servers_groupby.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "hashlab/common/memory.hpp"
#include "hashlab/rapids_groupby/cardinality.hpp"
#include "hashlab/rapids_groupby/groupby.hpp"
#include "hashlab/servers/shuffle.hpp"

namespace hashlab::catalogue {

using reference::Aggregation;

const std::vector<std::string>& groupby_algorithms_across_servers() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& e : groupby_entries())
      if (e.across_servers) out.push_back(e.name);
    return out;
  }();
  return names;
}

PreAggregation parse_pre_aggregation(const std::string& name) {
  if (name == "auto") return PreAggregation::kAuto;
  if (name == "always") return PreAggregation::kAlways;
  if (name == "never") return PreAggregation::kNever;
  throw std::invalid_argument("pre-aggregation '" + name + "': auto (the RAPIDS estimator decides), always or never");
}

const char* to_string(PreAggregation mode) {
  return mode == PreAggregation::kAuto ? "auto" : mode == PreAggregation::kAlways ? "always" : "never";
}

namespace detail {

std::vector<Aggregation> base_aggregations(const std::vector<Aggregation>& requested) {
  auto wants = [&](Aggregation a) { return std::find(requested.begin(), requested.end(), a) != requested.end(); };
  std::vector<Aggregation> base;
  if (wants(Aggregation::kSum) || wants(Aggregation::kMean)) base.push_back(Aggregation::kSum);
  if (wants(Aggregation::kMin)) base.push_back(Aggregation::kMin);
  if (wants(Aggregation::kMax)) base.push_back(Aggregation::kMax);
  if (wants(Aggregation::kCount) || wants(Aggregation::kMean)) base.push_back(Aggregation::kCount);
  return base;
}

std::vector<bool> exact_partials(const std::vector<Aggregation>& base, const std::vector<bool>& integer_values) {
  std::vector<bool> exact;
  for (const bool integer : integer_values)
    for (const Aggregation a : base) exact.push_back(integer || a == Aggregation::kCount);
  return exact;
}

reference::GroupByResult merge_partials(const Partials& partials, std::size_t value_columns,
                                        const std::vector<Aggregation>& base, const std::vector<Aggregation>& requested) {
  const std::size_t n = partials.rows(), k = partials.keys.size(), b = base.size();
  if (partials.is_exact.size() != value_columns * b)
    throw std::logic_error("merge_partials: " + std::to_string(partials.is_exact.size()) + " partial columns for " +
                           std::to_string(value_columns) + " value columns of " + std::to_string(b) + " aggregations");
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    for (std::size_t c = 0; c < k; ++c)
      if (partials.keys[c][x] != partials.keys[c][y]) return partials.keys[c][x] < partials.keys[c][y];
    return false;
  });
  auto same_group = [&](std::size_t x, std::size_t y) {
    for (std::size_t c = 0; c < k; ++c)
      if (partials.keys[c][x] != partials.keys[c][y]) return false;
    return true;
  };
  auto base_index = [&](Aggregation a) {
    return static_cast<std::size_t>(std::find(base.begin(), base.end(), a) - base.begin());
  };

  reference::GroupByResult out;
  out.keys.assign(k, {});
  for (std::size_t v = 0; v < value_columns; ++v)
    for (const Aggregation a : requested) out.aggregates.push_back({a, {}, {}});

  std::vector<std::int64_t> exact(partials.is_exact.size());
  std::vector<double> real(partials.is_exact.size());
  for (std::size_t begin = 0; begin < n;) {
    std::size_t end = begin + 1;
    while (end < n && same_group(order[begin], order[end])) ++end;
    // Fold the group's partials, column by column, by the base aggregation each holds.
    for (std::size_t col = 0; col < partials.is_exact.size(); ++col) {
      const Aggregation op = base[col % b];
      for (std::size_t i = begin; i < end; ++i) {
        const std::size_t row = order[i];
        if (partials.is_exact[col]) {
          const std::int64_t x = partials.exact[col][row];
          exact[col] = i == begin ? x
                       : op == Aggregation::kMin ? std::min(exact[col], x)
                       : op == Aggregation::kMax ? std::max(exact[col], x)
                                                 : exact[col] + x;  // sums and counts add
        } else {
          const double x = partials.real[col][row];
          real[col] = i == begin ? x
                      : op == Aggregation::kMin ? std::min(real[col], x)
                      : op == Aggregation::kMax ? std::max(real[col], x)
                                                : real[col] + x;
        }
      }
    }
    for (std::size_t c = 0; c < k; ++c) out.keys[c].push_back(partials.keys[c][order[begin]]);
    std::size_t at = 0;
    for (std::size_t v = 0; v < value_columns; ++v)
      for (const Aggregation a : requested) {
        reference::AggregateColumn& column = out.aggregates[at++];
        if (a == Aggregation::kMean) {
          const std::size_t s = v * b + base_index(Aggregation::kSum), c = v * b + base_index(Aggregation::kCount);
          const double sum = partials.is_exact[s] ? static_cast<double>(exact[s]) : real[s];
          const double count = partials.is_exact[c] ? static_cast<double>(exact[c]) : real[c];
          column.real.push_back(sum / count);
          continue;
        }
        const std::size_t from = v * b + base_index(a);
        if (partials.is_exact[from]) column.exact.push_back(exact[from]);
        else column.real.push_back(real[from]);
      }
    begin = end;
  }
  return out;
}

reference::GroupByResult downloaded(const DeviceGroupByResult& groups, cudaStream_t stream) {
  reference::GroupByResult out;
  for (const auto& k : groups.keys) out.keys.push_back(k.to_host(stream, groups.groups));
  for (const auto& a : groups.aggregates) {
    reference::AggregateColumn column;
    column.op = a.op;
    if (a.exact) column.exact = a.exact_values.to_host(stream, groups.groups);
    else column.real = a.real_values.to_host(stream, groups.groups);
    out.aggregates.push_back(std::move(column));
  }
  return out;
}

}  // namespace detail

namespace {

/// A column's values on this server's device: its device copy, or an upload of its host copy.
struct OnDevice {
  const void* data = nullptr;
  DeviceBuffer<unsigned char> owned;
};

OnDevice on_device(const Column& column, cudaStream_t stream) {
  OnDevice out;
  if (column.device != nullptr || column.rows == 0) {
    out.data = column.device;
    return out;
  }
  const std::size_t bytes = column.rows * size_of(column.dtype);
  out.owned = DeviceBuffer<unsigned char>(bytes, stream);
  out.owned.copy_from_host(static_cast<const unsigned char*>(column.host), bytes, stream);
  out.data = out.owned.data();
  return out;
}

/// The RAPIDS report's GPU triple sampler on this server's key tuples (section 3: 1% of the rows,
/// at least kMinGpuTriples triples): the triples drawn and the equal pairs among them (none drawn
/// below 3 rows).
rapids::SampleCounts sample_groups(const std::vector<OnDevice>& keys, std::size_t rows, std::uint64_t seed,
                                   cudaStream_t stream) {
  if (rows < 3) return {};
  const std::uint32_t* packed = static_cast<const std::uint32_t*>(keys.front().data);
  DeviceBuffer<std::uint32_t> column_major;
  if (keys.size() > 1) {  // the sampler reads the key columns one after the other
    column_major = DeviceBuffer<std::uint32_t>(rows * keys.size(), stream);
    for (std::size_t c = 0; c < keys.size(); ++c)
      HASHLAB_CUDA_CHECK(cudaMemcpyAsync(column_major.data() + c * rows, keys[c].data, rows * sizeof(std::uint32_t),
                                         cudaMemcpyDeviceToDevice, stream));
    packed = column_major.data();
  }
  const std::uint64_t trials =
      std::max<std::uint64_t>(rapids::kMinGpuTriples, static_cast<std::uint64_t>(rapids::kSampleFraction * rows));
  return rapids::sample_triples_gpu(packed, static_cast<int>(keys.size()), rows, trials, seed, stream);
}

}  // namespace

namespace detail {

double pooled_groups(const std::vector<SampledShare>& servers) {
  rapids::SampleCounts pooled;
  for (const SampledShare& s : servers) pooled.trials += s.trials, pooled.equal_pairs += s.equal_pairs;
  double total = 0;  // a server without rows holds no group
  for (const SampledShare& s : servers)
    if (s.rows > 0) total += rapids::estimate_from_triples(pooled, s.rows);
  return total;
}

}  // namespace detail

namespace {

bool is_integer(DType dtype) { return dtype != DType::kFloat64; }

/// The result of a server without rows, in the shape of the others'.
reference::GroupByResult empty_result(std::size_t key_columns, std::size_t value_columns,
                                      const std::vector<Aggregation>& requested) {
  reference::GroupByResult out;
  out.keys.assign(key_columns, {});
  for (std::size_t v = 0; v < value_columns; ++v)
    for (const Aggregation a : requested) out.aggregates.push_back({a, {}, {}});
  return out;
}

/// The entry's checks of this server's share. A share without rows (more servers than rows, or a
/// key range that another server holds) is not refused: its columns' types, the aggregations and
/// the options are checked as the entry checks one row of zeros of the same columns, and an input
/// without rows on every server is refused once the servers have counted theirs.
void check_share(const GroupByEntry& entry, const GroupByInput& input, const Options& options) {
  const auto empty = [](const std::vector<Column>& columns) {
    return std::all_of(columns.begin(), columns.end(), [](const Column& c) { return c.rows == 0; });
  };
  if (input.keys.empty() || !empty(input.keys) || !empty(input.values)) return entry.check(input, options);
  static const std::uint64_t zero = 0;  // one row of any dtype's zero
  GroupByInput stand_in = input;
  for (std::vector<Column>* columns : {&stand_in.keys, &stand_in.values})
    for (Column& c : *columns) c.rows = 1, c.host = &zero, c.device = nullptr;
  entry.check(stand_in, options);
}

/// The entry made for `input`, prepared and run on `stream`; its warnings in *warnings.
std::unique_ptr<GroupBy> ran_entry(const GroupByEntry& entry, const GroupByInput& input, const Options& options,
                                   cudaStream_t stream, std::vector<std::string>* warnings) {
  auto groupby = entry.make(input, options, stream);
  groupby->prepare(stream);
  groupby->run(stream);
  if (warnings != nullptr) *warnings = groupby->warnings();
  return groupby;
}

reference::GroupByResult run_entry(const GroupByEntry& entry, const GroupByInput& input,
                                   const Options& options, cudaStream_t stream,
                                   std::vector<std::string>* warnings, bool collect = true) {
  auto groupby = ran_entry(entry, input, options, stream, warnings);
  if (!collect) {
    HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream));  // local work only: no peer is waited for
    return {};
  }
  return groupby->result(stream);
}

/// A server's partial groups on its device, as they go into the shuffle: the key columns and one
/// 8-byte column per (value column, base aggregation) in exact_partials' types. They are the
/// entry's device result where it has one; otherwise its host result converted and uploaded.
struct LocalPartials {
  std::size_t rows = 0;
  std::optional<DeviceGroupByResult> on_device;          // the entry's device result, retyped
  std::vector<DeviceBuffer<std::uint32_t>> keys;         // or the host result's keys, uploaded
  std::vector<DeviceBuffer<unsigned char>> values;       // and its partials
  std::vector<const std::uint32_t*> key_pointers() const {
    std::vector<const std::uint32_t*> out;
    if (on_device) for (const auto& k : on_device->keys) out.push_back(k.data());
    else for (const auto& k : keys) out.push_back(k.data());
    return out;
  }
  std::vector<servers::ValueColumn> value_columns() const {
    std::vector<servers::ValueColumn> out;
    if (on_device) {
      for (const auto& a : on_device->aggregates)
        out.push_back({a.exact ? static_cast<const void*>(a.exact_values.data()) : a.real_values.data(), 8});
    } else {
      for (const auto& v : values) out.push_back({v.data(), 8});
    }
    return out;
  }
};

/// The host path of LocalPartials, for an entry whose groups are on the host (none of the entries
/// that run across servers today: each has a device result).
void upload_partials(const reference::GroupByResult& partial, const std::vector<bool>& is_exact, LocalPartials& out,
                     servers::Communicator& comm) {
  cudaStream_t stream = comm.stream();
  out.rows = partial.groups();
  for (const auto& k : partial.keys) out.keys.push_back(to_device(k, stream));
  for (std::size_t col = 0; col < partial.aggregates.size(); ++col) {
    // 8 bytes a partial: int64 for integer values, double for floating ones (the references' forms).
    std::vector<unsigned char> bytes(out.rows * 8);
    const reference::AggregateColumn& a = partial.aggregates[col];
    for (std::size_t g = 0; g < out.rows; ++g) {
      if (is_exact[col]) {
        const std::int64_t x = a.is_exact() ? a.exact[g] : static_cast<std::int64_t>(a.real[g]);
        std::memcpy(bytes.data() + 8 * g, &x, 8);
      } else {
        const double x = a.is_exact() ? static_cast<double>(a.exact[g]) : a.real[g];
        std::memcpy(bytes.data() + 8 * g, &x, 8);
      }
    }
    out.values.push_back(to_device(bytes, stream));
    comm.synchronize();  // `bytes` is a host vector about to go
  }
  comm.synchronize();  // so is `partial`, whose keys were uploaded
}

}  // namespace

reference::GroupByResult servers_groupby(servers::Communicator& comm, const GroupByInput& input,
                                         const ServersGroupByOptions& options, ServerGroupByStats* stats) {
  ServerGroupByStats own;
  ServerGroupByStats& st = stats != nullptr ? *stats : own;
  st = {};
  cudaStream_t stream = comm.stream();
  const std::size_t rows = input.rows();
  const std::size_t key_columns = input.keys.size(), value_columns = input.values.size();
  st.rows_in = rows;

  // ---- the input: checked by the entry, on this server's device, its groups estimated ---------
  const GroupByEntry* entry = nullptr;
  std::vector<OnDevice> keys, values;
  rapids::SampleCounts sample;
  std::exception_ptr error = servers::guarded([&] {
    entry = &groupby_entry(options.algorithm);
    const auto& across = groupby_algorithms_across_servers();
    if (std::find(across.begin(), across.end(), entry->name) == across.end()) {
      std::string those;
      for (const auto& a : across) those += (those.empty() ? "" : ", ") + a;
      throw std::invalid_argument("servers_groupby: " + options.algorithm +
                                  (entry->needs_gpu ? " is not among the group-bys the servers run ("
                                                    : " runs on the CPU; the servers run GPU group-bys (") +
                                  those + ")");
    }
    check_share(*entry, input, options.entry_options);
    for (const auto& c : input.keys) keys.push_back(on_device(c, stream));
    for (const auto& c : input.values) values.push_back(on_device(c, stream));
    if (options.pre_aggregation == PreAggregation::kAuto)
      sample = sample_groups(keys, rows, options.seed + static_cast<std::uint64_t>(comm.rank()), stream);
  });
  comm.phase_boundary(error, "group-by: input");

  // ---- the decision, the same on every server ----------------------------------------------------
  const std::vector<detail::SampledShare> sampled =
      comm.all_gather_host(detail::SampledShare{rows, sample.trials, sample.equal_pairs});
  double rows_total = 0;
  for (const detail::SampledShare& s : sampled) rows_total += static_cast<double>(s.rows);
  if (options.pre_aggregation == PreAggregation::kAuto) {  // forced either way, nothing was sampled
    st.estimated_groups = sample.trials == 0 ? static_cast<double>(rows) : rapids::estimate_from_triples(sample, rows);
    st.estimated_groups_total = detail::pooled_groups(sampled);
  }
  if (rows_total == 0)  // the same on every server: each ends with the single-GPU entry's refusal
    comm.phase_boundary(std::make_exception_ptr(std::invalid_argument(input.keys.front().label() + ": no rows")),
                        "group-by: input");
  st.pre_aggregated = options.pre_aggregation == PreAggregation::kAlways ||
                      (options.pre_aggregation == PreAggregation::kAuto &&
                       st.estimated_groups_total <= kPreAggregateBelow * rows_total);
  std::vector<const std::uint32_t*> key_pointers;

  if (!st.pre_aggregated) {
    // ---- the rows to their servers, then the entry on each server's share ------------------------
    for (const auto& k : keys) key_pointers.push_back(static_cast<const std::uint32_t*>(k.data));
    std::vector<servers::ValueColumn> shuffled_values;
    for (std::size_t v = 0; v < value_columns; ++v)
      shuffled_values.push_back({values[v].data, size_of(input.values[v].dtype)});
    const servers::ShuffledTable got = servers::shuffle_by_key_hash(
        comm, {key_pointers.data(), static_cast<int>(key_columns)}, shuffled_values, rows);
    st.rows_sent = rows;
    st.rows_received = got.rows;
    st.loads = got.loads;
    reference::GroupByResult out;
    error = servers::guarded([&] {
      if (got.rows == 0) {
        out = empty_result(key_columns, value_columns, input.aggregations);
        return;
      }
      GroupByInput mine;
      mine.aggregations = input.aggregations;
      for (std::size_t c = 0; c < key_columns; ++c)
        mine.keys.push_back({input.keys[c].name, DType::kUint32, got.rows, nullptr, got.keys[c].data(), {}});
      for (std::size_t v = 0; v < value_columns; ++v)
        mine.values.push_back({input.values[v].name, input.values[v].dtype, got.rows, nullptr, got.values[v].data(), {}});
      out = run_entry(*entry, mine, options.entry_options, stream, &st.warnings, options.collect);
      if (!options.collect) out = empty_result(key_columns, value_columns, input.aggregations);
    });
    comm.phase_boundary(error, "group-by: local");
    st.groups = out.groups();
    return out;
  }

  // ---- pre-aggregation: each server's own groups, their partials shuffled and merged ---------------
  const std::vector<Aggregation> base = detail::base_aggregations(input.aggregations);
  std::vector<bool> integer_values;
  for (std::size_t v = 0; v < value_columns; ++v) integer_values.push_back(is_integer(input.values[v].dtype));
  const std::vector<bool> is_exact = detail::exact_partials(base, integer_values);
  LocalPartials partials;
  error = servers::guarded([&] {
    if (rows == 0) {
      upload_partials(empty_result(key_columns, value_columns, base), is_exact, partials, comm);
      return;
    }
    GroupByInput mine = input;
    mine.aggregations = base;
    auto groupby = ran_entry(*entry, mine, options.entry_options, stream, &st.warnings);
    partials.on_device = groupby->device_result(stream);
    if (!partials.on_device) {
      upload_partials(groupby->result(stream), is_exact, partials, comm);
      return;
    }
    partials.rows = partials.on_device->groups;
    if (partials.on_device->keys.size() != key_columns || partials.on_device->aggregates.size() != is_exact.size())
      throw std::logic_error("servers_groupby: " + entry->name + " gave " +
                             std::to_string(partials.on_device->keys.size()) + " key columns and " +
                             std::to_string(partials.on_device->aggregates.size()) + " aggregates for " +
                             std::to_string(key_columns) + " key columns and " + std::to_string(is_exact.size()) +
                             " partials");
    for (std::size_t col = 0; col < is_exact.size(); ++col)
      detail::retype(partials.on_device->aggregates[col], is_exact[col], partials.rows, stream);
  });
  comm.phase_boundary(error, "group-by: pre-aggregation");
  key_pointers = partials.key_pointers();
  const servers::ShuffledTable got = servers::shuffle_by_key_hash(
      comm, {key_pointers.data(), static_cast<int>(key_columns)}, partials.value_columns(), partials.rows);
  st.rows_sent = partials.rows;
  st.rows_received = got.rows;
  st.loads = got.loads;
  reference::GroupByResult out;
  error = servers::guarded([&] {
    // The partials merged where the shuffle left them (detail::merge_partials is the host reference).
    detail::DevicePartials received;
    received.rows = got.rows;
    for (const auto& k : got.keys) received.keys.push_back(k.data());
    for (const auto& v : got.values) received.columns.push_back(v.data());
    received.is_exact = is_exact;
    const DeviceGroupByResult merged =
        detail::merge_partials_on_device(received, value_columns, base, input.aggregations, stream);
    if (options.collect) {
      out = detail::downloaded(merged, stream);
    } else {
      HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream));  // the merge is this server's last work
      out = empty_result(key_columns, value_columns, input.aggregations);
    }
  });
  comm.phase_boundary(error, "group-by: merge");
  st.groups = out.groups();
  return out;
}

}  // namespace hashlab::catalogue
