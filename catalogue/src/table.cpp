// The table entries (table.hpp). No kernels: every table is its paper module's (or baselines/').
#include "hashlab/catalogue/table.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include "detail.hpp"
#include "device_answers.hpp"
#include "hashlab/baselines/linear_probing.hpp"
#include "hashlab/baselines/sorted_array.hpp"
#include "hashlab/catalogue/checks.hpp"
#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/common/sentinels.hpp"
#include "hashlab/cuckoo/cuckoo_table.hpp"
#include "hashlab/cuckoo/multivalue.hpp"
#include "hashlab/hashgraph/hashgraph.hpp"
#include "hashlab/hashgraph/probe.hpp"

namespace hashlab::catalogue {
namespace {

using detail::array_spec;
using detail::number_spec;
using detail::OptionReader;

constexpr const char* kLoadOption = "load";
constexpr const char* kMultivalueOption = "multivalue";
constexpr const char* kFunctionsOption = "functions";
constexpr const char* kCountEvictionsOption = "count_evictions";
constexpr const char* kVersionOption = "version";
constexpr const char* kProbeOption = "probe";
constexpr const char* kAnswerOption = "answer";
constexpr const char* kBinsOption = "bins";

/// The columns on the device: device copies in place, host ones uploaded.
struct DeviceColumns {
  DeviceColumns(const TableEntry& entry, const TableInput& in, cudaStream_t stream)
      : n(in.keys.rows), m(in.queries.rows) {
    const std::string what = entry.name + " takes";
    keys = detail::device_as<std::uint32_t>(in.keys, owned_keys, what, stream);
    values = detail::device_as<std::uint32_t>(in.values, owned_values, what, stream);
    queries = detail::device_as<std::uint32_t>(in.queries, owned_queries, what, stream);
  }
  std::vector<const void*> addresses() const { return {keys, values, queries}; }
  std::size_t n, m;
  const std::uint32_t* keys = nullptr;
  const std::uint32_t* values = nullptr;
  const std::uint32_t* queries = nullptr;
  DeviceBuffer<std::uint32_t> owned_keys, owned_values, owned_queries;
};

/// A map's answers: per query the value found or kNotFound, as count 0/1 and value (0 if none).
Lookup map_answers(std::vector<std::uint32_t> found) {
  Lookup out;
  out.count.resize(found.size());
  for (std::size_t j = 0; j < found.size(); ++j) {
    out.count[j] = found[j] != kNotFound;
    if (!out.count[j]) found[j] = 0;
    out.total += out.count[j];
  }
  out.value = std::move(found);
  return out;
}

cuckoo::CuckooConfig cuckoo_config(const OptionReader& o) {
  cuckoo::CuckooConfig config;  // 4 functions, 7 lg N evictions (cuckoo 4.3.1.1)
  config.space_factor = 1.0 / o.number(kLoadOption);
  config.num_hash_functions = static_cast<int>(o.integer(kFunctionsOption));
  config.count_evictions = o.boolean(kCountEvictionsOption);
  return config;
}

/// The cuckoo build's statistics: restarts and, with count_evictions, the eviction chains.
void cuckoo_statistics(const cuckoo::BuildStats& b, bool arrays, Statistics& s) {
  s.numbers.push_back({"slots", static_cast<double>(b.table_size), "slots"});
  s.numbers.push_back({"restarts", static_cast<double>(b.restarts()), "count"});
  s.numbers.push_back({"max_evictions", static_cast<double>(b.max_iterations), "count"});
  if (b.chain_lengths.empty()) return;
  const cuckoo::ChainSummary c = b.chains();
  s.numbers.push_back({"exchanges", static_cast<double>(c.exchanges), "count"});
  s.numbers.push_back({"mean_chain", c.mean, "exchanges"});
  s.numbers.push_back({"median_chain", static_cast<double>(c.median), "exchanges"});
  s.numbers.push_back({"longest_chain", static_cast<double>(c.max), "exchanges"});
  if (arrays) s.arrays.push_back({"chain_lengths", {b.chain_lengths.begin(), b.chain_lengths.end()}, "threads"});
}

std::vector<std::string> cuckoo_warnings(const cuckoo::BuildStats& b, double load) {
  if (b.restarts() == 0) return {};
  return {"cuckoo: the build restarted " + std::to_string(b.restarts()) + " times at load " + std::to_string(load) +
          " (each restart draws new hash functions and builds again): a lower load, or more functions, builds it at "
          "once"};
}

// ---- unique keys ---------------------------------------------------------------------------------

/// Cuckoo 4.3's basic table, the linear-probing table, or the sorted array, as a map: the probe
/// finds each query's value.
class MapTable final : public Table {
 public:
  MapTable(const TableEntry& entry, const TableInput& in, const OptionReader& o, cudaStream_t stream)
      : name_(entry.name), columns_(entry, in, stream), found_(std::max<std::size_t>(columns_.m, 1), stream) {
    found_.fill_bytes(0xff, stream);  // kNotFound until a probe writes
    if (name_ == "cuckoo") {
      load_ = o.number(kLoadOption);
      cuckoo_ = std::make_unique<cuckoo::CuckooHashTable>(cuckoo_config(o));
    } else if (name_ == "linear_probing") {
      load_ = o.number(kLoadOption);
      linear_ = std::make_unique<baseline::LinearProbingTable>(
          baseline::LinearProbingTable::capacity_for(columns_.n, load_), stream);
    } else {
      sorted_ = std::make_unique<baseline::SortedArray>();
    }
  }
  void reset(cudaStream_t stream) override {
    if (linear_) linear_->clear(stream);
  }
  void build(cudaStream_t stream) override {
    if (cuckoo_) cuckoo_->build(columns_.keys, columns_.values, columns_.n, stream);
    if (linear_) linear_->insert(columns_.keys, columns_.values, columns_.n, stream);
    if (sorted_) sorted_->build(columns_.keys, columns_.values, columns_.n, stream);
  }
  void probe(cudaStream_t stream) override {
    if (cuckoo_) cuckoo_->find(columns_.queries, columns_.m, found_.data(), stream);
    if (linear_) linear_->find(columns_.queries, columns_.m, found_.data(), stream);
    if (sorted_) sorted_->find(columns_.queries, columns_.m, found_.data(), stream);
  }
  Lookup result(cudaStream_t stream) override {
    if (linear_) linear_->check(stream);  // throws if an insert met the sentinel key
    return map_answers(found_.to_host(stream, columns_.m));
  }
  std::optional<DeviceLookup> device_result(cudaStream_t stream) override {
    if (linear_) linear_->check(stream);
    DeviceLookup out{DeviceBuffer<std::uint32_t>(columns_.m, stream), DeviceBuffer<std::uint32_t>(columns_.m, stream), 0};
    detail::map_answers(found_.data(), columns_.m, kNotFound, out.count.data(), out.value.data(), stream);
    out.total = detail::device_sum(out.count.data(), columns_.m, stream);
    return out;
  }
  std::vector<const void*> device_inputs() const override { return columns_.addresses(); }
  std::string check(const LookupReference& reference, cudaStream_t stream) override {
    if (!reference.keys_unique) return name_ + ": a map needs unique keys";
    return compare_lookup(reference, result(stream), {});
  }
  Statistics statistics(cudaStream_t, bool arrays) override {
    Statistics s;
    if (cuckoo_) cuckoo_statistics(cuckoo_->stats(), arrays, s);
    if (linear_) s.numbers.push_back({"slots", static_cast<double>(linear_->capacity()), "slots"});
    if (sorted_) s.numbers.push_back({"entries", static_cast<double>(columns_.n), "entries"});
    return s;
  }
  std::vector<std::string> warnings() const override {
    if (cuckoo_) return cuckoo_warnings(cuckoo_->stats(), load_);
    if (linear_ && load_ > kLinearProbingFull)
      return {"linear_probing at load " + std::to_string(load_) +
              ": probe sequences grow as the table fills (a find walks to an empty slot); load=0.5, cuDF's default, "
              "avoids it"};
    return {};
  }
  std::size_t bytes() const override {
    return cuckoo_ ? cuckoo_->bytes() : linear_ ? linear_->bytes() : sorted_->bytes();
  }

