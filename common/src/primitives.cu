// CUB device-wide primitives, instantiated once for the whole suite (see primitives.hpp).
#include "hashlab/common/primitives.hpp"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include <cuda/std/functional>

#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/launch.cuh"
#include "hashlab/common/memory.hpp"
#include "hashlab/common/search.hpp"

namespace hashlab::prim {
namespace {

// CUB's two-phase call: ask for the temporary size, take it from the pool, run.
template <class Call>
void with_temp_storage(cudaStream_t stream, Call&& call) {
  std::size_t bytes = 0;
  HASHLAB_CUDA_CHECK(call(nullptr, bytes));
  DeviceBuffer<unsigned char> temp(bytes, stream);
  HASHLAB_CUDA_CHECK(call(temp.data(), bytes));
}

// CUB takes int item counts on some entry points; refuse sizes that would be truncated.
int checked_int(std::size_t n, const char* what) {
  if (n > static_cast<std::size_t>(INT32_MAX))
    throw std::length_error(std::string(what) + ": more than 2^31 - 1 items");
  return static_cast<int>(n);
}

template <class T>
void exclusive_scan_impl(const T* in, T* out, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  with_temp_storage(stream, [&](void* temp, std::size_t& bytes) {
    return cub::DeviceScan::ExclusiveSum(temp, bytes, in, out, n, stream);
  });
}

template <class K, class V>
void sort_pairs_impl(K* keys, V* values, std::size_t n, cudaStream_t stream, int begin_bit, int end_bit) {
  if (n <= 1) return;
  DeviceBuffer<K> keys_alt(n, stream);
  DeviceBuffer<V> values_alt(n, stream);
  cub::DoubleBuffer<K> k(keys, keys_alt.data());
  cub::DoubleBuffer<V> v(values, values_alt.data());
  with_temp_storage(stream, [&](void* temp, std::size_t& bytes) {
    return cub::DeviceRadixSort::SortPairs(temp, bytes, k, v, n, begin_bit, end_bit, stream);
  });
  // The sort ping-pongs between the buffers; bring the result home if it ended in the other one.
  if (k.Current() != keys)
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(keys, k.Current(), n * sizeof(K), cudaMemcpyDeviceToDevice, stream));
  if (v.Current() != values)
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(values, v.Current(), n * sizeof(V), cudaMemcpyDeviceToDevice, stream));
}

template <class K>
void sort_keys_impl(K* keys, std::size_t n, cudaStream_t stream, int begin_bit, int end_bit) {
  if (n <= 1) return;
  DeviceBuffer<K> keys_alt(n, stream);
  cub::DoubleBuffer<K> k(keys, keys_alt.data());
  with_temp_storage(stream, [&](void* temp, std::size_t& bytes) {
    return cub::DeviceRadixSort::SortKeys(temp, bytes, k, n, begin_bit, end_bit, stream);
  });
  if (k.Current() != keys)
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(keys, k.Current(), n * sizeof(K), cudaMemcpyDeviceToDevice, stream));
}

__global__ void lower_bound_kernel(const std::uint32_t* sorted, std::size_t n, const std::uint32_t* queries,
                                   std::size_t m, std::uint32_t* out) {
  for (const std::size_t i : grid_stride(m)) out[i] = static_cast<std::uint32_t>(hashlab::lower_bound(sorted, n, queries[i]));
}

}  // namespace

void exclusive_scan(const std::uint32_t* in, std::uint32_t* out, std::size_t n, cudaStream_t stream) {
  exclusive_scan_impl(in, out, n, stream);
}
void exclusive_scan(const std::uint64_t* in, std::uint64_t* out, std::size_t n, cudaStream_t stream) {
  exclusive_scan_impl(in, out, n, stream);
}

void inclusive_scan(const std::uint32_t* in, std::uint32_t* out, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  with_temp_storage(stream, [&](void* temp, std::size_t& bytes) {
    return cub::DeviceScan::InclusiveSum(temp, bytes, in, out, n, stream);
  });
}

void sum(const std::uint32_t* in, std::size_t n, std::uint64_t* d_sum, cudaStream_t stream) {
  if (n == 0) {
    HASHLAB_CUDA_CHECK(cudaMemsetAsync(d_sum, 0, sizeof(std::uint64_t), stream));
    return;
  }
  with_temp_storage(stream, [&](void* temp, std::size_t& bytes) {
    return cub::DeviceReduce::Reduce(temp, bytes, in, d_sum, n, cuda::std::plus<std::uint64_t>{},
                                     std::uint64_t{0}, stream);
  });
}

void sort_keys(std::uint32_t* keys, std::size_t n, cudaStream_t stream, int begin_bit, int end_bit) {
  sort_keys_impl(keys, n, stream, begin_bit, end_bit);
}
void sort_keys(std::uint64_t* keys, std::size_t n, cudaStream_t stream, int begin_bit, int end_bit) {
  sort_keys_impl(keys, n, stream, begin_bit, end_bit);
}
void sort_pairs(std::uint32_t* keys, std::uint32_t* values, std::size_t n, cudaStream_t stream, int begin_bit,
                int end_bit) {
  sort_pairs_impl(keys, values, n, stream, begin_bit, end_bit);
}
void sort_pairs(std::uint64_t* keys, std::uint32_t* values, std::size_t n, cudaStream_t stream, int begin_bit,
                int end_bit) {
  sort_pairs_impl(keys, values, n, stream, begin_bit, end_bit);
}

void run_length_encode(const std::uint32_t* sorted_keys, std::size_t n, std::uint32_t* unique_out,
                       std::uint32_t* counts_out, std::uint32_t* d_runs, cudaStream_t stream) {
  if (n == 0) {
    HASHLAB_CUDA_CHECK(cudaMemsetAsync(d_runs, 0, sizeof(std::uint32_t), stream));
    return;
  }
  const int items = checked_int(n, "run_length_encode");
  with_temp_storage(stream, [&](void* temp, std::size_t& bytes) {
    return cub::DeviceRunLengthEncode::Encode(temp, bytes, sorted_keys, unique_out, counts_out, d_runs, items,
                                              stream);
  });
}

void select_flagged(const std::uint32_t* in, const std::uint8_t* flags, std::size_t n, std::uint32_t* out,
                    std::uint32_t* d_selected, cudaStream_t stream) {
  if (n == 0) {
    HASHLAB_CUDA_CHECK(cudaMemsetAsync(d_selected, 0, sizeof(std::uint32_t), stream));
    return;
  }
  const int items = checked_int(n, "select_flagged");
  with_temp_storage(stream, [&](void* temp, std::size_t& bytes) {
    return cub::DeviceSelect::Flagged(temp, bytes, in, flags, out, d_selected, items, stream);
  });
}

void lower_bound(const std::uint32_t* sorted, std::size_t n, const std::uint32_t* queries, std::size_t m,
                 std::uint32_t* out, cudaStream_t stream) {
  if (m == 0) return;
  lower_bound_kernel<<<grid_for(m), kDefaultBlock, 0, stream>>>(sorted, n, queries, m, out);
  HASHLAB_CHECK_LAUNCH();
}

}  // namespace hashlab::prim
