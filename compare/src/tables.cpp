// The adapters of tables.hpp: each paper's table behind TableUnderTest, with its own check
// against the CPU reference. No kernels here: every table is the paper module's (or common/'s).
#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "hashlab/baselines/linear_probing.hpp"
#include "hashlab/baselines/sorted_array.hpp"
#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/compare/tables.hpp"
#include "hashlab/cuckoo/cuckoo_table.hpp"
#include "hashlab/cuckoo/multivalue.hpp"
#include "hashlab/hashgraph/hashgraph.hpp"
#include "hashlab/hashgraph/probe.hpp"
#include "hashlab/reference/lookup.hpp"

namespace hashlab::compare {
namespace {

std::string at(std::size_t j, std::uint32_t query) {
  return "query " + std::to_string(j) + " (key " + std::to_string(query) + ")";
}

/// Per query: the value found equals the reference's (unique keys; kNotFound for a miss).
std::string check_values(const std::vector<std::uint32_t>& found, const HostTableInput& host) {
  const LookupReference& ref = *host.reference;
  if (!ref.keys_unique) return "a map lookup needs unique keys";
  if (found.size() != ref.query_value.size())
    return std::to_string(found.size()) + " results for " + std::to_string(ref.query_value.size()) + " queries";
  for (std::size_t j = 0; j < found.size(); ++j)
    if (found[j] != ref.query_value[j])
      return at(j, (*host.queries)[j]) + ": found " + std::to_string(found[j]) + ", reference " +
             std::to_string(ref.query_value[j]);
  return "";
}

/// Per query: the count equals the reference's.
std::string check_counts(const std::vector<std::uint32_t>& counts, const HostTableInput& host) {
  const LookupReference& ref = *host.reference;
  if (counts.size() != ref.query_count.size())
    return std::to_string(counts.size()) + " results for " + std::to_string(ref.query_count.size()) + " queries";
  for (std::size_t j = 0; j < counts.size(); ++j)
    if (counts[j] != ref.query_count[j])
      return at(j, (*host.queries)[j]) + ": count " + std::to_string(counts[j]) + ", reference " +
             std::to_string(ref.query_count[j]);
  return "";
}

cuckoo::CuckooConfig cuckoo_config(double space_factor) {
  cuckoo::CuckooConfig config;  // 4 functions, 7 lg N evictions (cuckoo 4.3.1.1)
  config.space_factor = space_factor;
  config.validate();
  return config;
}

// ---- unique keys ---------------------------------------------------------------------------------

/// Cuckoo 4.3: the basic table at space factor 1 / load.
class CuckooMap final : public TableUnderTest {
 public:
  CuckooMap(std::size_t n, double load, cudaStream_t stream)
      : table_(cuckoo_config(1.0 / load)), found_(n, stream) {
    found_.fill_bytes(0xff, stream);  // kNotFound until a lookup writes
  }
  void build(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, cudaStream_t stream) override {
    table_.build(keys, values, n, stream);
  }
  void lookup(const std::uint32_t* queries, std::size_t m, cudaStream_t stream) override {
    m_ = std::min(m, found_.size());
    table_.find(queries, m_, found_.data(), stream);
  }
  std::string check(const HostTableInput& host, cudaStream_t stream) override {
    return check_values(found_.to_host(stream, m_), host);
  }
  std::size_t bytes() const override { return table_.bytes(); }
  int restarts() const override { return table_.stats().restarts(); }
  std::string lookup_semantics() const override { return "cuckoo find (Listing 4.2): the value per query"; }

 private:
  cuckoo::CuckooHashTable table_;
  DeviceBuffer<std::uint32_t> found_;
  std::size_t m_ = 0;
};

/// common/'s linear-probing table (the cuDF stand-in) as a map: find returns the first entry's value.
class LinearProbingMap final : public TableUnderTest {
 public:
  LinearProbingMap(std::size_t n, double load, cudaStream_t stream)
      : table_(baseline::LinearProbingTable::capacity_for(n, load), stream), found_(n, stream) {
    found_.fill_bytes(0xff, stream);
  }
  void reset(cudaStream_t stream) override { table_.clear(stream); }
  void build(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, cudaStream_t stream) override {
    table_.insert(keys, values, n, stream);
  }
  void lookup(const std::uint32_t* queries, std::size_t m, cudaStream_t stream) override {
    m_ = std::min(m, found_.size());
    table_.find(queries, m_, found_.data(), stream);
  }
  std::string check(const HostTableInput& host, cudaStream_t stream) override {
    table_.check(stream);  // throws if the input held the sentinel key
    return check_values(found_.to_host(stream, m_), host);
  }
  std::size_t bytes() const override { return table_.bytes(); }
  std::string lookup_semantics() const override { return "linear-probing find: the value per query"; }