 private:
  static constexpr double kLinearProbingFull = 0.8;
  std::string name_;
  DeviceColumns columns_;
  DeviceBuffer<std::uint32_t> found_;
  double load_ = 0;
  std::unique_ptr<cuckoo::CuckooHashTable> cuckoo_;
  std::unique_ptr<baseline::LinearProbingTable> linear_;
  std::unique_ptr<baseline::SortedArray> sorted_;
};

// ---- repeated keys -------------------------------------------------------------------------------

/// Cuckoo 4.4's multivalue table or 4.5.2's sorted multivalue structure: a probe gives each query's
/// KeyInfo (count, offset of its values in sorted_values). result() reads the counts and the
/// smallest value of each run; check() also looks up each distinct key once (untimed) and compares
/// all its values.
template <class Structure>
class MultivalueTable final : public Table {
 public:
  template <class... Args>
  MultivalueTable(const TableEntry& entry, const TableInput& in, cudaStream_t stream, Args&&... structure_args)
      : columns_(entry, in, stream),
        structure_(std::forward<Args>(structure_args)...),
        info_(std::max<std::size_t>(columns_.m, 1), stream) {
    info_.fill_bytes(0xff, stream);
  }
  void build(cudaStream_t stream) override { structure_.build(columns_.keys, columns_.values, columns_.n, stream); }
  void probe(cudaStream_t stream) override { structure_.find(columns_.queries, columns_.m, info_.data(), stream); }
  Lookup result(cudaStream_t stream) override {
    const auto info = info_.to_host(stream, columns_.m);
    const auto values = sorted_values(stream);
    Lookup out;
    out.count.resize(info.size());
    out.value.resize(info.size());
    for (std::size_t j = 0; j < info.size(); ++j) {
      out.count[j] = info[j].count;
      out.total += info[j].count;
      if (info[j].count == 0) continue;
      if (std::uint64_t{info[j].offset} + info[j].count > values.size())
        throw std::runtime_error("multivalue probe: query " + std::to_string(j) + " points past the values");
      out.value[j] = *std::min_element(values.begin() + info[j].offset, values.begin() + info[j].offset + info[j].count);
    }
    return out;
  }
  std::optional<DeviceLookup> device_result(cudaStream_t stream) override {
    DeviceLookup out{DeviceBuffer<std::uint32_t>(columns_.m, stream), DeviceBuffer<std::uint32_t>(columns_.m, stream), 0};
    if (detail::multivalue_answers(info_.data(), columns_.m, structure_.sorted_values(), columns_.n, out.count.data(),
                                   out.value.data(), stream) > 0)
      throw std::runtime_error("multivalue probe: a query points past the values");
    out.total = detail::device_sum(out.count.data(), columns_.m, stream);
    return out;
  }
  std::vector<const void*> device_inputs() const override { return columns_.addresses(); }
  std::string check(const LookupReference& reference, cudaStream_t stream) override {
    if (auto problem = compare_lookup(reference, result(stream), {}); !problem.empty()) return problem;
    // Each distinct key's values, once.
    const std::size_t u = reference.unique_keys.size();
    if (u == 0) return "";
    auto unique = to_device(reference.unique_keys, stream);
    DeviceBuffer<cuckoo::KeyInfo> unique_info(u, stream);
    structure_.find(unique.data(), u, unique_info.data(), stream);
    const auto where = unique_info.to_host(stream);
    const auto values = sorted_values(stream);
    std::vector<std::uint32_t> got;
    for (std::size_t k = 0; k < u; ++k) {
      const auto [first, last] = values_of(reference, k);
      const auto expected_count = static_cast<std::size_t>(last - first);
      if (where[k].count != expected_count || std::uint64_t{where[k].offset} + where[k].count > values.size())
        return "key " + std::to_string(reference.unique_keys[k]) + ": count " + std::to_string(where[k].count) +
               " at offset " + std::to_string(where[k].offset) + ", reference count " + std::to_string(expected_count);
      got.assign(values.begin() + where[k].offset, values.begin() + where[k].offset + where[k].count);
      std::sort(got.begin(), got.end());
      if (!std::equal(got.begin(), got.end(), first))
        return "key " + std::to_string(reference.unique_keys[k]) + ": its values differ from the reference's";
    }
    return "";
  }
  Statistics statistics(cudaStream_t, bool arrays) override {
    Statistics s;
    s.numbers.push_back({"unique_keys", static_cast<double>(structure_.unique_keys()), "keys"});
    if constexpr (std::is_same_v<Structure, cuckoo::MultivalueHashTable>) cuckoo_statistics(structure_.stats(), arrays, s);
    return s;
  }
  std::vector<std::string> warnings() const override {
    if constexpr (std::is_same_v<Structure, cuckoo::MultivalueHashTable>)
      return cuckoo_warnings(structure_.stats(), 1.0 / structure_.stats().table_size * structure_.unique_keys());
    return {};
  }
  std::size_t bytes() const override { return structure_.bytes(); }

