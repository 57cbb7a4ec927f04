// GPU group-by baselines: cuDF-style hash group-by and CUB sort + reduce-by-key.
#include "hashlab/baselines/groupby.hpp"

#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "hashlab/common/hash.hpp"
#include "hashlab/common/host_memory.hpp"
#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/launch.cuh"
#include "hashlab/common/primitives.hpp"

namespace hashlab::baseline {
namespace {

enum Status : int { kGroups = 0, kOverflow = 1, kSentinel = 2, kStatusWords = 3 };

__host__ __device__ std::uint64_t identity_of(Aggregation op) {
  return op == Aggregation::kMin ? ~0ull : 0ull;
}

__device__ __forceinline__ void aggregate_into(unsigned long long* slot, Aggregation op, std::uint32_t value) {
  switch (op) {
    case Aggregation::kSum: atomicAdd(slot, static_cast<unsigned long long>(value)); break;
    case Aggregation::kCount: atomicAdd(slot, 1ull); break;
    case Aggregation::kMin: atomicMin(slot, static_cast<unsigned long long>(value)); break;
    case Aggregation::kMax: atomicMax(slot, static_cast<unsigned long long>(value)); break;
    default: break;
  }
}

__global__ void init_table_kernel(std::uint32_t* keys, std::uint64_t* values, std::size_t capacity,
                                  std::uint64_t identity) {
  for (const std::size_t i : grid_stride(capacity)) {
    keys[i] = kEmptyKey;
    values[i] = identity;
  }
}

// One row per thread: claim the key's slot (or find it) by linear probing, then aggregate.
__global__ void hash_aggregate_kernel(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n,
                                      Aggregation op, std::uint32_t* slot_keys, std::uint64_t* slot_values,
                                      std::size_t capacity, std::uint32_t* status) {
  for (const std::size_t i : grid_stride(n)) {
    const std::uint32_t key = keys[i];
    if (key == kEmptyKey) {
      status[kSentinel] = 1;
      continue;
    }
    std::size_t slot = hash::murmur3_32(key) % capacity;
    bool placed = false;
    for (std::size_t step = 0; step < capacity; ++step) {
      std::uint32_t current = slot_keys[slot];
      if (current == kEmptyKey) current = atomicCAS(slot_keys + slot, kEmptyKey, key);
      if (current == kEmptyKey || current == key) {
        aggregate_into(reinterpret_cast<unsigned long long*>(slot_values + slot), op, values[i]);
        placed = true;
        break;
      }
      slot = slot + 1 == capacity ? 0 : slot + 1;
    }
    if (!placed) status[kOverflow] = 1;
  }
}

// Compacts the used slots; one atomic per warp reserves the warp's output range.
__global__ void compact_kernel(const std::uint32_t* slot_keys, const std::uint64_t* slot_values, std::size_t capacity,
                               std::uint32_t* out_keys, std::uint64_t* out_values, std::uint32_t* status) {
  const unsigned lane = threadIdx.x % 32;
  // Every lane of a warp runs the same number of rounds, so the ballot sees the whole warp.
  for (const std::size_t i : grid_stride_rounds(capacity)) {
    const bool used = i < capacity && slot_keys[i] != kEmptyKey;
    const unsigned mask = __ballot_sync(kFullWarpMask, used);
    std::uint32_t base = 0;
    if (lane == 0 && mask != 0) base = atomicAdd(status + kGroups, static_cast<std::uint32_t>(__popc(mask)));
    base = __shfl_sync(kFullWarpMask, base, 0);
    if (used) {
      const std::uint32_t at = base + __popc(mask & ((1u << lane) - 1));
      out_keys[at] = slot_keys[i];
      out_values[at] = slot_values[i];
    }
  }
}

struct WidenValue {
  __host__ __device__ std::uint64_t operator()(std::uint32_t v) const { return v; }
};
struct Sum {
  __host__ __device__ std::uint64_t operator()(std::uint64_t a, std::uint64_t b) const { return a + b; }
};
struct Min {
  __host__ __device__ std::uint64_t operator()(std::uint64_t a, std::uint64_t b) const { return a < b ? a : b; }
};
struct Max {
  __host__ __device__ std::uint64_t operator()(std::uint64_t a, std::uint64_t b) const { return a > b ? a : b; }
};

template <class ValuesIt, class Op>
void reduce_runs(const std::uint32_t* sorted_keys, ValuesIt values, std::size_t n, Op op, DeviceGroups& out,
                 std::uint32_t* d_runs, cudaStream_t stream) {
  std::size_t bytes = 0;
  HASHLAB_CUDA_CHECK(cub::DeviceReduce::ReduceByKey(nullptr, bytes, sorted_keys, out.keys.data(), values,
                                                    out.aggregate.data(), d_runs, op, static_cast<int>(n), stream));
  DeviceBuffer<unsigned char> temp(bytes, stream);
  HASHLAB_CUDA_CHECK(cub::DeviceReduce::ReduceByKey(temp.data(), bytes, sorted_keys, out.keys.data(), values,
                                                    out.aggregate.data(), d_runs, op, static_cast<int>(n), stream));
}

void require_supported(Aggregation op) {
  if (!supports(op))
    throw std::invalid_argument(std::string("GPU group-by baselines do not compute '") + reference::to_string(op) +
                                "' directly (a mean is sum / count)");
}

}  // namespace

bool supports(Aggregation op) { return op != Aggregation::kMean; }

reference::GroupByResult groups_to_reference(const std::uint32_t* keys, const std::uint64_t* aggregates,
                                             std::size_t groups, Aggregation op, cudaStream_t stream) {
  reference::GroupByResult result;
  result.keys.push_back(cpu::zeroed_vector<std::uint32_t>(groups));  // faulted in on all cores
  reference::AggregateColumn column;
  column.op = op;
  // The 64-bit aggregates go straight into the exact column: int64 holds the same bits (sums of
  // 32-bit values, counts, min and max are all below 2^63), as a conversion would give them.
  static_assert(sizeof(std::int64_t) == sizeof(std::uint64_t));
  column.exact = cpu::zeroed_vector<std::int64_t>(groups);
  if (groups > 0) {
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(result.keys[0].data(), keys, groups * sizeof(std::uint32_t),
                                       cudaMemcpyDeviceToHost, stream));
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(column.exact.data(), aggregates, groups * sizeof(std::uint64_t),
                                       cudaMemcpyDeviceToHost, stream));
    HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  result.aggregates.push_back(std::move(column));
  // On the host, on all cores (a scan when they are in order already, as a sort-based group-by's
  // are). Not on the device: the scratch of a device sort (24 bytes per group) would raise the
  // point's recorded peak memory, from which runs on smaller GPUs decide what fits.
  result.sort_by_key();
  return result;
}

