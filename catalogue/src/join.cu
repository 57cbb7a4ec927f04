// The join entries (join.hpp). The one kernel of the catalogue: the gather that turns HashGraph's
// join pairs (row in R, row in S) into the rows (key, R's value, S's value) every join outputs.
#include "hashlab/catalogue/join.hpp"

#include <algorithm>
#include <stdexcept>

#include "detail.hpp"
#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/launch.cuh"
#include "hashlab/common/radix_sort.hpp"
#include "hashlab/common/sentinels.hpp"
#include "hashlab/hashgraph/hashgraph.hpp"
#include "hashlab/hashgraph/probe.hpp"
#include "hashlab/reference/cpu_baselines.hpp"

namespace hashlab::catalogue {
namespace {

using detail::array_spec;
using detail::number_spec;
using detail::OptionReader;

// Our adapter, not a paper's phase: one thread per pair, the key read from R (equal to S's).
__global__ void gather_join_rows(const reference::JoinPair* pairs, std::size_t count, const std::uint32_t* r_keys,
                                 const std::uint32_t* r_values, const std::uint32_t* s_values, std::uint32_t* key,
                                 std::uint32_t* value1, std::uint32_t* value2) {
  for (const std::size_t i : grid_stride(count)) {
    const reference::JoinPair p = pairs[i];
    key[i] = r_keys[p.r_index];
    value1[i] = r_values[p.r_index];
    value2[i] = s_values[p.s_index];
  }
}

pkpk::JoinedRows gather_pairs(const reference::JoinPair* pairs, std::size_t count, const pkpk::TableView& r,
                              const pkpk::TableView& s, cudaStream_t stream) {
  pkpk::JoinedRows out;
  out.size = count;
  out.key = DeviceBuffer<std::uint32_t>(count, stream);
  out.value1 = DeviceBuffer<std::uint32_t>(count, stream);
  out.value2 = DeviceBuffer<std::uint32_t>(count, stream);
  if (count == 0) return out;
  gather_join_rows<<<grid_for(count), kDefaultBlock, 0, stream>>>(pairs, count, r.keys, r.values, s.values,
                                                                  out.key.data(), out.value1.data(), out.value2.data());
  HASHLAB_CHECK_LAUNCH();
  return out;
}

void sort_by_key(std::vector<pkpk::JoinedRow>& rows) {
  cpu::radix_sort(rows, [](const pkpk::JoinedRow& row) { return row.key; });  // keys are unique
}

// ---- the tables' checks --------------------------------------------------------------------------

/// `stream`: where make() checks device-only columns; check() passes none and reads host columns only.
void check_tables(const JoinEntry& entry, const JoinInput& in, const cudaStream_t* stream) {
  const auto table = [&](const Column& keys, const Column& values, const char* which) {
    detail::require_keys(keys, entry.name);
    detail::require_rows(values, keys.rows, keys);
    if (values.dtype != DType::kUint32)
      throw std::invalid_argument(values.label() + ": " + entry.name + " joins unsigned 32-bit values; the column holds " +
                                  to_string(values.dtype));
    if (keys.rows == 0) throw std::invalid_argument(keys.label() + ": table " + which + " has no rows");
    if (keys.rows > pkpk::kMaxRowsPerTable)
      throw std::invalid_argument(keys.label() + ": " + std::to_string(keys.rows) + " rows; at most " +
                                  std::to_string(pkpk::kMaxRowsPerTable) + " per table");
    detail::require_unique(keys, "a Pk-Pk join needs unique keys in each table", stream);
  };
  table(in.r_keys, in.r_values, "R");
  table(in.s_keys, in.s_values, "S");
}

// ---- on the device -------------------------------------------------------------------------------

/// The tables on the device: device columns in place, host ones uploaded.
class DeviceJoin : public Join {
 public:
  DeviceJoin(const JoinEntry& entry, const JoinInput& in, cudaStream_t stream) {
    const std::string what = entry.name + " joins";
    r_ = {detail::device_as<std::uint32_t>(in.r_keys, owned_[0], what, stream),
          detail::device_as<std::uint32_t>(in.r_values, owned_[1], what, stream), in.r_keys.rows};
    s_ = {detail::device_as<std::uint32_t>(in.s_keys, owned_[2], what, stream),
          detail::device_as<std::uint32_t>(in.s_values, owned_[3], what, stream), in.s_keys.rows};
    sorted_ = entry.sorted_output;
  }
  std::vector<pkpk::JoinedRow> result(cudaStream_t stream) override {
    auto rows = rows_.to_host(stream);
    if (!sorted_) sort_by_key(rows);
    return rows;
  }
  const pkpk::JoinedRows* device_rows() const override { return &rows_; }
  std::vector<const void*> device_inputs() const override { return {r_.keys, r_.values, s_.keys, s_.values}; }
  Statistics statistics(cudaStream_t, bool) override {
    Statistics s;
    s.numbers.push_back({"rows_out", static_cast<double>(rows_.size), "rows"});
    return s;
  }