 private:
  baseline::LinearProbingTable table_;
  DeviceBuffer<std::uint32_t> found_;
  std::size_t m_ = 0;
};

/// common/'s sorted array (cuckoo section 4.1's comparator): radix sort, binary search.
class SortedArrayMap final : public TableUnderTest {
 public:
  SortedArrayMap(std::size_t n, cudaStream_t stream) : found_(n, stream) { found_.fill_bytes(0xff, stream); }
  void build(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, cudaStream_t stream) override {
    array_.build(keys, values, n, stream);
  }
  void lookup(const std::uint32_t* queries, std::size_t m, cudaStream_t stream) override {
    m_ = std::min(m, found_.size());
    array_.find(queries, m_, found_.data(), stream);
  }
  std::string check(const HostTableInput& host, cudaStream_t stream) override {
    return check_values(found_.to_host(stream, m_), host);
  }
  std::size_t bytes() const override { return array_.bytes(); }
  std::string lookup_semantics() const override { return "binary search: the value per query"; }

 private:
  baseline::SortedArray array_;
  DeviceBuffer<std::uint32_t> found_;
  std::size_t m_ = 0;
};

// ---- both modes: HashGraph ---------------------------------------------------------------------

/// HashGraph V1 or V2 at `load` keys per vertex; the lookup is probe-standard's count (section
/// 3.4, timed as section 5 does: the matches are counted, not written). The check compares the
/// count with the reference's and runs HashGraph's own table check (every input row sits in its
/// key's vertex list, entry.key == keys[entry.index]), which covers what a count cannot.
class HashGraphTable final : public TableUnderTest {
 public:
  HashGraphTable(hashgraph::Version version, std::size_t n, double load, cudaStream_t stream)
      : graph_(n, hashgraph::hash_range_for(n, load), {version, hashgraph::kDefaultBins}, stream),
        prober_(graph_, hashgraph::ProbeMethod::kStandard, n, stream),
        count_(1, stream) {
    count_.fill_bytes(0xff, stream);
  }
  void build(const std::uint32_t* keys, const std::uint32_t*, std::size_t n, cudaStream_t stream) override {
    graph_.build(keys, n, stream);  // HashGraph stores the row of each key; the row indexes the values
  }
  void lookup(const std::uint32_t* queries, std::size_t m, cudaStream_t stream) override {
    prober_.count(queries, m, count_.data(), stream);
  }
  std::string check(const HostTableInput& host, cudaStream_t stream) override {
    const std::uint64_t got = read_device_value(count_.data(), stream);
    if (got != host.reference->total_matches)
      return "probe-standard counted " + std::to_string(got) + " matches, reference " +
             std::to_string(host.reference->total_matches);
    return hashgraph::check_against_input(graph_.to_host(stream), *host.keys);
  }
  std::size_t bytes() const override { return graph_.table_bytes(); }
  std::string lookup_semantics() const override { return "HashGraph probe-standard: the matches counted"; }

 private:
  hashgraph::HashGraph graph_;
  hashgraph::Prober prober_;
  DeviceBuffer<std::uint64_t> count_;
};

// ---- repeated keys -------------------------------------------------------------------------------

/// Cuckoo 4.4's multivalue table or 4.5.2's sorted multivalue structure: a lookup gives the
/// key's KeyInfo (count, offset of its values in sorted_values). The check compares every
/// query's count, then looks up each distinct key once (untimed) and compares its values.
template <class Structure>
class Multivalue final : public TableUnderTest {
 public:
  Multivalue(std::size_t n, cudaStream_t stream, std::string semantics)
      : info_(n, stream), semantics_(std::move(semantics)) {
    info_.fill_bytes(0xff, stream);
  }
  void build(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, cudaStream_t stream) override {
    structure_.build(keys, values, n, stream);
    n_ = n;
  }
  void lookup(const std::uint32_t* queries, std::size_t m, cudaStream_t stream) override {
    m_ = std::min(m, info_.size());
    structure_.find(queries, m_, info_.data(), stream);
  }
  std::string check(const HostTableInput& host, cudaStream_t stream) override {
    const LookupReference& ref = *host.reference;
    const auto info = info_.to_host(stream, m_);
    std::vector<std::uint32_t> counts(info.size());
    for (std::size_t j = 0; j < info.size(); ++j) counts[j] = info[j].count;
    if (auto problem = check_counts(counts, host); !problem.empty()) return problem;

    // Each distinct key's values, once.
    const std::size_t u = ref.unique_keys.size();
    if (u == 0) return "";
    auto unique = to_device(ref.unique_keys, stream);
    DeviceBuffer<cuckoo::KeyInfo> unique_info(u, stream);
    structure_.find(unique.data(), u, unique_info.data(), stream);
    const auto where = unique_info.to_host(stream);
    std::vector<std::uint32_t> values(n_);
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(values.data(), structure_.sorted_values(), n_ * sizeof(std::uint32_t),
                                       cudaMemcpyDeviceToHost, stream));
    HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<std::uint32_t> got;
    for (std::size_t k = 0; k < u; ++k) {
      const auto [first, last] = values_of(ref, k);
      const auto expected_count = static_cast<std::size_t>(last - first);
      if (where[k].count != expected_count || std::uint64_t{where[k].offset} + where[k].count > n_)
        return "key " + std::to_string(ref.unique_keys[k]) + ": count " + std::to_string(where[k].count) +
               " at offset " + std::to_string(where[k].offset) + ", reference count " + std::to_string(expected_count);
      got.assign(values.begin() + where[k].offset, values.begin() + where[k].offset + where[k].count);
      std::sort(got.begin(), got.end());
      if (!std::equal(got.begin(), got.end(), first))
        return "key " + std::to_string(ref.unique_keys[k]) + ": its values differ from the reference's";
    }
    return "";
  }
  std::size_t bytes() const override { return structure_.bytes(); }
  int restarts() const override {
    if constexpr (std::is_same_v<Structure, cuckoo::MultivalueHashTable>) return structure_.stats().restarts();
    return 0;
  }
  std::string lookup_semantics() const override { return semantics_; }

