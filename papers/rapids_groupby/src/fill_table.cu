// Section 3: the table's initialisation and the fillTable kernel.
#include <climits>
#include <limits>

#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/dispatch.hpp"
#include "hashlab/common/launch.cuh"
#include "table.cuh"

namespace hashlab::rapids::detail {
namespace {

template <class T>
struct Identity;
// Section 3: "min to the highest possible value of type, max to the lowest possible value, and
// others to 0" -- the value type's (int32) limits, held in the int64 accumulator.
template <>
struct Identity<std::int32_t> {
  static constexpr long long kMin = INT_MAX;
  static constexpr long long kMax = INT_MIN;
};
template <>
struct Identity<double> {
  static constexpr double kMin = std::numeric_limits<double>::infinity();  // a group of +inf keeps +inf
  static constexpr double kMax = -std::numeric_limits<double>::infinity();
};

__device__ __forceinline__ void atomic_add(long long* addr, long long x) {
  atomicAdd(reinterpret_cast<unsigned long long*>(addr), static_cast<unsigned long long>(x));
}
__device__ __forceinline__ void atomic_add(double* addr, double x) { atomicAdd(addr, x); }

// Min / max read first: the accumulator only moves one way, so a value that a (possibly stale)
// read already beats cannot change it, and most rows of a large group skip the atomic.
__device__ __forceinline__ void atomic_min(long long* addr, long long x) {
  if (x < __ldcg(addr)) atomicMin(addr, x);
}
__device__ __forceinline__ void atomic_max(long long* addr, long long x) {
  if (x > __ldcg(addr)) atomicMax(addr, x);
}
template <class Better>
__device__ __forceinline__ void atomic_update_double(double* addr, double x, Better better) {
  auto* bits = reinterpret_cast<unsigned long long*>(addr);
  unsigned long long seen = __ldcg(bits);
  while (better(x, __longlong_as_double(static_cast<long long>(seen)))) {
    const unsigned long long prev = atomicCAS(bits, seen, static_cast<unsigned long long>(__double_as_longlong(x)));
    if (prev == seen) break;
    seen = prev;
  }
}
__device__ __forceinline__ void atomic_min(double* addr, double x) {
  atomic_update_double(addr, x, [](double a, double b) { return a < b; });
}
__device__ __forceinline__ void atomic_max(double* addr, double x) {
  atomic_update_double(addr, x, [](double a, double b) { return a > b; });
}

// Section 3: key index -1, count 0, results to each reduction's identity.
template <class V>
__global__ void init_table_kernel(TableView<V> table, PackedOps ops) {
  const std::size_t total = static_cast<std::size_t>(table.size) * ops.count;
  for (const std::size_t i : grid_stride(total)) {
    const auto v = static_cast<int>(i / table.size);
    const Aggregation op = ops.at(v);
    Acc<V> init = 0;
    if (op == Aggregation::kMin) init = Identity<V>::kMin;
    if (op == Aggregation::kMax) init = Identity<V>::kMax;
    table.results[i] = init;
    if (v == 0) {
      table.key_index[i] = kEmptyIndex;
      if (table.count != nullptr) table.count[i] = 0;
    }
  }
}

/// Does the stored row hold the same key tuple as this thread's row?
__device__ __forceinline__ bool same_keys(const std::uint32_t* keys, std::size_t rows, int key_columns,
                                          std::int32_t stored, const std::uint32_t (&own)[kMaxKeyColumns]) {
#pragma unroll
  for (int c = 0; c < kMaxKeyColumns; ++c)
    if (c < key_columns && __ldg(keys + c * rows + static_cast<std::size_t>(stored)) != own[c]) return false;
  return true;
}

__device__ __forceinline__ bool relaunch_requested(const int* relaunch) {
  return *static_cast<const volatile int*>(relaunch) != 0;
}

// Section 3, fillTable: grid-stride loop, one row per thread. atomicCAS of the row index into
// the key-index slot; compare the stored row's keys with our own; on a match update count and
// results with atomics, else probe the next slot. A thread that claims a slot beyond 75% of the
// table sets the relaunch flag, and every thread stops at the next row once it is set.
// kCountProbes: the instrumented variant of Fig. 3b (probe steps past the home slot).
template <class V, bool kCountProbes>
__global__ void fill_table_kernel(const std::uint32_t* __restrict__ keys, int key_columns,
                                  const V* __restrict__ values, std::size_t rows, PackedOps ops, TableView<V> table,
                                  std::uint32_t max_fill, int* relaunch, std::uint32_t* used_slots,
                                  unsigned long long* probe_steps) {
  unsigned long long my_probes = 0;
  for (const std::size_t row : grid_stride(rows)) {
    if (relaunch_requested(relaunch)) break;
    std::uint32_t own[kMaxKeyColumns];
#pragma unroll
    for (int c = 0; c < kMaxKeyColumns; ++c) own[c] = c < key_columns ? keys[c * rows + row] : 0u;
    std::uint32_t slot = row_hashcode(own, key_columns) % table.size;

    bool abandon = false;
    for (std::uint32_t steps = 0;; ++steps) {
      // A claimed slot never changes, so a plain read that sees a row index is final; a read
      // of -1 may be stale and the CAS decides.
      std::int32_t stored = __ldcg(table.key_index + slot);
      if (stored == kEmptyIndex) {
        stored = atomicCAS(table.key_index + slot, kEmptyIndex, static_cast<std::int32_t>(row));
        if (stored == kEmptyIndex) {  // a new group: this row is its first
          if (atomicAdd(used_slots, 1u) + 1u > max_fill) {
            atomicExch(relaunch, 1);
            abandon = true;
          }
          break;
        }
      }
      if (same_keys(keys, rows, key_columns, stored, own)) break;
      slot = slot + 1 == table.size ? 0 : slot + 1;
      if constexpr (kCountProbes) ++my_probes;
      // Every slot probed, none empty, no match: the table is full (possible only when the
      // relaunch load is 1); ask for a larger one.
      if (steps + 1 == table.size) {
        atomicExch(relaunch, 1);
        abandon = true;
        break;
      }
      // With the 75% limit the table cannot fill before the flag is set: stop probing once it is.
      if ((steps & 31u) == 31u && relaunch_requested(relaunch)) {
        abandon = true;
        break;
      }
    }
    if (abandon) break;

    if (table.count != nullptr) atomicAdd(table.count + slot, 1u);
    for (int v = 0; v < ops.count; ++v) {
      const auto x = static_cast<Acc<V>>(values[v * rows + row]);
      Acc<V>* result = table.results + static_cast<std::size_t>(v) * table.size + slot;
      switch (ops.at(v)) {
        case Aggregation::kSum:
        case Aggregation::kMean: atomic_add(result, x); break;
        case Aggregation::kMin: atomic_min(result, x); break;
        case Aggregation::kMax: atomic_max(result, x); break;
        case Aggregation::kCount: break;  // the count column
      }
    }
  }
  if constexpr (kCountProbes)
    if (my_probes != 0) atomicAdd(probe_steps, my_probes);
}

}  // namespace

PackedOps pack(const std::vector<Aggregation>& ops) {
  PackedOps packed;
  packed.count = static_cast<int>(ops.size());
  for (int v = 0; v < packed.count; ++v) {
    packed.bits |= static_cast<std::uint64_t>(ops[v]) << (kOpBits * v);
    if (ops[v] == Aggregation::kCount || ops[v] == Aggregation::kMean) packed.needs_count = true;
  }
  return packed;
}

template <class V>
void init_table(TableView<V> table, const PackedOps& ops, cudaStream_t stream) {
  const std::size_t total = static_cast<std::size_t>(table.size) * ops.count;
  init_table_kernel<V><<<grid_for(total), kDefaultBlock, 0, stream>>>(table, ops);
  HASHLAB_CHECK_LAUNCH();
}

template <class V>
void fill_table(const GroupByInput<V>& in, const PackedOps& ops, TableView<V> table, std::uint32_t max_fill,
                int* relaunch, std::uint32_t* used_slots, unsigned long long* probe_steps, cudaStream_t stream) {
  if (in.rows == 0) return;
  const unsigned grid = grid_for(in.rows);
  dispatch_bool(probe_steps != nullptr, [&](auto count_probes) {
    fill_table_kernel<V, decltype(count_probes)::value><<<grid, kDefaultBlock, 0, stream>>>(
        in.keys, in.key_columns, in.values, in.rows, ops, table, max_fill, relaunch, used_slots, probe_steps);
  });
  HASHLAB_CHECK_LAUNCH();
}

template void init_table<std::int32_t>(TableView<std::int32_t>, const PackedOps&, cudaStream_t);
template void init_table<double>(TableView<double>, const PackedOps&, cudaStream_t);
template void fill_table<std::int32_t>(const GroupByInput<std::int32_t>&, const PackedOps&, TableView<std::int32_t>,
                                       std::uint32_t, int*, std::uint32_t*, unsigned long long*, cudaStream_t);
template void fill_table<double>(const GroupByInput<double>&, const PackedOps&, TableView<double>, std::uint32_t,
                                 int*, std::uint32_t*, unsigned long long*, cudaStream_t);

}  // namespace hashlab::rapids::detail
