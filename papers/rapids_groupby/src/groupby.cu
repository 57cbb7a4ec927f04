// The RAPIDS hash group-by's host side (section 3): validation, prediction, the fillTable
// launches with the relaunch flag, extraction.
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "hashlab/rapids_groupby/groupby.hpp"
#include "table.cuh"

namespace hashlab::rapids {
namespace {

constexpr std::size_t kMaxRows = static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max());
constexpr std::size_t kMaxTableSize = std::numeric_limits<std::uint32_t>::max();

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument("rapids group-by: " + what); }

/// Slots a table of `size` may claim before the kernel asks for a relaunch (75%, section 3).
std::uint32_t max_fill(std::uint64_t size, double relaunch_load) {
  return static_cast<std::uint32_t>(std::floor(relaunch_load * static_cast<double>(size)));
}

/// The next table after a relaunch: kGrowthFactor times larger (at least one slot more).
std::uint64_t grown(std::uint64_t size) {
  return std::max<std::uint64_t>(size + 1, static_cast<std::uint64_t>(std::ceil(kGrowthFactor * static_cast<double>(size))));
}

/// Starts phase `name` on `phases` when there is one (ending the phase before it).
void begin_phase(PhaseTimer* phases, const char* name, cudaStream_t stream, double items, const char* unit) {
  if (phases != nullptr) phases->begin(name, stream, items, unit);
}

}  // namespace

const char* to_string(Sampling s) {
  switch (s) {
    case Sampling::kNone: return "none";
    case Sampling::kCpu: return "cpu";
    case Sampling::kGpu: return "gpu";
  }
  return "?";
}

template <class V>
void validate(const GroupByInput<V>& in, const std::vector<Aggregation>& ops, const GroupByOptions& opt) {
  if (in.key_columns < 1 || in.key_columns > kMaxKeyColumns)
    bad(std::to_string(in.key_columns) + " key columns; between 1 and " + std::to_string(kMaxKeyColumns) +
        " are supported");
  if (in.value_columns < 1 || in.value_columns > detail::kMaxValueColumns)
    bad(std::to_string(in.value_columns) + " value columns; between 1 and " +
        std::to_string(detail::kMaxValueColumns) + " are supported");
  if (ops.size() != static_cast<std::size_t>(in.value_columns))
    bad(std::to_string(ops.size()) + " reductions for " + std::to_string(in.value_columns) +
        " value columns; give one per column");
  for (Aggregation op : ops)
    if (static_cast<int>(op) < 0 || static_cast<int>(op) > static_cast<int>(Aggregation::kMean))
      bad("unknown reduction code " + std::to_string(static_cast<int>(op)));
  if (in.rows > kMaxRows)
    bad(std::to_string(in.rows) + " rows; the key-index column holds 32-bit row indices (at most " +
        std::to_string(kMaxRows) + " rows)");
  if (in.rows > 0 && (in.keys == nullptr || in.values == nullptr)) bad("null key or value matrix");
  if (opt.sampling == Sampling::kCpu && in.rows > 0 && in.host_keys == nullptr)
    bad("CPU sampling needs the host copy of the keys (GroupByInput::host_keys)");
  if (opt.sampling == Sampling::kNone && (opt.table_size < 1 || opt.table_size > kMaxTableSize))
    bad("fixed table size " + std::to_string(opt.table_size) + " slots; give 1 to " + std::to_string(kMaxTableSize));
  if (!(opt.table_factor >= 1.0) || !std::isfinite(opt.table_factor))
    bad("table factor " + std::to_string(opt.table_factor) + "; it must be >= 1");
  if (!(opt.relaunch_load > 0.0 && opt.relaunch_load <= 1.0))
    bad("relaunch load " + std::to_string(opt.relaunch_load) + "; it must be in (0, 1]");
}

RelaunchFlag::RelaunchFlag() {
  // One int in unified memory (section 3): the kernel sets it, the host reads it after the
  // launch without a copy.
  // The host reads it right after a stream synchronisation while other streams may run, which
  // managed memory allows only on devices with concurrent managed access (Linux, Pascal and newer).
  int device = 0, concurrent = 0;
  HASHLAB_CUDA_CHECK(cudaGetDevice(&device));
  HASHLAB_CUDA_CHECK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, device));
  if (!concurrent)
    throw std::runtime_error("rapids group-by: the relaunch flag lives in managed memory, and this device does not "
                             "support concurrent managed access (cudaDevAttrConcurrentManagedAccess)");
  HASHLAB_CUDA_CHECK(cudaMallocManaged(&flag_, sizeof(int), cudaMemAttachGlobal));
  *flag_ = 0;
}

RelaunchFlag::~RelaunchFlag() {
  if (flag_ != nullptr) cudaFree(flag_);
}