 protected:
  pkpk::TableView r_, s_;
  pkpk::JoinedRows rows_;

 private:
  DeviceBuffer<std::uint32_t> owned_[4];
  bool sorted_ = false;
};

constexpr const char* kPartitionsOption = "partitions";
constexpr const char* kAtomicOption = "atomic_scatter";
constexpr const char* kTraceOption = "trace";

/// The BSP-sort join; with trace=true every run records its buckets (BspTrace: it synchronises
/// after the steps it traces, so a traced run's time is not the join's).
class BspJoin final : public DeviceJoin {
 public:
  BspJoin(const JoinEntry& entry, const JoinInput& in, const OptionReader& o, cudaStream_t stream)
      : DeviceJoin(entry, in, stream), trace_(o.boolean(kTraceOption)) {
    options_.partitions = static_cast<std::uint32_t>(o.integer(kPartitionsOption));
    options_.atomic_scatter = o.boolean(kAtomicOption);
  }
  void run(cudaStream_t stream) override {
    if (trace_) last_trace_ = pkpk::BspTrace{};
    rows_ = pkpk::bsp_join(r_, s_, stream, options_, trace_ ? &last_trace_ : nullptr);
  }
  Statistics statistics(cudaStream_t stream, bool arrays) override {
    Statistics s = DeviceJoin::statistics(stream, arrays);
    if (!trace_) return s;
    const pkpk::BspTrace& t = last_trace_;
    s.numbers.push_back({"partitions", static_cast<double>(t.partitions), "count"});
    s.numbers.push_back({"tiles", static_cast<double>(t.tiles), "count"});
    s.numbers.push_back({"max_bucket", static_cast<double>(t.max_bucket), "rows"});
    s.numbers.push_back({"mean_bucket", t.mean_bucket, "rows"});
    if (arrays) s.arrays.push_back({"bucket_sizes", {t.bucket_sizes.begin(), t.bucket_sizes.end()}, "rows"});
    return s;
  }

 private:
  bool trace_;
  pkpk::BspOptions options_;
  pkpk::BspTrace last_trace_;
};

class SortJoin final : public DeviceJoin {
 public:
  using DeviceJoin::DeviceJoin;
  void run(cudaStream_t stream) override { rows_ = pkpk::sort_join(r_, s_, stream); }
};

constexpr const char* kKeyDomainOption = "key_domain";

/// The report's layout: key-indexed maps of key_domain entries (0: the largest key + 1, found
/// when the join is made, untimed).
class HmapSortJoin final : public DeviceJoin {
 public:
  HmapSortJoin(const JoinEntry& entry, const JoinInput& in, const OptionReader& o, cudaStream_t stream)
      : DeviceJoin(entry, in, stream), key_domain_(static_cast<std::uint64_t>(o.integer(kKeyDomainOption))) {
    if (key_domain_ == 0)
      key_domain_ = std::uint64_t{std::max(detail::device_max(r_.keys, r_.rows, stream),
                                           detail::device_max(s_.keys, s_.rows, stream))} + 1;
  }
  void run(cudaStream_t stream) override { rows_ = pkpk::hmap_sort_join(r_, s_, key_domain_, stream); }
  Statistics statistics(cudaStream_t stream, bool arrays) override {
    Statistics s = DeviceJoin::statistics(stream, arrays);
    s.numbers.push_back({"key_domain", static_cast<double>(key_domain_), "keys"});
    return s;
  }