 private:
  Structure structure_;
  DeviceBuffer<cuckoo::KeyInfo> info_;
  std::string semantics_;
  std::size_t n_ = 0;
  std::size_t m_ = 0;
};

/// common/'s linear-probing table as a multimap: duplicates are separate entries; count walks
/// the key's run.
class LinearProbingMultimap final : public TableUnderTest {
 public:
  LinearProbingMultimap(std::size_t n, cudaStream_t stream)
      : table_(baseline::LinearProbingTable::capacity_for(n, kLinearProbingMultiLoad), stream), counts_(n, stream) {
    counts_.fill_bytes(0xff, stream);
  }
  void reset(cudaStream_t stream) override { table_.clear(stream); }
  void build(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, cudaStream_t stream) override {
    table_.insert(keys, values, n, stream);
  }
  void lookup(const std::uint32_t* queries, std::size_t m, cudaStream_t stream) override {
    m_ = std::min(m, counts_.size());
    table_.count(queries, m_, counts_.data(), stream);
  }
  std::string check(const HostTableInput& host, cudaStream_t stream) override {
    table_.check(stream);
    return check_counts(counts_.to_host(stream, m_), host);
  }
  std::size_t bytes() const override { return table_.bytes(); }
  std::string lookup_semantics() const override { return "linear-probing count: the entries per query"; }

 private:
  baseline::LinearProbingTable table_;
  DeviceBuffer<std::uint32_t> counts_;
  std::size_t m_ = 0;
};

}  // namespace

std::unique_ptr<TableUnderTest> make_table(TableKind kind, KeyMode mode, std::size_t n, double load_factor,
                                           cudaStream_t stream) {
  if (n == 0) throw std::invalid_argument(std::string("compare tables: ") + to_string(kind) + " needs n >= 1 keys");
  if (mode == KeyMode::kMulti) {
    switch (kind) {
      case TableKind::kCuckoo:
        return std::make_unique<Multivalue<cuckoo::MultivalueHashTable>>(
            n, stream, "cuckoo multivalue find (section 4.4): count and offset per query");
      case TableKind::kSortedArray:
        return std::make_unique<Multivalue<cuckoo::SortedMultivalue>>(
            n, stream, "sorted multivalue binary search (cuckoo 4.5.2): count and offset per query");
      case TableKind::kLinearProbing: return std::make_unique<LinearProbingMultimap>(n, stream);
      case TableKind::kHashGraphV1:
        return std::make_unique<HashGraphTable>(hashgraph::Version::kV1, n, kHashGraphMultiLoad, stream);
      case TableKind::kHashGraphV2:
        return std::make_unique<HashGraphTable>(hashgraph::Version::kV2, n, kHashGraphMultiLoad, stream);
    }
  }
  if (!runs_at_load(kind, load_factor))
    throw std::invalid_argument(std::string("compare tables: ") + to_string(kind) + " does not run at load factor " +
                                std::to_string(load_factor) + " (cuckoo <= " + std::to_string(kCuckooMaxLoad) +
                                ", linear probing <= " + std::to_string(kLinearProbingMaxLoad) +
                                ", sorted array at 1 only)");
  switch (kind) {
    case TableKind::kCuckoo: return std::make_unique<CuckooMap>(n, load_factor, stream);
    case TableKind::kLinearProbing: return std::make_unique<LinearProbingMap>(n, load_factor, stream);
    case TableKind::kSortedArray: return std::make_unique<SortedArrayMap>(n, stream);
    case TableKind::kHashGraphV1:
      return std::make_unique<HashGraphTable>(hashgraph::Version::kV1, n, load_factor, stream);
    case TableKind::kHashGraphV2:
      return std::make_unique<HashGraphTable>(hashgraph::Version::kV2, n, load_factor, stream);
  }
  throw std::invalid_argument("compare tables: unknown table kind");
}

}  // namespace hashlab::compare