 private:
  std::vector<std::uint32_t> sorted_values(cudaStream_t stream) const {
    std::vector<std::uint32_t> values(columns_.n);
    if (columns_.n == 0) return values;
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(values.data(), structure_.sorted_values(), columns_.n * sizeof(std::uint32_t),
                                       cudaMemcpyDeviceToHost, stream));
    HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
    return values;
  }
  DeviceColumns columns_;
  Structure structure_;
  DeviceBuffer<cuckoo::KeyInfo> info_;
};

/// The linear-probing table as a multimap: duplicates are separate entries; a probe counts the
/// entries of each query's key.
class LinearProbingMultimap final : public Table {
 public:
  LinearProbingMultimap(const TableEntry& entry, const TableInput& in, double load, cudaStream_t stream)
      : columns_(entry, in, stream),
        load_(load),
        table_(baseline::LinearProbingTable::capacity_for(columns_.n, load), stream),
        counts_(std::max<std::size_t>(columns_.m, 1), stream) {
    counts_.fill_bytes(0xff, stream);
  }
  void reset(cudaStream_t stream) override { table_.clear(stream); }
  void build(cudaStream_t stream) override { table_.insert(columns_.keys, columns_.values, columns_.n, stream); }
  void probe(cudaStream_t stream) override { table_.count(columns_.queries, columns_.m, counts_.data(), stream); }
  Lookup result(cudaStream_t stream) override {
    table_.check(stream);
    Lookup out;
    out.count = counts_.to_host(stream, columns_.m);
    for (const auto c : out.count) out.total += c;
    return out;
  }
  std::optional<DeviceLookup> device_result(cudaStream_t stream) override {
    table_.check(stream);
    DeviceLookup out;
    out.count = detail::copy_of(counts_.data(), columns_.m, stream);
    out.total = detail::device_sum(out.count.data(), columns_.m, stream);
    return out;
  }
  std::vector<const void*> device_inputs() const override { return columns_.addresses(); }
  std::string check(const LookupReference& reference, cudaStream_t stream) override {
    return compare_lookup(reference, result(stream), {});
  }
  Statistics statistics(cudaStream_t, bool) override {
    return {{{"slots", static_cast<double>(table_.capacity()), "slots"}}, {}};
  }
  std::vector<std::string> warnings() const override {
    if (load_ <= 0.8) return {};
    return {"linear_probing at load " + std::to_string(load_) +
            ": a count walks the key's run and every run it meets; load=0.5, cuDF's default, avoids it"};
  }
  std::size_t bytes() const override { return table_.bytes(); }

