// The catalogue's joins and group-bys across GPU servers on tables in host memory (across_servers.hpp).
#include "hashlab/catalogue/across_servers.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <stdexcept>

#include "hashlab/common/memory.hpp"
#include "hashlab/common/radix_sort.hpp"

namespace hashlab::catalogue {
namespace {

/// Server d's rows of n: [n d / p, n (d + 1) / p).
std::pair<std::size_t, std::size_t> share_of(std::size_t n, std::size_t d, std::size_t p) {
  return {n * d / p, n * (d + 1) / p};
}

std::string names(const std::vector<std::string>& list) {
  std::string text;
  for (const auto& n : list) text += (text.empty() ? "" : ", ") + n;
  return text;
}

const void* host_of(const Column& column) {
  if (column.host == nullptr && column.rows > 0)
    throw std::invalid_argument(column.label() + ": the tables across servers are split from host memory; the column "
                                "has no host copy");
  return column.host;
}

/// Rows [begin, end) of a host column as `to`'s values. The entry's check on the whole column has
/// passed: every value fits `to` (a 32-bit entry refuses wider values and reals), so the
/// conversion is exact.
template <class To>
std::vector<To> convert_rows(const Column& column, std::size_t begin, std::size_t end) {
  std::vector<To> out(end - begin);
  const void* host = host_of(column);
  auto copy = [&](const auto* from) {
    for (std::size_t i = begin; i < end; ++i) out[i - begin] = static_cast<To>(from[i]);
  };
  switch (column.dtype) {
    case DType::kUint32: copy(static_cast<const std::uint32_t*>(host)); break;
    case DType::kInt32: copy(static_cast<const std::int32_t*>(host)); break;
    case DType::kInt64: copy(static_cast<const std::int64_t*>(host)); break;
    case DType::kFloat64: copy(static_cast<const double*>(host)); break;
  }
  return out;
}

template <class T>
DeviceBuffer<unsigned char> upload(const std::vector<T>& values, cudaStream_t stream) {
  DeviceBuffer<unsigned char> out(values.size() * sizeof(T), stream);
  if (!values.empty())
    out.copy_from_host(reinterpret_cast<const unsigned char*>(values.data()), values.size() * sizeof(T), stream);
  return out;
}

/// The value type an entry takes in device memory: rapids int32 or float64 (its two
/// instantiations), the others unsigned 32-bit.
DType device_value_type(const std::string& algorithm, const Column& column) {
  if (algorithm != "rapids") return DType::kUint32;
  return column.dtype == DType::kFloat64 ? DType::kFloat64 : DType::kInt32;
}

/// Frees what `release` holds on every server's own thread (its device current), unless the
/// group failed (then the buffers go with the process's devices' pools as the group does).
template <class Release>
void release_on_servers(servers::ServerGroup& group, Release&& release) {
  try {
    if (!group.failed())
      group.run([&](servers::Communicator& comm) {
        release(static_cast<std::size_t>(comm.rank()));
        comm.synchronize();
      });
  } catch (...) {
  }
}

}  // namespace

const std::vector<JoinAcrossServersSpec>& joins_across_servers() {
  static const std::vector<JoinAcrossServersSpec> specs = [] {
    std::vector<JoinAcrossServersSpec> s(3);
    s[0].entry = "bsp";
    s[0].how = "sampled splitters, the report's BSP join on each server";
    s[1].entry = "sort_join";
    s[1].options.local_join = pkpk::LocalJoin::kSort;
    s[1].how = "sampled splitters, the full sort join on each server";
    s[2].entry = "hash_join";
    s[2].options.partitioning = pkpk::Partitioning::kHash;
    s[2].options.local_join = pkpk::LocalJoin::kHash;
    s[2].how = "hash partitioning, a hash join on each server";
    return s;
  }();
  return specs;
}

const JoinAcrossServersSpec* join_across_servers(const std::string& entry) {
  for (const auto& s : joins_across_servers())
    if (s.entry == entry || s.entry == entry + "_join") return &s;
  return nullptr;
}

// ---- the group-by ----------------------------------------------------------------------------------

struct GroupByAcrossServers::Shares {
  std::vector<std::size_t> rows;                                // per server
  std::vector<std::vector<DeviceBuffer<unsigned char>>> keys;   // [server][key column], uint32
  std::vector<std::vector<DeviceBuffer<unsigned char>>> values;  // [server][value column]
  std::vector<DType> value_types;                    // on the device
};

GroupByAcrossServers::GroupByAcrossServers(servers::ServerGroup& group, const GroupByInput& whole,
                                           const ServersGroupByOptions& options)
    : group_(group), options_(options), aggregations_(whole.aggregations), shares_(std::make_unique<Shares>()) {
  const auto& across = groupby_algorithms_across_servers();
  const GroupByEntry& entry = groupby_entry(options.algorithm);
  if (std::find(across.begin(), across.end(), entry.name) == across.end())
    throw std::invalid_argument(entry.name + " does not run across GPU servers (the group-bys that do: " + names(across) +
                                ")");
  entry.check(whole, options.entry_options);
  for (const auto& k : whole.keys) key_names_.push_back(k.name);
  for (const auto& v : whole.values) {
    value_names_.push_back(v.name);
    shares_->value_types.push_back(device_value_type(entry.name, v));
  }
  const auto p = static_cast<std::size_t>(group.size());
  Shares& s = *shares_;
  s.rows.assign(p, 0);
  s.keys.resize(p);
  s.values.resize(p);
  group_.run([&](servers::Communicator& comm) {
    const auto d = static_cast<std::size_t>(comm.rank());
    const auto [begin, end] = share_of(whole.rows(), d, p);
    s.rows[d] = end - begin;
    // Each column converted on the host, uploaded, and waited for before its host copy goes.
    auto put = [&](const auto& host, std::vector<DeviceBuffer<unsigned char>>& to) {
      to.push_back(upload(host, comm.stream()));
      comm.synchronize();
    };
    for (const auto& k : whole.keys) put(convert_rows<std::uint32_t>(k, begin, end), s.keys[d]);
    for (std::size_t v = 0; v < whole.values.size(); ++v) {
      const Column& column = whole.values[v];
      switch (s.value_types[v]) {
        case DType::kInt32: put(convert_rows<std::int32_t>(column, begin, end), s.values[d]); break;
        case DType::kFloat64: put(convert_rows<double>(column, begin, end), s.values[d]); break;
        default: put(convert_rows<std::uint32_t>(column, begin, end), s.values[d]);
      }
    }
  });
}

GroupByAcrossServers::~GroupByAcrossServers() {
  release_on_servers(group_, [&](std::size_t d) {
    shares_->keys[d].clear();
    shares_->values[d].clear();
  });
}

reference::GroupByResult GroupByAcrossServers::run_once(bool collect, std::vector<ServerGroupByStats>* stats) {
  const Shares& s = *shares_;
  const std::size_t p = s.rows.size();
  std::mutex mutex;
  std::vector<reference::GroupByResult> parts(p);
  if (stats != nullptr) stats->assign(p, {});
  ServersGroupByOptions options = options_;
  options.collect = collect;
  group_.run([&](servers::Communicator& comm) {
    const auto d = static_cast<std::size_t>(comm.rank());
    GroupByInput mine;
    mine.aggregations = aggregations_;
    for (std::size_t c = 0; c < s.keys[d].size(); ++c)
      mine.keys.push_back({key_names_[c], DType::kUint32, s.rows[d], nullptr, s.keys[d][c].data(), {}});
    for (std::size_t v = 0; v < s.values[d].size(); ++v)
      mine.values.push_back({value_names_[v], s.value_types[v], s.rows[d], nullptr, s.values[d][v].data(), {}});
    ServerGroupByStats st;
    auto groups = servers_groupby(comm, mine, options, &st);
    std::lock_guard<std::mutex> lock(mutex);
    parts[d] = std::move(groups);
    if (stats != nullptr) (*stats)[d] = std::move(st);
  });
  if (!collect) return {};
  reference::GroupByResult all = std::move(parts[0]);
  for (std::size_t d = 1; d < p; ++d) all.append(parts[d]);
  all.sort_by_key();
  return all;
}

void GroupByAcrossServers::run() { run_once(false, nullptr); }

reference::GroupByResult GroupByAcrossServers::result(std::vector<ServerGroupByStats>* stats) {
  return run_once(true, stats);
}

// ---- the join ----------------------------------------------------------------------------------------

struct JoinAcrossServers::Shares {
  std::vector<DeviceBuffer<std::uint32_t>> r_keys, r_values, s_keys, s_values;  // per server
  std::vector<pkpk::JoinedRows> rows;                                          // the last run's
};

JoinAcrossServers::JoinAcrossServers(servers::ServerGroup& group, const std::string& entry_name,
                                     const JoinInput& whole, const Options& options)
    : group_(group), shares_(std::make_unique<Shares>()) {
  const JoinEntry& entry = join_entry(entry_name);
  const JoinAcrossServersSpec* spec = join_across_servers(entry.name);
  if (spec == nullptr) {
    std::vector<std::string> across;
    for (const auto& s : joins_across_servers()) across.push_back(s.entry);
    throw std::invalid_argument(entry.name + " does not run across GPU servers (the joins that do: " + names(across) +
                                ")");
  }
  entry.check(whole, options);
  options_ = spec->options;
  for (const auto& [name, value] : options) {
    // The entry's check took the values; bsp's options are its local join's on every server.
    if (entry.name == "bsp" && name == "partitions") {
      options_.local.partitions = static_cast<std::uint32_t>(std::stoull(value));
    } else if (entry.name == "bsp" && name == "atomic_scatter") {
      options_.local.atomic_scatter = value == "true" || value == "1" || value == "yes";
    } else {
      throw std::invalid_argument("option " + name + " of " + entry.name +
                                  " does not apply across servers (each server's local join records nothing of it)");
    }
  }
  const auto p = static_cast<std::size_t>(group.size());
  Shares& s = *shares_;
  s.r_keys.resize(p);
  s.r_values.resize(p);
  s.s_keys.resize(p);
  s.s_values.resize(p);
  s.rows.resize(p);
  stats_.assign(p, {});
  group_.run([&](servers::Communicator& comm) {
    const auto d = static_cast<std::size_t>(comm.rank());
    cudaStream_t stream = comm.stream();
    auto put = [&](const Column& column, DeviceBuffer<std::uint32_t>& to) {
      const auto [begin, end] = share_of(column.rows, d, p);
      to = DeviceBuffer<std::uint32_t>(end - begin, stream);
      if (end > begin) to.copy_from_host(static_cast<const std::uint32_t*>(host_of(column)) + begin, end - begin, stream);
    };
    put(whole.r_keys, s.r_keys[d]);
    put(whole.r_values, s.r_values[d]);
    put(whole.s_keys, s.s_keys[d]);
    put(whole.s_values, s.s_values[d]);
    comm.synchronize();
  });
}

JoinAcrossServers::~JoinAcrossServers() {
  release_on_servers(group_, [&](std::size_t d) {
    Shares& s = *shares_;
    s.r_keys[d] = {};
    s.r_values[d] = {};
    s.s_keys[d] = {};
    s.s_values[d] = {};
    s.rows[d] = {};
  });
}

void JoinAcrossServers::run() {
  Shares& s = *shares_;
  group_.run([&](servers::Communicator& comm) {
    const auto d = static_cast<std::size_t>(comm.rank());
    const pkpk::TableView r{s.r_keys[d].data(), s.r_values[d].data(), s.r_keys[d].size()};
    const pkpk::TableView sv{s.s_keys[d].data(), s.s_values[d].data(), s.s_keys[d].size()};
    s.rows[d] = {};  // the last run's rows go before this run allocates its own
    s.rows[d] = pkpk::servers_join(comm, r, sv, options_, &stats_[d]);
    comm.synchronize();
  });
}

std::vector<pkpk::JoinedRow> JoinAcrossServers::result() {
  Shares& s = *shares_;
  std::vector<std::vector<pkpk::JoinedRow>> parts(s.rows.size());
  group_.run([&](servers::Communicator& comm) {
    const auto d = static_cast<std::size_t>(comm.rank());
    parts[d] = s.rows[d].to_host(comm.stream());
  });
  std::vector<pkpk::JoinedRow> all;
  for (auto& part : parts) all.insert(all.end(), part.begin(), part.end());
  // Sampled splitters and a sorting local join give the rows sorted, server after server; a hash
  // partitioning or a local hash join does not.
  if (options_.partitioning == pkpk::Partitioning::kHash || options_.local_join == pkpk::LocalJoin::kHash)
    cpu::radix_sort(all, [](const pkpk::JoinedRow& row) { return row.key; });
  return all;
}

}  // namespace hashlab::catalogue