 private:
  std::uint64_t key_domain_;
};

class HashJoin final : public DeviceJoin {
 public:
  using DeviceJoin::DeviceJoin;
  void run(cudaStream_t stream) override { rows_ = pkpk::hash_join(r_, s_, stream); }
};

/// HashGraph V2 over R at load 1 (range = |R|, section 5.3's default), probe-new with S (which
/// builds S's HashGraph over the same range and intersects the lists of each vertex), the pairs
/// written (Prober::join), then gathered. The tables are allocated in run(), from the
/// stream-ordered pool, like the working memory of the pk-pk module's joins.
class HashGraphJoin final : public DeviceJoin {
 public:
  using DeviceJoin::DeviceJoin;
  void run(cudaStream_t stream) override {
    pkpk::validate(r_, s_);
    range_ = hashgraph::hash_range_for(r_.rows, 1.0);
    hashgraph::HashGraph table(r_.rows, range_, {hashgraph::Version::kV2}, stream);
    table.build(r_.keys, r_.rows, stream);
    hashgraph::Prober prober(table, hashgraph::ProbeMethod::kNew, s_.rows, stream);
    const auto pairs = prober.join(s_.keys, s_.rows, stream);
    rows_ = gather_pairs(pairs.data(), pairs.size(), r_, s_, stream);
  }
  Statistics statistics(cudaStream_t stream, bool arrays) override {
    Statistics s = DeviceJoin::statistics(stream, arrays);
    s.numbers.push_back({"vertices", static_cast<double>(range_), "vertices"});
    return s;
  }

 private:
  std::uint32_t range_ = 0;
};

// ---- on the host -----------------------------------------------------------------------------------

class CpuJoin final : public Join {
 public:
  CpuJoin(const JoinInput& in, cudaStream_t stream)
      : r_keys_(detail::host_as<std::uint32_t>(in.r_keys, "cpu_join joins", stream)),
        r_values_(detail::host_as<std::uint32_t>(in.r_values, "cpu_join joins", stream)),
        s_keys_(detail::host_as<std::uint32_t>(in.s_keys, "cpu_join joins", stream)),
        s_values_(detail::host_as<std::uint32_t>(in.s_values, "cpu_join joins", stream)) {}
  void run(cudaStream_t) override { rows_ = pkpk::cpu_join(r_keys_, r_values_, s_keys_, s_values_); }
  std::vector<pkpk::JoinedRow> result(cudaStream_t) override {
    auto rows = rows_;
    sort_by_key(rows);
    return rows;
  }
  Statistics statistics(cudaStream_t, bool) override {
    return {{{"rows_out", static_cast<double>(rows_.size()), "rows"},
             {"threads", static_cast<double>(cpu::default_threads()), "count"}},
            {}};
  }