 private:
  DeviceColumns columns_;
  double load_;
  baseline::LinearProbingTable table_;
  DeviceBuffer<std::uint32_t> counts_;
};

/// HashGraph V1 or V2 at `load` keys per vertex. The probe is probe-standard or probe-new
/// (section 3.4); answer=pairs writes every matching pair (result() then reads each query's count
/// and smallest value on the host), answer=total counts the matches, as the paper times them
/// (section 5: "the lists ... are not instantiated"). check() adds HashGraph's own table check:
/// every input row sits in its key's vertex list, entry.key == keys[entry.index].
class HashGraphTable final : public Table {
 public:
  HashGraphTable(const TableEntry& entry, const TableInput& in, const OptionReader& o, cudaStream_t stream)
      : input_(in),
        columns_(entry, in, stream),
        graph_(columns_.n, hashgraph::hash_range_for(columns_.n, o.number(kLoadOption)),
               {o.text(kVersionOption) == "v1" ? hashgraph::Version::kV1 : hashgraph::Version::kV2,
                static_cast<std::uint32_t>(o.integer(kBinsOption))},
               stream),
        prober_(graph_, o.text(kProbeOption) == "new" ? hashgraph::ProbeMethod::kNew : hashgraph::ProbeMethod::kStandard,
                std::max<std::size_t>(columns_.m, 1), stream),
        pairs_answer_(o.text(kAnswerOption) == "pairs"),
        count_(1, stream) {
    count_.fill_bytes(0xff, stream);
  }
  void build(cudaStream_t stream) override { graph_.build(columns_.keys, columns_.n, stream); }
  void probe(cudaStream_t stream) override {
    if (pairs_answer_) pairs_ = prober_.join(columns_.queries, columns_.m, stream);
    else prober_.count(columns_.queries, columns_.m, count_.data(), stream);
  }
  Lookup result(cudaStream_t stream) override {
    Lookup out;
    if (!pairs_answer_) {
      out.total = read_device_value(count_.data(), stream);
      return out;
    }
    const auto pairs = pairs_.to_host(stream);
    const auto values = detail::host_as<std::uint32_t>(input_.values, "hashgraph takes", stream);
    out.count.assign(columns_.m, 0);
    out.value.assign(columns_.m, 0);
    for (const auto& p : pairs) {
      const std::uint32_t v = values[p.r_index];
      out.value[p.s_index] = out.count[p.s_index]++ == 0 ? v : std::min(out.value[p.s_index], v);
    }
    out.total = pairs.size();
    return out;
  }
  std::optional<DeviceLookup> device_result(cudaStream_t stream) override {
    DeviceLookup out;
    if (!pairs_answer_) {
      out.total = read_device_value(count_.data(), stream);
      return out;
    }
    out.count = DeviceBuffer<std::uint32_t>(columns_.m, stream);
    out.value = DeviceBuffer<std::uint32_t>(columns_.m, stream);
    detail::pair_answers(pairs_.data(), pairs_.size(), columns_.values, columns_.m, out.count.data(), out.value.data(),
                         stream);
    out.total = pairs_.size();
    return out;
  }
  std::vector<const void*> device_inputs() const override { return columns_.addresses(); }
  std::string check(const LookupReference& reference, cudaStream_t stream) override {
    if (auto problem = compare_lookup(reference, result(stream), {}); !problem.empty()) return problem;
    return hashgraph::check_against_input(graph_.to_host(stream), reference.keys);
  }
  Statistics statistics(cudaStream_t stream, bool arrays) override {
    Statistics s;
    s.numbers.push_back({"vertices", static_cast<double>(graph_.range()), "vertices"});
    if (graph_.options().version == hashgraph::Version::kV2) {
      s.numbers.push_back({"bins_used", static_cast<double>(graph_.bins_used()), "bins"});
      s.numbers.push_back({"bin_size", static_cast<double>(graph_.bin_size()), "vertices"});
    }
    if (pairs_answer_) s.numbers.push_back({"pairs", static_cast<double>(pairs_.size()), "pairs"});
    if (!arrays) return s;
    // The lists' lengths from the offsets (section 3.1's CSR), and V2's bins as ranges of vertices.
    std::vector<std::uint32_t> offsets(graph_.range() + std::size_t{1});
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(offsets.data(), graph_.offsets(), offsets.size() * sizeof(std::uint32_t),
                                       cudaMemcpyDeviceToHost, stream));
    HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
    Array vertex_sizes{"vertex_sizes", std::vector<double>(graph_.range()), "entries"};
    for (std::size_t v = 0; v < graph_.range(); ++v) vertex_sizes.values[v] = offsets[v + 1] - offsets[v];
    s.arrays.push_back(std::move(vertex_sizes));
    if (graph_.options().version == hashgraph::Version::kV2 && graph_.bin_size() > 0) {
      Array bin_sizes{"bin_sizes", {}, "entries"};
      for (std::size_t b = 0; b < graph_.bins_used(); ++b) {
        const std::size_t first = std::min<std::size_t>(b * graph_.bin_size(), graph_.range());
        const std::size_t last = std::min<std::size_t>(first + graph_.bin_size(), graph_.range());
        bin_sizes.values.push_back(offsets[last] - offsets[first]);
      }
      s.arrays.push_back(std::move(bin_sizes));
    }
    return s;
  }
  std::size_t bytes() const override { return graph_.table_bytes(); }

