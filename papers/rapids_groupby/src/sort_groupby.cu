// The report's comparator (sections 1 and 5): the Thrust sort-based group-by of the authors'
// previous semester, for any number of key and value columns. Module-local because
// common/'s sort_groupby takes one key and one value column.
//   1. a row permutation sorted by the key tuple: stable radix sort by each key column, the
//      last column first (LSD over columns)
//   2. the sorted key columns, gathered once
//   3. per value column, reduce_by_key over sorted positions, runs of equal tuples
#include <thrust/functional.h>
#include <thrust/gather.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/reduce.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>

#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/launch.cuh"
#include "table.cuh"
#include "thrust_pool.cuh"

namespace hashlab::rapids {
namespace {

using detail::Acc;

/// Positions i and j of the sorted key columns hold the same tuple.
struct SameTuple {
  const std::uint32_t* sorted_keys;  // column-major, key_columns x rows
  int key_columns;
  std::size_t rows;
  __host__ __device__ bool operator()(std::uint32_t i, std::uint32_t j) const {
    for (int c = 0; c < key_columns; ++c)
      if (sorted_keys[c * rows + i] != sorted_keys[c * rows + j]) return false;
    return true;
  }
};

template <class V>
struct ToAcc {
  __host__ __device__ Acc<V> operator()(V x) const { return static_cast<Acc<V>>(x); }
};

template <class T>
struct Minimum {
  __host__ __device__ T operator()(T a, T b) const { return b < a ? b : a; }
};
template <class T>
struct Maximum {
  __host__ __device__ T operator()(T a, T b) const { return a < b ? b : a; }
};

__global__ void divide_by_count(const double* sums, const std::int64_t* counts, std::size_t groups, double* out) {
  const std::size_t i = global_thread_index();
  if (i < groups) out[i] = sums[i] / static_cast<double>(counts[i]);
}

template <class T>
__global__ void to_double(const T* in, std::size_t n, double* out) {
  const std::size_t i = global_thread_index();
  if (i < n) out[i] = static_cast<double>(in[i]);
}

}  // namespace

template <class V>
DeviceGroups sort_groupby(const GroupByInput<V>& in, const std::vector<Aggregation>& ops, cudaStream_t stream) {
  GroupByOptions unused;
  validate(in, ops, unused);
  const std::size_t n = in.rows;
  const int K = in.key_columns;
  detail::PoolAllocator alloc{stream};
  auto policy = detail::thrust_policy(alloc);
  DeviceGroups out;
  out.key_columns = K;

  // 1. The permutation, sorted by (key[0], ..., key[K-1]).
  DeviceBuffer<std::uint32_t> perm(n, stream);
  DeviceBuffer<std::uint32_t> sorted_keys(n * K, stream);
  thrust::sequence(policy, perm.data(), perm.data() + n);
  for (int c = K - 1; c >= 0; --c) {
    std::uint32_t* column = sorted_keys.data() + c * n;
    thrust::gather(policy, perm.data(), perm.data() + n, in.keys + c * n, column);
    thrust::stable_sort_by_key(policy, column, column + n, perm.data());
  }
  // 2. Column 0 is sorted by the last pass; the others follow the final permutation.
  for (int c = 1; c < K; ++c)
    thrust::gather(policy, perm.data(), perm.data() + n, in.keys + c * n, sorted_keys.data() + c * n);

  // 3. The group heads and counts, then one reduce_by_key per value column.
  const SameTuple same{sorted_keys.data(), K, n};
  const thrust::counting_iterator<std::uint32_t> position(0);
  DeviceBuffer<std::uint32_t> heads(n, stream);
  DeviceBuffer<std::int64_t> counts(n, stream);
  const auto ends = thrust::reduce_by_key(policy, position, position + n, thrust::constant_iterator<std::int64_t>(1),
                                          heads.data(), counts.data(), same);
  const std::size_t groups = static_cast<std::size_t>(ends.first - heads.data());
  out.groups = groups;
  out.keys = DeviceBuffer<std::uint32_t>(groups * K, stream);
  for (int c = 0; c < K; ++c)
    thrust::gather(policy, heads.data(), heads.data() + groups, sorted_keys.data() + c * n, out.keys.data() + c * groups);

  for (std::size_t v = 0; v < ops.size(); ++v) {
    OutputColumn col;
    col.op = ops[v];
    const bool exact = ops[v] == Aggregation::kCount || (ops[v] != Aggregation::kMean && std::is_integral_v<V>);
    if (exact) col.exact = DeviceBuffer<std::int64_t>(groups, stream);
    else col.real = DeviceBuffer<double>(groups, stream);
    if (ops[v] == Aggregation::kCount) {
      thrust::copy(policy, counts.data(), counts.data() + groups, col.exact.data());
      out.columns.push_back(std::move(col));
      continue;
    }
    const auto values = thrust::make_transform_iterator(
        thrust::make_permutation_iterator(in.values + v * n, perm.data()), ToAcc<V>{});
    DeviceBuffer<Acc<V>> acc(groups, stream);
    const auto discard = thrust::make_discard_iterator();
    switch (ops[v]) {
      case Aggregation::kSum:
      case Aggregation::kMean:
        thrust::reduce_by_key(policy, position, position + n, values, discard, acc.data(), same, thrust::plus<Acc<V>>());
        break;
      case Aggregation::kMin:
        thrust::reduce_by_key(policy, position, position + n, values, discard, acc.data(), same, Minimum<Acc<V>>());
        break;
      case Aggregation::kMax:
        thrust::reduce_by_key(policy, position, position + n, values, discard, acc.data(), same, Maximum<Acc<V>>());
        break;
      case Aggregation::kCount: break;
    }
    if (groups > 0) {
      const unsigned grid = static_cast<unsigned>(div_up<std::size_t>(groups, kDefaultBlock));
      if (ops[v] == Aggregation::kMean) {
        DeviceBuffer<double> sums(groups, stream);
        to_double<<<grid, kDefaultBlock, 0, stream>>>(acc.data(), groups, sums.data());
        HASHLAB_CHECK_LAUNCH();
        divide_by_count<<<grid, kDefaultBlock, 0, stream>>>(sums.data(), counts.data(), groups, col.real.data());
        HASHLAB_CHECK_LAUNCH();
      } else if (exact) {
        thrust::copy(policy, acc.data(), acc.data() + groups, col.exact.data());
      } else {
        thrust::copy(policy, acc.data(), acc.data() + groups, col.real.data());
      }
    }
    out.columns.push_back(std::move(col));
  }
  return out;
}

template DeviceGroups sort_groupby<std::int32_t>(const GroupByInput<std::int32_t>&, const std::vector<Aggregation>&,
                                                 cudaStream_t);
template DeviceGroups sort_groupby<double>(const GroupByInput<double>&, const std::vector<Aggregation>&, cudaStream_t);

}  // namespace hashlab::rapids
