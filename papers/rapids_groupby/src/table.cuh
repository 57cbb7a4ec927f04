// Internal: the hash table of section 3 and the pieces the kernels share.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "hashlab/common/hash.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/rapids_groupby/groupby.hpp"

namespace hashlab::rapids::detail {

// The ops travel to the kernels packed 3 bits each in one 64-bit word (registers, no indexing of
// a parameter array), which bounds the value columns.
constexpr int kMaxValueColumns = 16;
constexpr int kOpBits = 3;

/// The accumulator of a value type: int32 -> int64 (exact sums), double -> double.
template <class V>
using Acc = std::conditional_t<std::is_integral_v<V>, long long, double>;

struct PackedOps {
  std::uint64_t bits = 0;
  int count = 0;
  bool needs_count = false;  // a count or mean column reads the table's count column

  HASHLAB_HD Aggregation at(int v) const {
    return static_cast<Aggregation>((bits >> (kOpBits * v)) & ((1u << kOpBits) - 1));
  }
};
PackedOps pack(const std::vector<Aggregation>& ops);

/// The three lists of section 3: key index (-1 empty), count, results (column-major,
/// value_columns x size). `count` is null when no count or mean is asked for.
template <class V>
struct TableView {
  std::int32_t* key_index = nullptr;
  std::uint32_t* count = nullptr;
  Acc<V>* results = nullptr;
  std::uint32_t size = 0;
};

/// Owns one table's memory (stream-ordered).
template <class V>
struct Table {
  DeviceBuffer<std::int32_t> key_index;
  DeviceBuffer<std::uint32_t> count;
  DeviceBuffer<Acc<V>> results;
  std::uint32_t size = 0;

  Table(std::uint32_t slots, const PackedOps& ops, cudaStream_t stream)
      : key_index(slots, stream),
        count(ops.needs_count ? slots : 0, stream),
        results(static_cast<std::size_t>(slots) * ops.count, stream),
        size(slots) {}
  TableView<V> view() { return {key_index.data(), count.data(), results.data(), size}; }
};

/// The row's hashcode (section 3): keys[0] + keys[1]*31 + ... + keys[K-1]*31^(K-1), the same as
/// hash::rapids_hashcode, unrolled over a register array.
HASHLAB_HD std::uint32_t row_hashcode(const std::uint32_t (&own)[kMaxKeyColumns], int key_columns) {
  std::uint32_t h = 0;
  for (int c = kMaxKeyColumns - 1; c >= 0; --c)
    if (c < key_columns) h = hash::times31(h) + own[c];
  return h;
}

// Launchers (one per phase; the kernels live in their .cu files).
template <class V>
void init_table(TableView<V> table, const PackedOps& ops, cudaStream_t stream);

/// fillTable: one launch over all rows. `used_slots` counts claimed slots, `relaunch` is the
/// managed flag, `probe_steps` non-null selects the instrumented kernel.
template <class V>
void fill_table(const GroupByInput<V>& input, const PackedOps& ops, TableView<V> table, std::uint32_t max_fill,
                int* relaunch, std::uint32_t* used_slots, unsigned long long* probe_steps, cudaStream_t stream);

/// Extraction: used slots (Thrust), then the key and value kernels. Synchronises `stream`.
template <class V>
DeviceGroups extract(const GroupByInput<V>& input, const std::vector<Aggregation>& ops, TableView<V> table,
                     cudaStream_t stream);

}  // namespace hashlab::rapids::detail
