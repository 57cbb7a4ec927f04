// The GPU entries' answers in the catalogue's form on the device (device_answers.hpp). Our
// adapters, not a paper's phases: each kernel is one grid-stride pass over the groups or queries.
#include "device_answers.hpp"

#include <limits>
#include <stdexcept>
#include <string>

#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/launch.cuh"
#include "hashlab/common/primitives.hpp"

namespace hashlab::catalogue::detail {
namespace {

__global__ void iota_kernel(std::uint32_t* out, std::size_t n) {
  for (const std::size_t i : grid_stride(n)) out[i] = static_cast<std::uint32_t>(i);
}

template <class T>
__global__ void gather_kernel(const T* in, const std::uint32_t* order, std::size_t n, T* out) {
  for (const std::size_t i : grid_stride(n)) out[i] = in[order[i]];
}

__global__ void divide_kernel(const std::int64_t* sum, const std::int64_t* count, std::size_t n, double* out) {
  for (const std::size_t i : grid_stride(n))
    out[i] = static_cast<double>(sum[i]) / static_cast<double>(count[i]);
}

__global__ void differ_kernel(const std::uint32_t* a, const std::uint32_t* b, std::size_t n, unsigned int* differs) {
  for (const std::size_t i : grid_stride(n))
    if (a[i] != b[i]) {
      *differs = 1;  // any writer: the flag only says whether
      return;
    }
}

__global__ void map_answers_kernel(const std::uint32_t* found, std::size_t m, std::uint32_t marker,
                                   std::uint32_t* count, std::uint32_t* value) {
  for (const std::size_t i : grid_stride(m)) {
    const std::uint32_t f = found[i];
    count[i] = f != marker;
    value[i] = f != marker ? f : 0;
  }
}

__global__ void multivalue_answers_kernel(const cuckoo::KeyInfo* info, std::size_t m, const std::uint32_t* values,
                                          std::size_t n, std::uint32_t* count, std::uint32_t* value,
                                          unsigned long long* past_end) {
  for (const std::size_t i : grid_stride(m)) {
    const cuckoo::KeyInfo k = info[i];
    count[i] = k.count;
    std::uint32_t smallest = 0;
    if (k.count > 0) {
      if (std::uint64_t{k.offset} + k.count > n) {
        atomicAdd(past_end, 1ull);
      } else {
        smallest = values[k.offset];
        for (std::uint32_t j = 1; j < k.count; ++j) smallest = min(smallest, values[k.offset + j]);
      }
    }
    value[i] = smallest;
  }
}

__global__ void pair_counts_kernel(const reference::JoinPair* pairs, std::size_t n, const std::uint32_t* values,
                                   std::uint32_t* count, std::uint32_t* value) {
  for (const std::size_t i : grid_stride(n)) {
    const reference::JoinPair p = pairs[i];
    atomicAdd(count + p.s_index, 1u);
    atomicMin(value + p.s_index, values[p.r_index]);
  }
}

/// A query without pairs answers value 0 (its slot still holds the atomicMin's start).
__global__ void absent_zero_kernel(const std::uint32_t* count, std::size_t m, std::uint32_t* value) {
  for (const std::size_t i : grid_stride(m))
    if (count[i] == 0) value[i] = 0;
}

}  // namespace

DeviceBuffer<std::uint32_t> sort_order(const std::vector<const std::uint32_t*>& key_columns, std::size_t groups,
                                       cudaStream_t stream) {
  if (groups > std::numeric_limits<std::uint32_t>::max())
    throw std::length_error("device answers: " + std::to_string(groups) + " groups; a permutation holds 2^32 - 1");
  DeviceBuffer<std::uint32_t> order(groups, stream);
  if (groups == 0) return order;
  iota_kernel<<<grid_for(groups), kDefaultBlock, 0, stream>>>(order.data(), groups);
  HASHLAB_CHECK_LAUNCH();
  DeviceBuffer<std::uint32_t> keys(groups, stream);
  // Least significant column first: each stable sort keeps the order of the columns after it.
  for (auto c = key_columns.rbegin(); c != key_columns.rend(); ++c) {
    gather_kernel<<<grid_for(groups), kDefaultBlock, 0, stream>>>(*c, order.data(), groups, keys.data());
    HASHLAB_CHECK_LAUNCH();
    prim::sort_pairs(keys.data(), order.data(), groups, stream);
  }
  return order;
}

template <class T>
DeviceBuffer<T> gather(const T* in, const std::uint32_t* order, std::size_t n, cudaStream_t stream) {
  DeviceBuffer<T> out(n, stream);
  if (n == 0) return out;
  gather_kernel<<<grid_for(n), kDefaultBlock, 0, stream>>>(in, order, n, out.data());
  HASHLAB_CHECK_LAUNCH();
  return out;
}

template <class T>
DeviceBuffer<T> copy_of(const T* in, std::size_t n, cudaStream_t stream) {
  DeviceBuffer<T> out(n, stream);
  if (n > 0) HASHLAB_CUDA_CHECK(cudaMemcpyAsync(out.data(), in, n * sizeof(T), cudaMemcpyDeviceToDevice, stream));
  return out;
}

template DeviceBuffer<std::uint32_t> gather(const std::uint32_t*, const std::uint32_t*, std::size_t, cudaStream_t);
template DeviceBuffer<std::int64_t> gather(const std::int64_t*, const std::uint32_t*, std::size_t, cudaStream_t);
template DeviceBuffer<double> gather(const double*, const std::uint32_t*, std::size_t, cudaStream_t);
template DeviceBuffer<std::uint32_t> copy_of(const std::uint32_t*, std::size_t, cudaStream_t);
template DeviceBuffer<std::int64_t> copy_of(const std::int64_t*, std::size_t, cudaStream_t);
template DeviceBuffer<double> copy_of(const double*, std::size_t, cudaStream_t);

DeviceBuffer<double> divide(const std::int64_t* sum, const std::int64_t* count, std::size_t n, cudaStream_t stream) {
  DeviceBuffer<double> out(n, stream);
  if (n == 0) return out;
  divide_kernel<<<grid_for(n), kDefaultBlock, 0, stream>>>(sum, count, n, out.data());
  HASHLAB_CHECK_LAUNCH();
  return out;
}

bool differ(const std::uint32_t* a, const std::uint32_t* b, std::size_t n, cudaStream_t stream) {
  if (n == 0) return false;
  DeviceBuffer<unsigned int> flag(1, stream);
  flag.fill_bytes(0, stream);
  differ_kernel<<<grid_for(n), kDefaultBlock, 0, stream>>>(a, b, n, flag.data());
  HASHLAB_CHECK_LAUNCH();
  return read_device_value(flag.data(), stream) != 0;
}

std::uint64_t device_sum(const std::uint32_t* counts, std::size_t n, cudaStream_t stream) {
  if (n == 0) return 0;
  DeviceBuffer<std::uint64_t> total(1, stream);
  prim::sum(counts, n, total.data(), stream);
  return read_device_value(total.data(), stream);
}

void map_answers(const std::uint32_t* found, std::size_t m, std::uint32_t marker, std::uint32_t* count,
                 std::uint32_t* value, cudaStream_t stream) {
  if (m == 0) return;
  map_answers_kernel<<<grid_for(m), kDefaultBlock, 0, stream>>>(found, m, marker, count, value);
  HASHLAB_CHECK_LAUNCH();
}

std::uint64_t multivalue_answers(const cuckoo::KeyInfo* info, std::size_t m, const std::uint32_t* sorted_values,
                                 std::size_t values, std::uint32_t* count, std::uint32_t* value, cudaStream_t stream) {
  if (m == 0) return 0;
  DeviceBuffer<unsigned long long> past_end(1, stream);
  past_end.fill_bytes(0, stream);
  multivalue_answers_kernel<<<grid_for(m), kDefaultBlock, 0, stream>>>(info, m, sorted_values, values, count, value,
                                                                       past_end.data());
  HASHLAB_CHECK_LAUNCH();
  return read_device_value(past_end.data(), stream);
}

void pair_answers(const reference::JoinPair* pairs, std::size_t n, const std::uint32_t* values, std::size_t m,
                  std::uint32_t* count, std::uint32_t* value, cudaStream_t stream) {
  if (m == 0) return;
  HASHLAB_CUDA_CHECK(cudaMemsetAsync(count, 0, m * sizeof(std::uint32_t), stream));
  HASHLAB_CUDA_CHECK(cudaMemsetAsync(value, 0xff, m * sizeof(std::uint32_t), stream));
  if (n > 0) {
    pair_counts_kernel<<<grid_for(n), kDefaultBlock, 0, stream>>>(pairs, n, values, count, value);
    HASHLAB_CHECK_LAUNCH();
  }
  absent_zero_kernel<<<grid_for(m), kDefaultBlock, 0, stream>>>(count, m, value);
  HASHLAB_CHECK_LAUNCH();
}

}  // namespace hashlab::catalogue::detail