template <class V>
DeviceGroups HashGroupBy::aggregate(const GroupByInput<V>& in, const std::vector<Aggregation>& ops,
                                    const GroupByOptions& opt, cudaStream_t stream, PhaseTimer* phases) {
  validate(in, ops, opt);
  stats_ = GroupByStats{};
  const detail::PackedOps packed = detail::pack(ops);
  // Prediction's trials and extraction's groups are known only after the phase (stats_).
  begin_phase(phases, "predict", stream, 0, "trials");

  // 1. Predict the table length (section 3).
  std::uint64_t size = 1;
  switch (opt.sampling) {
    case Sampling::kNone:
      size = opt.table_size;
      break;
    case Sampling::kCpu: {
      const std::uint32_t* h = in.host_keys;
      const std::size_t rows = in.rows;
      const int columns = in.key_columns;
      const auto rows_equal = [h, rows, columns](std::uint64_t a, std::uint64_t b) {
        for (int c = 0; c < columns; ++c)
          if (h[c * rows + a] != h[c * rows + b]) return false;
        return true;
      };
      stats_.sample = sample_pairs_cpu(rows, opt.seed, rows_equal, cpu_pair_budget(rows, opt.sample_floor ? kMinCpuPairs : 0));
      stats_.predicted_cardinality = estimate_from_pairs(stats_.sample, in.rows);
      size = table_size_for(stats_.predicted_cardinality, opt.table_factor);
      break;
    }
    case Sampling::kGpu:
      stats_.sample = sample_triples_gpu(in.keys, in.key_columns, in.rows,
                                         gpu_triple_budget(in.rows, opt.sample_floor ? kMinGpuTriples : 0), opt.seed,
                                         stream);
      stats_.predicted_cardinality = estimate_from_triples(stats_.sample, in.rows);
      size = table_size_for(stats_.predicted_cardinality, opt.table_factor);
      break;
  }
  // 32-bit row indices cap the table at 2^32 - 1 slots, which at the relaunch load still holds
  // more groups than the 2^31 - 1 rows allowed: a larger prediction is clamped, not refused.
  size = std::min<std::uint64_t>(size, kMaxTableSize);
  stats_.initial_table_size = size;
  begin_phase(phases, "fill", stream, static_cast<double>(in.rows), "rows");

  // 2. fillTable, relaunched on a larger table while the kernel raises the flag (section 3).
  DeviceBuffer<std::uint32_t> used_slots(1, stream);
  DeviceBuffer<unsigned long long> probe_steps(opt.count_probes ? 1 : 0, stream);
  for (;;) {
    if (size > kMaxTableSize)
      throw std::runtime_error("rapids group-by: the table would need " + std::to_string(size) +
                               " slots after " + std::to_string(stats_.relaunches) + " relaunches (more than 2^32-1)");
    detail::Table<V> table(static_cast<std::uint32_t>(size), packed, stream);
    detail::init_table(table.view(), packed, stream);
    used_slots.fill_bytes(0, stream);
    probe_steps.fill_bytes(0, stream);
    HASHLAB_CUDA_CHECK(cudaMemsetAsync(relaunch_.get(), 0, sizeof(int), stream));
    detail::fill_table(in, packed, table.view(), max_fill(size, opt.relaunch_load), relaunch_.get(), used_slots.data(),
                       opt.count_probes ? probe_steps.data() : nullptr, stream);
    HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (*relaunch_.get() != 0) {  // abandon the partial table, grow, launch again
      ++stats_.relaunches;
      if (size == kMaxTableSize)
        throw std::runtime_error("rapids group-by: the largest table (2^32 - 1 slots) filled to " +
                                 std::to_string(opt.relaunch_load) + " after " + std::to_string(stats_.relaunches) +
                                 " relaunches");
      size = std::min<std::uint64_t>(grown(size), kMaxTableSize);
      continue;
    }
    stats_.table_size = size;
    if (opt.count_probes) stats_.probe_steps = read_device_value(probe_steps.data(), stream);
    begin_phase(phases, "extract", stream, 0, "groups");

    // 3. Extraction.
    DeviceGroups out = detail::extract(in, ops, table.view(), stream);
    if (phases != nullptr) phases->end(stream);
    stats_.groups = out.groups;
    return out;
  }
}

reference::GroupByResult DeviceGroups::to_reference(cudaStream_t stream, bool sorted) const {
  reference::GroupByResult result;
  const auto all_keys = keys.to_host(stream, groups * key_columns);
  result.keys.resize(key_columns);
  for (int c = 0; c < key_columns; ++c)
    result.keys[c].assign(all_keys.begin() + c * groups, all_keys.begin() + (c + 1) * groups);
  for (const OutputColumn& col : columns) {
    reference::AggregateColumn a;
    a.op = col.op;
    if (!col.exact.empty()) a.exact = col.exact.to_host(stream, groups);
    if (!col.real.empty()) a.real = col.real.to_host(stream, groups);
    result.aggregates.push_back(std::move(a));
  }
  if (sorted) result.sort_by_key();
  return result;
}

template void validate<std::int32_t>(const GroupByInput<std::int32_t>&, const std::vector<Aggregation>&,
                                     const GroupByOptions&);
template void validate<double>(const GroupByInput<double>&, const std::vector<Aggregation>&, const GroupByOptions&);
template DeviceGroups HashGroupBy::aggregate<std::int32_t>(const GroupByInput<std::int32_t>&,
                                                           const std::vector<Aggregation>&, const GroupByOptions&,
                                                           cudaStream_t, PhaseTimer*);
template DeviceGroups HashGroupBy::aggregate<double>(const GroupByInput<double>&, const std::vector<Aggregation>&,
                                                     const GroupByOptions&, cudaStream_t, PhaseTimer*);

}  // namespace hashlab::rapids