 private:
  std::vector<std::uint32_t> r_keys_, r_values_, s_keys_, s_values_;
  std::vector<pkpk::JoinedRow> rows_;
};

// ---- the entries ---------------------------------------------------------------------------------

void check(const JoinEntry& entry, const JoinInput& in, const Options& options, const cudaStream_t* stream) {
  check_tables(entry, in, stream);
  const OptionReader o(entry.name, entry.options, options);
  if (entry.name == "bsp") {
    if (in.r_keys.rows + in.s_keys.rows > pkpk::kMaxBspRows)
      throw std::invalid_argument("bsp sorts both tables together: at most " + std::to_string(pkpk::kMaxBspRows) +
                                  " rows");
    const long long p = o.integer(kPartitionsOption);
    if (p < 0 || p > pkpk::kMaxPartitions)
      o.refuse(kPartitionsOption, "from 0 (one per tile) to " + std::to_string(pkpk::kMaxPartitions));
    o.boolean(kAtomicOption);
    o.boolean(kTraceOption);
  } else if (entry.name == "hash_join") {
    detail::require_no_key(in.r_keys, kEmptyKey, "hash_join's table (built on R)", "sort_join or bsp", stream);
  } else if (entry.name == "sort_join_hmap") {
    const long long domain = o.integer(kKeyDomainOption);
    if (domain < 0 || domain > (1ll << 32)) o.refuse(kKeyDomainOption, "from 0 (the largest key + 1) to 2^32");
    if (domain > 0)
      for (const Column* keys : {&in.r_keys, &in.s_keys}) {
        if (keys->host != nullptr) {
          const auto* k = static_cast<const std::uint32_t*>(keys->host);
          const auto it = std::find_if(k, k + keys->rows, [&](std::uint32_t x) { return x >= domain; });
          if (it != k + keys->rows)
            throw std::invalid_argument(keys->label() + ": row " + std::to_string(it - k) + " holds key " +
                                        std::to_string(*it) + ", outside key_domain " + std::to_string(domain));
        } else if (stream != nullptr && keys->device != nullptr) {
          const std::uint32_t largest =
              detail::device_max(static_cast<const std::uint32_t*>(keys->device), keys->rows, *stream);
          if (largest >= domain)
            throw std::invalid_argument(keys->label() + ": the device column holds key " + std::to_string(largest) +
                                        ", outside key_domain " + std::to_string(domain));
        }
      }
  }
}

std::unique_ptr<Join> make(const JoinEntry& entry, const JoinInput& in, const Options& options, cudaStream_t stream) {
  check(entry, in, options, &stream);
  const OptionReader o(entry.name, entry.options, options);
  if (entry.name == "bsp") return std::make_unique<BspJoin>(entry, in, o, stream);
  if (entry.name == "sort_join") return std::make_unique<SortJoin>(entry, in, stream);
  if (entry.name == "sort_join_hmap") return std::make_unique<HmapSortJoin>(entry, in, o, stream);
  if (entry.name == "hash_join") return std::make_unique<HashJoin>(entry, in, stream);
  if (entry.name == "hashgraph") return std::make_unique<HashGraphJoin>(entry, in, stream);
  return std::make_unique<CpuJoin>(in, stream);
}

std::vector<JoinEntry> make_entries() {
  const auto rows_out = number_spec("rows_out", "rows", "joined rows");
  std::vector<JoinEntry> entries(6);
  entries[0].name = "bsp";
  entries[0].description = "Dash's BSP-sort Pk-Pk join (steps 1-9)";
  entries[0].sorted_output = true;
  entries[0].across_servers = true;
  entries[0].options = {{kPartitionsOption, "p, the buckets (0: one per tile, at most 1024)", "0"},
                        {kAtomicOption, "steps 7-8 by a global atomicAdd per element (the report's rejected way)", "false"},
                        {kTraceOption, "record the buckets of every run (synchronises: not for timing)", "false"}};
  entries[0].statistics = {rows_out, number_spec("partitions", "count", "p (with trace)"),
                           number_spec("tiles", "count", "sorted tiles (with trace)"),
                           number_spec("max_bucket", "rows", "the largest bucket (with trace)"),
                           number_spec("mean_bucket", "rows", "rows per bucket (with trace)"),
                           array_spec("bucket_sizes", "rows", "elements per destination bucket (with trace)")};
  entries[1].name = "sort_join";
  entries[1].description = "full-device radix-sort join (the pk-pk module's comparator)";
  entries[1].sorted_output = true;
  entries[1].across_servers = true;
  entries[1].statistics = {rows_out};
  entries[2].name = "sort_join_hmap";
  entries[2].description = "the report's layout on the full-device sort: bare keys, values from key-indexed maps";
  entries[2].sorted_output = true;
  entries[2].options = {{kKeyDomainOption, "entries of each key-indexed map (0: the largest key + 1)", "0"}};
  entries[2].statistics = {rows_out, number_spec("key_domain", "keys", "entries of each map")};
  entries[3].name = "hash_join";
  entries[3].description = "linear-probing hash join, build on R, probe with S, gather (baselines/, Crystal's stand-in)";
  entries[3].statistics = {rows_out};
  entries[3].across_servers = true;
  entries[4].name = "hashgraph";
  entries[4].description = "HashGraph V2 on R, probe-new with S (Green et al. 3.4), pairs gathered";
  entries[4].statistics = {rows_out, number_spec("vertices", "vertices", "HashGraph's hash range (|R|: load 1)")};
  entries[5].name = "cpu_join";
  entries[5].description = "multi-threaded CPU join (common/)";
  entries[5].needs_gpu = false;
  entries[5].clock = harness::Clock::kHost;
  entries[5].statistics = {rows_out, number_spec("threads", "count", "threads")};
  for (auto& e : entries) {
    const std::string name = e.name;
    e.check = [name](const JoinInput& in, const Options& o) { check(join_entry(name), in, o, nullptr); };
    e.make = [name](const JoinInput& in, const Options& o, cudaStream_t s) { return make(join_entry(name), in, o, s); };
  }
  return entries;
}

}  // namespace

const std::vector<JoinEntry>& join_entries() {
  static const std::vector<JoinEntry> entries = make_entries();
  return entries;
}

const JoinEntry& join_entry(const std::string& name) {
  for (const auto& e : join_entries())
    if (e.name == name + "_join") return e;  // "hash" for hash_join
  return detail::find_entry(join_entries(), name, "join algorithm", "the \"_join\" may be left out");
}

}  // namespace hashlab::catalogue
