// Internal: a group-by input as the experiments (experiments/inputs.cuh) and the tests hold it. Each
// fills its own (the experiments on the device, the tests on the host, from different seeds and
// value ranges); this is the one definition of what a dataset holds and how it is read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "hashlab/common/host_memory.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/common/threads.hpp"
#include "hashlab/rapids_groupby/groupby.hpp"
#include "hashlab/reference/groupby.hpp"

namespace hashlab::rapids {

/// `rows` rows of `key_columns` key columns and `value_columns` value columns, column-major on
/// the device and on the host, and on the host again as one vector per column (the CPU
/// reference's input, split once so that a timed CPU group-by does not split it).
template <class V>
struct Dataset {
  std::size_t rows = 0;
  int key_columns = 0;
  int value_columns = 0;
  DeviceBuffer<std::uint32_t> keys;      // column-major
  DeviceBuffer<V> values;                // column-major
  std::vector<std::uint32_t> host_keys;  // the same on the host
  std::vector<V> host_values;
  std::vector<std::vector<std::uint32_t>> key_columns_host;  // filled by split_host_columns()
  std::vector<std::vector<V>> value_columns_host;

  /// Fills key_columns_host and value_columns_host from host_keys and host_values (on all cores:
  /// 2 GB at the report's 10^8 rows).
  void split_host_columns() {
    key_columns_host.clear();
    value_columns_host.clear();
    auto split = [&](const auto& all, int columns, auto& out) {
      for (int c = 0; c < columns; ++c) {
        out.push_back(cpu::zeroed_vector<typename std::decay_t<decltype(all)>::value_type>(rows));
        auto& column = out.back();
        const auto* from = all.data() + static_cast<std::size_t>(c) * rows;
        cpu::parallel_for(rows, cpu::threads_for_items(rows), [&](std::size_t i) { column[i] = from[i]; });
      }
    };
    split(host_keys, key_columns, key_columns_host);
    split(host_values, value_columns, value_columns_host);
  }

  GroupByInput<V> input() const {
    GroupByInput<V> in;
    in.keys = keys.data();
    in.key_columns = key_columns;
    in.values = values.data();
    in.value_columns = value_columns;
    in.rows = rows;
    in.host_keys = host_keys.data();
    return in;
  }

  /// The CPU reference group-by, one op per value column (after split_host_columns()).
  reference::GroupByResult cpu_groupby(const std::vector<Aggregation>& ops) const {
    return reference::groupby(key_columns_host, value_columns_host, ops);
  }
};

}  // namespace hashlab::rapids
