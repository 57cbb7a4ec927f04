// The adapters of table.hpp: each paper's table (or common/'s) with its own lookup.
#include "hashlab/owndata/table.hpp"

#include <algorithm>

#include "hashlab/baselines/linear_probing.hpp"
#include "hashlab/baselines/sorted_array.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/compare/tables.hpp"
#include "hashlab/cuckoo/cuckoo_table.hpp"
#include "hashlab/hashgraph/hashgraph.hpp"
#include "hashlab/hashgraph/probe.hpp"
#include "named.hpp"

namespace hashlab::owndata {
namespace {

constexpr detail::Named<TableAlgo> kAlgos[] = {
    {TableAlgo::kCuckoo, "cuckoo", "cuckoo hash table (Alcantara et al. 4.3): 4 functions, 1.25 N slots"},
    {TableAlgo::kHashGraph, "hashgraph", "HashGraph V2 (Green et al.), probed by probe-standard with the pairs written"},
    {TableAlgo::kLinearProbing, "linear_probing", "common/'s linear-probing table (the cuDF stand-in)"},
    {TableAlgo::kSortedArray, "sorted_array", "common/'s sorted array with binary search (cuckoo 4.1's comparator)"},
};
constexpr std::uint32_t kMarker = 0xffffffffu;  // the tables' empty key and not-found value

/// The unique-key tables: find gives the value or kMarker.
class MapRun final : public TableRun {
 public:
  MapRun(TableAlgo algo, const TableInput& input, const TableOptions& options, cudaStream_t stream)
      : n_(input.keys.data.size()), m_(input.queries.data.size()) {
    const double load = options.load > 0 ? options.load : algo == TableAlgo::kCuckoo ? 0.8 : 0.5;
    if (algo == TableAlgo::kCuckoo) {
      cuckoo::CuckooConfig config;
      config.space_factor = 1.0 / load;
      config.num_hash_functions = options.cuckoo_functions;
      cuckoo_ = std::make_unique<cuckoo::CuckooHashTable>(config);
    } else if (algo == TableAlgo::kLinearProbing) {
      linear_ = std::make_unique<baseline::LinearProbingTable>(baseline::LinearProbingTable::capacity_for(n_, load), stream);
    } else {
      sorted_ = std::make_unique<baseline::SortedArray>();
    }
    keys_ = to_device(input.keys.data, stream);
    values_ = to_device(input.values.data, stream);
    queries_ = to_device(input.queries.data, stream);
    found_ = DeviceBuffer<std::uint32_t>(m_, stream);
  }
  void build(cudaStream_t stream) override {
    if (cuckoo_) cuckoo_->build(keys_.data(), values_.data(), n_, stream);
    if (linear_) {
      linear_->clear(stream);
      linear_->insert(keys_.data(), values_.data(), n_, stream);
    }
    if (sorted_) sorted_->build(keys_.data(), values_.data(), n_, stream);
  }
  void probe(cudaStream_t stream) override {
    if (cuckoo_) cuckoo_->find(queries_.data(), m_, found_.data(), stream);
    if (linear_) linear_->find(queries_.data(), m_, found_.data(), stream);
    if (sorted_) sorted_->find(queries_.data(), m_, found_.data(), stream);
  }
  Lookup result(cudaStream_t stream) override {
    if (linear_) linear_->check(stream);
    Lookup out;
    out.value = found_.to_host(stream);
    out.count.resize(out.value.size());
    for (std::size_t j = 0; j < out.value.size(); ++j) {
      out.count[j] = out.value[j] != kMarker;
      if (!out.count[j]) out.value[j] = 0;
    }
    return out;
  }
  std::vector<Stat> stats() const override {
    if (cuckoo_)
      return {{"slots", static_cast<double>(cuckoo_->table_size())},
              {"restarts", static_cast<double>(cuckoo_->stats().restarts())},
              {"max_evictions", static_cast<double>(cuckoo_->stats().max_iterations)}};
    if (linear_) return {{"slots", static_cast<double>(linear_->capacity())}};
    return {{"entries", static_cast<double>(n_)}};
  }

 private:
  std::size_t n_, m_;
  std::unique_ptr<cuckoo::CuckooHashTable> cuckoo_;
  std::unique_ptr<baseline::LinearProbingTable> linear_;
  std::unique_ptr<baseline::SortedArray> sorted_;
  DeviceBuffer<std::uint32_t> keys_, values_, queries_, found_;
};

/// HashGraph: build over the keys, probe-standard join with the queries (every matching pair,
/// section 3.4), then per query the count and smallest value (on the host, untimed).
class HashGraphRun final : public TableRun {
 public:
  HashGraphRun(const TableInput& input, const TableOptions& options, cudaStream_t stream)
      : input_(input), n_(input.keys.data.size()), m_(input.queries.data.size()) {
    const double load = options.load > 0 ? options.load : 1.0;
    range_ = hashgraph::hash_range_for(n_, load);
    graph_ = std::make_unique<hashgraph::HashGraph>(n_, range_, hashgraph::BuildOptions{}, stream);
    prober_ = std::make_unique<hashgraph::Prober>(*graph_, hashgraph::ProbeMethod::kStandard, m_, stream);
    keys_ = to_device(input.keys.data, stream);
    queries_ = to_device(input.queries.data, stream);
  }
  void build(cudaStream_t stream) override { graph_->build(keys_.data(), n_, stream); }
  void probe(cudaStream_t stream) override { pairs_ = prober_->join(queries_.data(), m_, stream); }
  Lookup result(cudaStream_t stream) override {
    const auto pairs = pairs_.to_host(stream);
    Lookup out{std::vector<std::uint32_t>(m_, 0), std::vector<std::uint32_t>(m_, 0)};
    for (const auto& p : pairs) {
      const std::uint32_t v = input_.values.data[p.r_index];
      out.value[p.s_index] = out.count[p.s_index]++ == 0 ? v : std::min(out.value[p.s_index], v);
    }
    return out;
  }
  std::vector<Stat> stats() const override {
    return {{"vertices", static_cast<double>(range_)}, {"pairs", static_cast<double>(pairs_.size())}};
  }