reference::GroupByResult DeviceGroups::to_reference(Aggregation op, cudaStream_t stream) const {
  return groups_to_reference(keys.data(), aggregate.data(), groups, op, stream);
}

HashGroupBy::HashGroupBy(std::size_t capacity, cudaStream_t stream)
    : capacity_(std::max<std::size_t>(capacity, 1)),
      slot_keys_(capacity_, stream),
      slot_values_(capacity_, stream),
      status_(kStatusWords, stream) {}

DeviceGroups HashGroupBy::aggregate(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n,
                                    Aggregation op, cudaStream_t stream) {
  require_supported(op);
  status_.fill_bytes(0, stream);
  init_table_kernel<<<grid_for(capacity_), kDefaultBlock, 0, stream>>>(slot_keys_.data(), slot_values_.data(),
                                                                       capacity_, identity_of(op));
  HASHLAB_CHECK_LAUNCH();
  if (n > 0) {
    hash_aggregate_kernel<<<grid_for(n), kDefaultBlock, 0, stream>>>(keys, values, n, op, slot_keys_.data(),
                                                                     slot_values_.data(), capacity_, status_.data());
    HASHLAB_CHECK_LAUNCH();
  }
  // The output can hold at most min(n, capacity) groups; allocate that, compact, then read the count.
  const std::size_t bound = std::min(n, capacity_);
  DeviceGroups out;
  out.keys = DeviceBuffer<std::uint32_t>(bound, stream);
  out.aggregate = DeviceBuffer<std::uint64_t>(bound, stream);
  if (bound > 0) {
    compact_kernel<<<grid_for(capacity_), kDefaultBlock, 0, stream>>>(slot_keys_.data(), slot_values_.data(),
                                                                      capacity_, out.keys.data(),
                                                                      out.aggregate.data(), status_.data());
    HASHLAB_CHECK_LAUNCH();
  }
  const auto status = status_.to_host(stream);
  if (status[kSentinel] != 0)
    throw std::invalid_argument("hash group-by: the input holds the key 0xffffffff, which marks empty slots");
  if (status[kOverflow] != 0)
    throw std::invalid_argument("hash group-by: the groups do not fit in a table of " + std::to_string(capacity_) +
                                " slots");
  out.groups = status[kGroups];
  return out;
}

DeviceGroups sort_groupby(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, Aggregation op,
                          cudaStream_t stream) {
  require_supported(op);
  if (n > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw std::length_error("sort group-by: more than 2^31 - 1 rows");
  DeviceGroups out;
  if (n == 0) return out;
  DeviceBuffer<std::uint32_t> sorted_keys(n, stream);
  DeviceBuffer<std::uint32_t> sorted_values(n, stream);
  HASHLAB_CUDA_CHECK(cudaMemcpyAsync(sorted_keys.data(), keys, n * sizeof(std::uint32_t), cudaMemcpyDeviceToDevice, stream));
  HASHLAB_CUDA_CHECK(cudaMemcpyAsync(sorted_values.data(), values, n * sizeof(std::uint32_t), cudaMemcpyDeviceToDevice, stream));
  prim::sort_pairs(sorted_keys.data(), sorted_values.data(), n, stream);

  out.keys = DeviceBuffer<std::uint32_t>(n, stream);
  out.aggregate = DeviceBuffer<std::uint64_t>(n, stream);
  DeviceBuffer<std::uint32_t> runs(1, stream);
  const auto widened = thrust::make_transform_iterator(sorted_values.data(), WidenValue{});
  switch (op) {
    case Aggregation::kSum: reduce_runs(sorted_keys.data(), widened, n, Sum{}, out, runs.data(), stream); break;
    case Aggregation::kMin: reduce_runs(sorted_keys.data(), widened, n, Min{}, out, runs.data(), stream); break;
    case Aggregation::kMax: reduce_runs(sorted_keys.data(), widened, n, Max{}, out, runs.data(), stream); break;
    default:
      reduce_runs(sorted_keys.data(), thrust::make_constant_iterator<std::uint64_t>(1), n, Sum{}, out, runs.data(),
                  stream);
  }
  out.groups = read_device_value(runs.data(), stream);
  return out;
}

}  // namespace hashlab::baseline
