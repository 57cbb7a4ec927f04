// MP-EGA (EGA section 4.2): configuration, the pinned and device workspace, and run(), which takes
// the phases in order: the partition-generating phase (mp_generate.cpp, with the kernels of
// mp_partition_kernels.cu), the CPU merge with Algorithm 1 (mp_merge.cpp) and the
// partition-processing phase with the feedback load (mp_process.cpp). Theorem 1's simulation:
// mp_theorem1.cu. What the files share: mp_ega_detail.hpp.
#include "hashlab/ega/mp_ega.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>

#include "hashlab/common/launch.cuh"
#include "hashlab/common/units.hpp"
#include "hashlab/ega/partition_plan.hpp"
#include "mp_ega_detail.hpp"

namespace hashlab::ega {

using detail::kBytesPerTileRow;
using detail::kMaxPartitions;
using detail::kMinTileRows;
using detail::kReservePerStream;
using detail::ms_since;

const char* to_string(MergeCopy copy) {
  switch (copy) {
    case MergeCopy::kHost: return "host_copy";
    case MergeCopy::kGpuGather: return "gpu_gather";
    case MergeCopy::kHostAndGather: return "host_and_gather";
    case MergeCopy::kPieceCopies: return "piece_copies";
  }
  return "?";
}

bool copies_merged_partitions(MergeCopy copy) { return copy == MergeCopy::kHost || copy == MergeCopy::kHostAndGather; }

void MpEgaConfig::validate() const {
  auto bad = [](const std::string& what) { throw std::invalid_argument("MP-EGA: " + what); };
  if (streams < 1 || streams > 64) bad("streams must lie in [1, 64], got " + std::to_string(streams));
  if (!(failure_probability > 0 && failure_probability < 1))
    bad("failure probability p must lie in (0, 1), got " + std::to_string(failure_probability));
  if (!(alpha_min > 0 && alpha_min <= alpha_max && alpha_max < 1))
    bad("need 0 < alpha_min <= alpha_max < 1, got alpha_min = " + std::to_string(alpha_min) +
        ", alpha_max = " + std::to_string(alpha_max));
  if (alpha_min > 1 - alpha_max + 1e-9)
    bad("alpha_min (" + std::to_string(alpha_min) + ") may not exceed 1 - alpha_max (" +
        std::to_string(1 - alpha_max) + "): a round must be able to load alpha_min L pairs");
  if (fixed_partitions > kMaxPartitions)
    bad("at most " + std::to_string(kMaxPartitions) + " partitions, got " + std::to_string(fixed_partitions));
}

reference::GroupByResult HostGroups::to_reference(Aggregation op) const {
  reference::GroupByResult result;
  result.keys.emplace_back(keys, keys + count);
  reference::AggregateColumn column;
  column.op = op;
  column.exact.assign(aggregates, aggregates + count);
  result.aggregates.push_back(std::move(column));
  result.sort_by_key();
  return result;
}

std::size_t MpEga::tile_rows_for(std::size_t budget, int streams) {
  if (streams < 1) return 0;
  const std::size_t per_stream = budget / static_cast<std::size_t>(streams);
  if (per_stream <= kReservePerStream) return 0;
  const std::size_t rows = std::min<std::size_t>((per_stream - kReservePerStream) / kBytesPerTileRow, 0xfffffffeu);
  return rows < kMinTileRows ? 0 : rows;
}

namespace {

// Pins `rows` elements when the buffer holds fewer; the old one is freed first, so that the two
// never hold host memory together.
template <class T>
void grow(PinnedBuffer<T>& buffer, std::size_t rows) {
  if (buffer.size() >= rows) return;
  buffer = PinnedBuffer<T>();
  buffer = PinnedBuffer<T>(rows);
}

}  // namespace

void MpEgaHostWorkspace::reserve(std::size_t tile_rows, std::size_t merged_rows, std::size_t result_rows) {
  grow(tile_keys, tile_rows);
  grow(tile_values, tile_rows);
  grow(merged_keys, merged_rows);
  grow(merged_values, merged_rows);
  grow(result_keys, result_rows);
  grow(result_values, result_rows);
}

MpEga::MpEga(const MpEgaConfig& config, std::size_t max_rows, MpEgaHostWorkspace* host)
    : config_(config), max_rows_(max_rows) {
  config_.validate();
  std::size_t free_bytes = 0, total_bytes = 0;
  HASHLAB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  std::size_t budget = config_.gpu_memory_budget;
  if (budget == 0) budget = free_bytes / 10 * 9;
  if (budget > free_bytes)
    throw std::invalid_argument("MP-EGA: GPU memory budget " + format_bytes(budget) + " exceeds the free device memory " +
                                format_bytes(free_bytes));
  tile_rows_ = tile_rows_for(budget, config_.streams);
  if (tile_rows_ == 0)
    throw std::invalid_argument("MP-EGA: GPU memory budget " + format_bytes(budget) + " cannot hold one tile per stream (" +
                                std::to_string(config_.streams) + " streams need at least " +
                                format_bytes(config_.streams * (kReservePerStream + kMinTileRows * kBytesPerTileRow)) +
                                ")");
  // No stream needs buffers longer than the input (a smaller input leaves the budget unused).
  tile_rows_ = std::min(tile_rows_, std::max(max_rows_, kMinTileRows));
  for (int s = 0; s < config_.streams; ++s) contexts_.push_back(std::make_unique<StreamContext>(tile_rows_));
  for (auto& c : contexts_) c->stream.synchronize();
  // Tile j writes at j * L, the last tile may be short; whole 16-byte vectors for the gather's reads.
  const std::size_t capacity = div_up<std::size_t>(max_rows_ + tile_rows_, 4) * 4;
  if (host == nullptr) {
    own_host_ = std::make_unique<MpEgaHostWorkspace>();
    host = own_host_.get();
  }
  host->reserve(capacity, copies_merged_partitions(config_.merge_copy) ? max_rows_ : 0, max_rows_);
  tile_keys_ = host->tile_keys.data();
  tile_values_ = host->tile_values.data();
  merged_keys_ = host->merged_keys.data();
  merged_values_ = host->merged_values.data();
  result_keys_ = host->result_keys.data();
  result_values_ = host->result_values.data();
  void* mapped = nullptr;  // the gather reads the tiles' output where it lies (unified addressing)
  HASHLAB_CUDA_CHECK(cudaHostGetDevicePointer(&mapped, tile_keys_, 0));
  tile_keys_device_ = static_cast<const std::uint32_t*>(mapped);
  HASHLAB_CUDA_CHECK(cudaHostGetDevicePointer(&mapped, tile_values_, 0));
  tile_values_device_ = static_cast<const std::uint64_t*>(mapped);
}

MpEga::~MpEga() = default;

const HostGroups& MpEga::run(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, Aggregation op) {
  require_supported(op);
  if (n > max_rows_)
    throw std::invalid_argument("MP-EGA: " + std::to_string(n) + " rows exceed the workspace for " +
                                std::to_string(max_rows_));
  stats_ = {};
  stats_.tile_rows = tile_rows_;
  result_ = {};
  if (n == 0) return result_;
  const auto start = std::chrono::steady_clock::now();

  // Theorem 1: k = the groups a stream's table takes before the feedback load calls it full.
  const std::uint64_t groups = config_.groups_estimate > 0 ? config_.groups_estimate : n;
  const auto k = std::max<std::uint64_t>(2, static_cast<std::uint64_t>(config_.alpha_max * tile_rows_));
  partitions_ = config_.fixed_partitions > 0 ? config_.fixed_partitions
                                             : theorem1_partitions(groups, k, config_.failure_probability);
  if (partitions_ > kMaxPartitions)
    throw std::invalid_argument("MP-EGA: Theorem 1 asks for " + std::to_string(partitions_) + " partitions (" +
                                std::to_string(groups) + " groups, at most " + std::to_string(k) +
                                " per partition) but the partitioning kernels hold at most " +
                                std::to_string(kMaxPartitions) + ": give a larger GPU memory budget");
  stats_.partitions = partitions_;

  auto t0 = std::chrono::steady_clock::now();
  generate(keys, values, n, op);
  stats_.generate_ms = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  merge(op);            // Algorithm 1 and the merged layout (the copies run inside process)
  process(op, t0);      // sets merge_ms and process_ms
  stats_.total_ms = ms_since(start);
  return result_;
}

void MpEga::drain_streams() noexcept {
  for (auto& c : contexts_)
    if (cudaStreamSynchronize(c->stream.get()) != cudaSuccess) (void)cudaGetLastError();
}

std::size_t parse_bytes(const std::string& text) {
  if (text.empty() || text == "0" || text == "auto") return 0;
  try {
    return static_cast<std::size_t>(hashlab::parse_bytes(text));
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument("not a byte count: '" + text + "' (examples: 2GiB, 512MiB, 100MB, 4096)");
  }
}

}  // namespace hashlab::ega