 private:
  const TableInput& input_;
  DeviceColumns columns_;
  hashgraph::HashGraph graph_;
  hashgraph::Prober prober_;
  bool pairs_answer_;
  DeviceBuffer<std::uint64_t> count_;
  DeviceBuffer<reference::JoinPair> pairs_;
};

// ---- checks and the entries ------------------------------------------------------------------------

bool multivalue(const TableEntry& entry, const OptionReader& o) {
  return entry.name == "hashgraph" || o.boolean(kMultivalueOption);
}

void check(const TableEntry& entry, const TableInput& in, const Options& options, const cudaStream_t* stream) {
  detail::require_keys(in.keys, entry.name);
  detail::require_rows(in.values, in.keys.rows, in.keys);
  detail::require_keys(in.values, entry.name + "'s values");
  detail::require_keys(in.queries, entry.name + "'s queries");
  if (in.keys.rows == 0) throw std::invalid_argument(in.keys.label() + ": no rows to build from");
  if (in.queries.rows == 0) throw std::invalid_argument(in.queries.label() + ": no queries");
  if (in.keys.rows >= kNotFound || in.keys.rows > hashgraph::kMaxKeys)
    throw std::invalid_argument(in.keys.label() + ": too many rows (at most 2^32 - 2)");
  const OptionReader o(entry.name, entry.options, options);
  const bool multi = multivalue(entry, o);
  if (entry.name == "cuckoo" || entry.name == "linear_probing") {
    const double load = o.number(kLoadOption);
    if (!(load > 0 && load <= 1)) o.refuse(kLoadOption, "a load in (0, 1] (keys per slot)");
    detail::require_no_key(in.keys, kEmptyKey, entry.name, "hashgraph or sorted_array", stream);
  }
  if (entry.name == "cuckoo") {
    try {
      cuckoo_config(o).validate();
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(entry.name + ": " + e.what());
    }
  }
  if (entry.name == "hashgraph") {
    if (!(o.number(kLoadOption) > 0)) o.refuse(kLoadOption, "a positive load (keys per vertex)");
    o.choice(kVersionOption, {"v2", "v1"});
    o.choice(kProbeOption, {"standard", "new"});
    o.choice(kAnswerOption, {"pairs", "total"});
    const long long bins = o.integer(kBinsOption);
    if (bins < 1 || bins > hashgraph::kMaxBins) o.refuse(kBinsOption, "from 1 to " + std::to_string(hashgraph::kMaxBins));
    return;  // any key, any value, repeats allowed
  }
  if (multi) return;
  detail::require_unique(in.keys, entry.name + " holds one value per key (multivalue=true, or hashgraph, takes repeated keys)",
                         stream);
  const std::string not_found = " holds 4294967295, the not-found answer of " + entry.name;
  if (in.values.host != nullptr) {
    const auto* v = static_cast<const std::uint32_t*>(in.values.host);
    const auto it = std::find(v, v + in.values.rows, kNotFound);
    if (it != v + in.values.rows)
      throw std::invalid_argument(in.values.label() + ": row " + std::to_string(it - v) + not_found);
  } else if (stream != nullptr && in.values.device != nullptr &&  // kNotFound is the largest uint32
             detail::device_max(static_cast<const std::uint32_t*>(in.values.device), in.values.rows, *stream) ==
                 kNotFound) {
    throw std::invalid_argument(in.values.label() + ": the device column" + not_found);
  }
}