 private:
  const TableInput& input_;
  std::size_t n_, m_;
  std::uint32_t range_ = 0;
  std::unique_ptr<hashgraph::HashGraph> graph_;
  std::unique_ptr<hashgraph::Prober> prober_;
  DeviceBuffer<std::uint32_t> keys_, queries_;
  DeviceBuffer<reference::JoinPair> pairs_;
};

}  // namespace

const char* to_string(TableAlgo algo) { return detail::named(kAlgos, algo).name; }
const char* describe(TableAlgo algo) { return detail::named(kAlgos, algo).description; }
TableAlgo parse_table_algo(const std::string& name) { return detail::parse_named(kAlgos, name, "table"); }
const std::vector<TableAlgo>& all_table_algos() {
  static const std::vector<TableAlgo> algos = detail::all_of(kAlgos);
  return algos;
}

namespace {
void check_input(const TableInput& input) {
  require_rows(input.keys.data.size(), input.keys.source, input.values.source, input.values.data.size());
  if (input.keys.data.empty()) throw InputError(input.keys.source + ": no rows to build from");
  if (input.queries.data.empty()) throw InputError(input.queries.source + ": no queries");
  if (input.keys.data.size() >= kMarker || input.keys.data.size() > hashgraph::kMaxKeys)
    throw InputError(input.keys.source + ": too many rows (at most 2^32 - 2)");
}
}  // namespace

void check_table(TableAlgo algo, const TableInput& input, const TableOptions& options) {
  check_input(input);
  const std::string who = std::string("--algo ") + to_string(algo);
  if (options.load < 0 || (algo != TableAlgo::kHashGraph && options.load > 1))
    throw InputError("--load " + std::to_string(options.load) + ": " + who +
                     (algo == TableAlgo::kHashGraph ? " takes a positive load" : " takes a load in (0, 1]"));
  if (algo == TableAlgo::kHashGraph) return;  // any key, any value, repeats allowed
  std::uint32_t key;
  std::size_t a, b;
  if (find_repeat(input.keys.data, key, a, b))
    throw InputError(input.keys.source + ": key " + std::to_string(key) + " appears at rows " + std::to_string(a) +
                     " and " + std::to_string(b) + "; " + who +
                     " holds one value per key (--algo hashgraph takes repeated keys)");
  const auto& values = input.values.data;
  const auto value = std::find(values.begin(), values.end(), kMarker);
  if (value != values.end())
    throw InputError(input.values.source + ": row " + std::to_string(value - values.begin()) +
                     " holds 4294967295, the not-found answer of " + who);
  if (algo != TableAlgo::kSortedArray) {
    const auto& keys = input.keys.data;
    const auto it = std::find(keys.begin(), keys.end(), kMarker);
    if (it != keys.end())
      throw InputError(input.keys.source + ": row " + std::to_string(it - keys.begin()) +
                       " holds key 4294967295, the empty-slot marker of " + who);
  }
  if (algo == TableAlgo::kCuckoo) {
    cuckoo::CuckooConfig config;
    config.space_factor = 1.0 / (options.load > 0 ? options.load : 0.8);
    config.num_hash_functions = options.cuckoo_functions;
    try {
      config.validate();
    } catch (const std::invalid_argument& e) {
      throw InputError(who + ": " + e.what());
    }
  }
}

std::unique_ptr<TableRun> make_table(TableAlgo algo, const TableInput& input, const TableOptions& options,
                                     cudaStream_t stream) {
  check_table(algo, input, options);
  if (algo == TableAlgo::kHashGraph) return std::make_unique<HashGraphRun>(input, options, stream);
  return std::make_unique<MapRun>(algo, input, options, stream);
}

Lookup reference_lookup(const TableInput& input) {
  check_input(input);
  const auto ref = compare::make_lookup_reference(input.keys.data, input.values.data, input.queries.data);
  Lookup out{ref.query_count, ref.query_value};
  for (std::size_t j = 0; j < out.count.size(); ++j)
    if (out.count[j] == 0) out.value[j] = 0;
  return out;
}

std::string compare_lookup(const Lookup& expected, const Lookup& actual, const TableInput& input) {
  if (expected.count.size() != actual.count.size())
    return std::to_string(actual.count.size()) + " answers for " + std::to_string(expected.count.size()) + " queries";
  for (std::size_t j = 0; j < expected.count.size(); ++j)
    if (expected.count[j] != actual.count[j] || expected.value[j] != actual.value[j])
      return "query " + std::to_string(j) + " (key " + std::to_string(input.queries.data[j]) + "): count " +
             std::to_string(actual.count[j]) + " value " + std::to_string(actual.value[j]) + ", reference count " +
             std::to_string(expected.count[j]) + " value " + std::to_string(expected.value[j]);
  return "";
}

}  // namespace hashlab::owndata
