// Section 3, result extraction: Thrust finds the used slots, one kernel copies each group's
// key row from the input through the stored row index, one copies its results from the table
// (mean = sum / count).
#include <thrust/copy.h>
#include <thrust/iterator/counting_iterator.h>

#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/launch.cuh"
#include "table.cuh"
#include "thrust_pool.cuh"

namespace hashlab::rapids::detail {
namespace {

struct SlotUsed {
  __host__ __device__ bool operator()(std::int32_t key_index) const { return key_index != kEmptyIndex; }
};

// "All columns of the key are copied to the index of the threadId in the output matrix."
__global__ void extract_keys(const std::uint32_t* __restrict__ keys, int key_columns, std::size_t rows,
                             const std::int32_t* __restrict__ key_index, const std::uint32_t* __restrict__ slots,
                             std::size_t groups, std::uint32_t* __restrict__ out) {
  for (const std::size_t g : grid_stride(groups)) {
    const auto row = static_cast<std::size_t>(key_index[slots[g]]);
    for (int c = 0; c < key_columns; ++c) out[c * groups + g] = keys[c * rows + row];
  }
}

// "We simply loop through each column of the hash table, copying the data to the output
// matrix. If a column's operation is to calculate the mean, ... we divide the column value by
// a key count." Exactly one of exact / real is written per column.
template <class V>
__global__ void extract_values(TableView<V> table, PackedOps ops, const std::uint32_t* __restrict__ slots,
                               std::size_t groups, std::int64_t* const* exact, double* const* real) {
  for (const std::size_t g : grid_stride(groups)) {
    const std::uint32_t slot = slots[g];
    for (int v = 0; v < ops.count; ++v) {
      const Acc<V> result = table.results[static_cast<std::size_t>(v) * table.size + slot];
      switch (ops.at(v)) {
        case Aggregation::kCount: exact[v][g] = table.count[slot]; break;
        case Aggregation::kMean: real[v][g] = static_cast<double>(result) / static_cast<double>(table.count[slot]); break;
        default:
          if constexpr (std::is_integral_v<V>) exact[v][g] = result;
          else real[v][g] = result;
      }
    }
  }
}

bool is_exact_output(Aggregation op, bool integral_values) {
  return op == Aggregation::kCount || (op != Aggregation::kMean && integral_values);
}

}  // namespace

template <class V>
DeviceGroups extract(const GroupByInput<V>& in, const std::vector<Aggregation>& ops, TableView<V> table,
                     cudaStream_t stream) {
  DeviceGroups out;
  out.key_columns = in.key_columns;
  DeviceBuffer<std::uint32_t> slots(table.size, stream);
  PoolAllocator alloc{stream};
  const auto end = thrust::copy_if(thrust_policy(alloc), thrust::counting_iterator<std::uint32_t>(0),
                                   thrust::counting_iterator<std::uint32_t>(table.size), table.key_index,
                                   slots.data(), SlotUsed{});
  out.groups = static_cast<std::size_t>(end - slots.data());

  out.keys = DeviceBuffer<std::uint32_t>(out.groups * in.key_columns, stream);
  std::vector<std::int64_t*> exact(ops.size(), nullptr);
  std::vector<double*> real(ops.size(), nullptr);
  for (std::size_t v = 0; v < ops.size(); ++v) {
    OutputColumn col;
    col.op = ops[v];
    if (is_exact_output(ops[v], std::is_integral_v<V>)) col.exact = DeviceBuffer<std::int64_t>(out.groups, stream);
    else col.real = DeviceBuffer<double>(out.groups, stream);
    exact[v] = col.exact.data();
    real[v] = col.real.data();
    out.columns.push_back(std::move(col));
  }
  if (out.groups == 0) return out;

  // The column pointers travel in device memory (pageable copies are staged before returning).
  DeviceBuffer<std::int64_t*> d_exact(ops.size(), stream);
  DeviceBuffer<double*> d_real(ops.size(), stream);
  d_exact.copy_from_host(exact.data(), exact.size(), stream);
  d_real.copy_from_host(real.data(), real.size(), stream);

  const unsigned grid = grid_for(out.groups);
  extract_keys<<<grid, kDefaultBlock, 0, stream>>>(in.keys, in.key_columns, in.rows, table.key_index, slots.data(),
                                                   out.groups, out.keys.data());
  HASHLAB_CHECK_LAUNCH();
  extract_values<V><<<grid, kDefaultBlock, 0, stream>>>(table, pack(ops), slots.data(), out.groups, d_exact.data(),
                                                        d_real.data());
  HASHLAB_CHECK_LAUNCH();
  return out;
}

template DeviceGroups extract<std::int32_t>(const GroupByInput<std::int32_t>&, const std::vector<Aggregation>&,
                                            TableView<std::int32_t>, cudaStream_t);
template DeviceGroups extract<double>(const GroupByInput<double>&, const std::vector<Aggregation>&,
                                      TableView<double>, cudaStream_t);

}  // namespace hashlab::rapids::detail