std::unique_ptr<Table> make(const TableEntry& entry, const TableInput& in, const Options& options, cudaStream_t stream) {
  check(entry, in, options, &stream);
  const OptionReader o(entry.name, entry.options, options);
  if (entry.name == "hashgraph") return std::make_unique<HashGraphTable>(entry, in, o, stream);
  if (!multivalue(entry, o)) return std::make_unique<MapTable>(entry, in, o, stream);
  if (entry.name == "cuckoo")
    return std::make_unique<MultivalueTable<cuckoo::MultivalueHashTable>>(entry, in, stream, cuckoo_config(o));
  if (entry.name == "sorted_array")
    return std::make_unique<MultivalueTable<cuckoo::SortedMultivalue>>(entry, in, stream);
  return std::make_unique<LinearProbingMultimap>(entry, in, o.number(kLoadOption), stream);
}

std::vector<TableEntry> make_entries() {
  const OptionSpec multi{kMultivalueOption, "repeated keys: the table's multivalue form", "false"};
  std::vector<TableEntry> entries(4);

  entries[0].name = "cuckoo";
  entries[0].description = "cuckoo hash table (Alcantara et al. 4.3): 4 functions, 1.25 N slots; 4.4's multivalue table";
  entries[0].max_load = 0.85;  // 4 functions, 7 lg N evictions: about every attempt fails at 1.1 N (cuckoo min_space)
  entries[0].options = {{kLoadOption, "keys per slot (1 / the space factor)", "0.8"},
                        {kFunctionsOption, "hash functions, 2 to 5", "4"},
                        multi,
                        {kCountEvictionsOption, "count every eviction chain (an instrumented build: not for timing)",
                         "false"}};
  entries[0].statistics = {number_spec("slots", "slots", "the table's slots"),
                           number_spec("restarts", "count", "builds restarted with new hash functions"),
                           number_spec("max_evictions", "count", "the eviction limit per thread (7 lg N)"),
                           number_spec("unique_keys", "keys", "distinct keys (multivalue)"),
                           number_spec("exchanges", "count", "atomicExch calls in all (count_evictions)"),
                           number_spec("mean_chain", "exchanges", "exchanges per item (count_evictions)"),
                           number_spec("median_chain", "exchanges", "the median chain (count_evictions)"),
                           number_spec("longest_chain", "exchanges", "the longest chain (count_evictions)"),
                           array_spec("chain_lengths", "threads", "threads by eviction chain length (count_evictions)")};
  entries[0].answers = [](const Options& o) {
    return OptionReader("cuckoo", table_entry("cuckoo").options, o).boolean(kMultivalueOption) ? Answers::kCountAndValue
                                                                                              : Answers::kValue;
  };

  entries[1].name = "hashgraph";
  entries[1].description = "HashGraph (Green et al.): the CSR table, V2 by default, probe-standard; repeated keys";
  entries[1].max_load = std::numeric_limits<double>::infinity();  // any number of keys per vertex
  entries[1].options = {{kLoadOption, "keys per vertex (the hash range is keys / load)", "1"},
                        {kVersionOption, "v2 (section 3.3, binned) or v1 (section 3.2)", "v2"},
                        {kProbeOption, "standard (walk the query's list) or new (Alg. 3: a HashGraph of the queries)",
                         "standard"},
                        {kAnswerOption, "pairs (every matching pair written) or total (the matches counted, as the "
                                        "paper times its probes)", "pairs"},
                        {kBinsOption, "V2's bins", std::to_string(hashgraph::kDefaultBins)}};
  entries[1].statistics = {number_spec("vertices", "vertices", "the hash range"),
                           number_spec("bins_used", "bins", "V2's bins"),
                           number_spec("bin_size", "vertices", "vertices per V2 bin"),
                           number_spec("pairs", "pairs", "matching pairs written (answer=pairs)"),
                           array_spec("vertex_sizes", "entries", "entries per vertex (the lists' lengths)"),
                           array_spec("bin_sizes", "entries", "entries per V2 bin")};
  entries[1].answers = [](const Options& o) {
    return OptionReader("hashgraph", table_entry("hashgraph").options, o).text(kAnswerOption) == "total"
               ? Answers::kTotal
               : Answers::kCountAndValue;
  };

  entries[2].name = "linear_probing";
  entries[2].description = "linear-probing table (baselines/, the cuDF stand-in); a multimap with multivalue=true";
  entries[2].max_load = 0.9;  // beyond, inserts degrade toward scanning the table
  entries[2].options = {{kLoadOption, "keys per slot, in (0, 1]", "0.5"}, multi};
  entries[2].statistics = {number_spec("slots", "slots", "the table's slots")};
  entries[2].answers = [](const Options& o) {
    return OptionReader("linear_probing", table_entry("linear_probing").options, o).boolean(kMultivalueOption)
               ? Answers::kCount
               : Answers::kValue;
  };

  entries[3].name = "sorted_array";
  entries[3].description = "sorted array with binary search (cuckoo 4.1's comparator); 4.5.2's sorted multivalue";
  entries[3].max_load = 0;  // n keys in n entries: no load
  entries[3].options = {multi};
  entries[3].statistics = {number_spec("entries", "entries", "the array's entries"),
                           number_spec("unique_keys", "keys", "distinct keys (multivalue)")};
  entries[3].answers = [](const Options& o) {
    return OptionReader("sorted_array", table_entry("sorted_array").options, o).boolean(kMultivalueOption)
               ? Answers::kCountAndValue
               : Answers::kValue;
  };

  for (auto& e : entries) {
    const std::string name = e.name;
    e.check = [name](const TableInput& in, const Options& o) { check(table_entry(name), in, o, nullptr); };
    e.make = [name](const TableInput& in, const Options& o, cudaStream_t s) { return make(table_entry(name), in, o, s); };
  }
  return entries;
}

}  // namespace

const char* to_string(Answers answers) {
  switch (answers) {
    case Answers::kValue: return "the value per query";
    case Answers::kCountAndValue: return "the count and smallest value per query";
    case Answers::kCount: return "the count per query";
    case Answers::kTotal: return "the matches of all queries counted together";
  }
  return "unknown";
}

const std::vector<TableEntry>& table_entries() {
  static const std::vector<TableEntry> entries = make_entries();
  return entries;
}

const TableEntry& table_entry(const std::string& name) { return detail::find_entry(table_entries(), name, "table"); }

}  // namespace hashlab::catalogue
