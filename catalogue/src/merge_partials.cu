// The pre-aggregation's merge on the device (servers_groupby.hpp, detail::merge_partials_on_device):
// what detail::merge_partials does on the host, step for step, so that the partial groups a server
// receives are merged where the shuffle left them. Our own algorithm on CUB's radix sort and scan,
// not a paper's phase. A server receives at most one partial per group from each server (each
// local result has one row per group), so a group's rows are few and one thread folds them.
#include <algorithm>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "device_answers.hpp"
#include "hashlab/catalogue/servers_groupby.hpp"
#include "hashlab/common/collect.cuh"
#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/launch.cuh"
#include "hashlab/common/primitives.hpp"

namespace hashlab::catalogue::detail {
namespace {

using reference::Aggregation;

/// flags[i] = 1 where row i of the sorted partials starts a group: the first row, and a row
/// whose key in this column differs from the row before it. `first_column` writes every flag;
/// the other columns add theirs (a tuple changes where any of its columns does).
__global__ void mark_group_starts(const std::uint32_t* sorted_keys, std::size_t n, bool first_column,
                                  std::uint32_t* flags) {
  for (const std::size_t i : grid_stride(n)) {
    const bool changes = i == 0 || sorted_keys[i] != sorted_keys[i - 1];
    if (first_column) flags[i] = changes;
    else if (changes) flags[i] = 1;
  }
}

/// starts[g] = the first sorted row of group g, and starts[groups] = n: each group's rows are
/// starts[g] .. starts[g + 1].
__global__ void collect_group_starts(const std::uint32_t* flags, const std::uint32_t* inclusive_scan, std::size_t n,
                                     std::size_t groups, std::uint32_t* starts) {
  collect_flagged(n, inclusive_scan, 0, [&](std::size_t i) { return flags[i] != 0; },
                  [&](std::size_t i, std::size_t to) { starts[to] = static_cast<std::uint32_t>(i); });
  if (global_thread_index() == 0) starts[groups] = static_cast<std::uint32_t>(n);
}

// The folds, as merge_partials writes them (std::min and std::max's comparisons, so that equal
// or unordered values keep the same one).
struct Add {
  template <class T>
  __device__ T operator()(T acc, T x) const { return acc + x; }
};
struct Min {
  template <class T>
  __device__ T operator()(T acc, T x) const { return x < acc ? x : acc; }
};
struct Max {
  template <class T>
  __device__ T operator()(T acc, T x) const { return acc < x ? x : acc; }
};

/// merged[g] = the fold of column over group g's rows, in sorted order (row order[i]).
template <class T, class Fold>
__global__ void fold_groups(const T* column, const std::uint32_t* order, const std::uint32_t* starts,
                            std::size_t groups, Fold fold, T* merged) {
  for (const std::size_t g : grid_stride(groups)) {
    const std::uint32_t end = starts[g + 1];
    T acc = column[order[starts[g]]];
    for (std::uint32_t i = starts[g] + 1; i < end; ++i) acc = fold(acc, column[order[i]]);
    merged[g] = acc;
  }
}

/// mean[g] = sum[g] / count[g], each read as double (as merge_partials does).
template <class S, class C>
__global__ void divide_groups(const S* sum, const C* count, std::size_t groups, double* mean) {
  for (const std::size_t g : grid_stride(groups))
    mean[g] = static_cast<double>(sum[g]) / static_cast<double>(count[g]);
}

template <class From, class To>
__global__ void convert_values(const From* in, std::size_t n, To* out) {
  for (const std::size_t i : grid_stride(n)) out[i] = static_cast<To>(in[i]);
}

template <class T>
void fold_column(const T* column, Aggregation op, const std::uint32_t* order, const std::uint32_t* starts,
                 std::size_t groups, T* merged, cudaStream_t stream) {
  const unsigned grid = grid_for(groups);
  if (op == Aggregation::kMin) fold_groups<<<grid, kDefaultBlock, 0, stream>>>(column, order, starts, groups, Min{}, merged);
  else if (op == Aggregation::kMax) fold_groups<<<grid, kDefaultBlock, 0, stream>>>(column, order, starts, groups, Max{}, merged);
  else fold_groups<<<grid, kDefaultBlock, 0, stream>>>(column, order, starts, groups, Add{}, merged);  // sums, counts
  HASHLAB_CHECK_LAUNCH();
}

/// An aggregate's device values as the element type it holds.
template <class T>
const T* values_of(const DeviceGroupByResult::Aggregate& a) {
  if constexpr (std::is_same_v<T, std::int64_t>) return a.exact_values.data();
  else return a.real_values.data();
}

template <class S>
void divide_by_count(const S* sum, const DeviceGroupByResult::Aggregate& count, std::size_t groups, double* mean,
                     cudaStream_t stream) {
  if (count.exact)
    divide_groups<<<grid_for(groups), kDefaultBlock, 0, stream>>>(sum, values_of<std::int64_t>(count), groups, mean);
  else
    divide_groups<<<grid_for(groups), kDefaultBlock, 0, stream>>>(sum, values_of<double>(count), groups, mean);
  HASHLAB_CHECK_LAUNCH();
}

}  // namespace

DeviceGroupByResult merge_partials_on_device(const DevicePartials& partials, std::size_t value_columns,
                                             const std::vector<Aggregation>& base,
                                             const std::vector<Aggregation>& requested, cudaStream_t stream) {
  const std::size_t n = partials.rows, b = base.size();
  if (partials.is_exact.size() != value_columns * b || partials.columns.size() != partials.is_exact.size())
    throw std::logic_error("merge_partials_on_device: " + std::to_string(partials.columns.size()) + " partial columns (" +
                           std::to_string(partials.is_exact.size()) + " types) for " + std::to_string(value_columns) +
                           " value columns of " + std::to_string(b) + " aggregations");
  if (partials.keys.empty()) throw std::logic_error("merge_partials_on_device: no key columns");
  if (n > std::numeric_limits<std::uint32_t>::max())
    throw std::length_error("merge_partials_on_device: " + std::to_string(n) +
                            " partial rows; the row numbers are 32-bit (at most 2^32 - 1 rows)");
  auto base_index = [&](Aggregation a) {
    const auto at = static_cast<std::size_t>(std::find(base.begin(), base.end(), a) - base.begin());
    if (at == b) throw std::logic_error(std::string("merge_partials_on_device: ") + reference::to_string(a) +
                                        " is not among the base aggregations");
    return at;
  };

  // ---- the rows in key tuple order, and where each group begins ----------------------------------
  const DeviceBuffer<std::uint32_t> order = sort_order(partials.keys, n, stream);
  std::vector<DeviceBuffer<std::uint32_t>> sorted_keys;
  for (const std::uint32_t* k : partials.keys) sorted_keys.push_back(gather(k, order.data(), n, stream));
  std::size_t groups = 0;
  DeviceBuffer<std::uint32_t> starts;
  if (n > 0) {
    DeviceBuffer<std::uint32_t> flags(n, stream), scan(n, stream);
    for (std::size_t c = 0; c < sorted_keys.size(); ++c) {
      mark_group_starts<<<grid_for(n), kDefaultBlock, 0, stream>>>(sorted_keys[c].data(), n, c == 0, flags.data());
      HASHLAB_CHECK_LAUNCH();
    }
    prim::inclusive_scan(flags.data(), scan.data(), n, stream);
    groups = read_device_value(scan.data() + n - 1, stream);  // the output's size
    starts = DeviceBuffer<std::uint32_t>(groups + 1, stream);
    collect_group_starts<<<grid_for(n), kDefaultBlock, 0, stream>>>(flags.data(), scan.data(), n, groups, starts.data());
    HASHLAB_CHECK_LAUNCH();
  }

  DeviceGroupByResult out;
  out.groups = groups;
  for (const auto& k : sorted_keys) out.keys.push_back(gather(k.data(), starts.data(), groups, stream));

  // ---- each partial column folded over its groups, in its own type -------------------------------
  std::vector<DeviceGroupByResult::Aggregate> merged(partials.columns.size());
  for (std::size_t col = 0; col < partials.columns.size(); ++col) {
    DeviceGroupByResult::Aggregate& m = merged[col];
    m.op = base[col % b];
    m.exact = partials.is_exact[col];
    if (m.exact) {
      m.exact_values = DeviceBuffer<std::int64_t>(groups, stream);
      if (groups > 0)
        fold_column(static_cast<const std::int64_t*>(partials.columns[col]), m.op, order.data(), starts.data(), groups,
                    m.exact_values.data(), stream);
    } else {
      m.real_values = DeviceBuffer<double>(groups, stream);
      if (groups > 0)
        fold_column(static_cast<const double*>(partials.columns[col]), m.op, order.data(), starts.data(), groups,
                    m.real_values.data(), stream);
    }
  }

  // ---- the requested columns: the means first (they read the merged sums and counts, which the
  // other columns may take over), then each merged column, moved on its last use, copied before --
  std::vector<DeviceBuffer<double>> means(value_columns);
  const bool wants_mean = std::find(requested.begin(), requested.end(), Aggregation::kMean) != requested.end();
  for (std::size_t v = 0; v < value_columns && wants_mean; ++v) {
    const DeviceGroupByResult::Aggregate& sum = merged[v * b + base_index(Aggregation::kSum)];
    const DeviceGroupByResult::Aggregate& count = merged[v * b + base_index(Aggregation::kCount)];
    means[v] = DeviceBuffer<double>(groups, stream);
    if (groups == 0) continue;
    if (sum.exact) divide_by_count(values_of<std::int64_t>(sum), count, groups, means[v].data(), stream);
    else divide_by_count(values_of<double>(sum), count, groups, means[v].data(), stream);
  }
  std::vector<int> uses(merged.size(), 0);
  for (std::size_t v = 0; v < value_columns; ++v)
    for (const Aggregation a : requested)
      if (a != Aggregation::kMean) ++uses[v * b + base_index(a)];
  for (std::size_t v = 0; v < value_columns; ++v) {
    std::optional<std::size_t> first_mean;  // where this value column's mean went (a second one copies it)
    for (const Aggregation a : requested) {
      DeviceGroupByResult::Aggregate column;
      column.op = a;
      if (a == Aggregation::kMean) {
        column.exact = false;
        if (!first_mean) {
          first_mean = out.aggregates.size();
          column.real_values = std::move(means[v]);
        } else {
          column.real_values = copy_of(out.aggregates[*first_mean].real_values.data(), groups, stream);
        }
        out.aggregates.push_back(std::move(column));
        continue;
      }
      const std::size_t from = v * b + base_index(a);
      DeviceGroupByResult::Aggregate& m = merged[from];
      column.exact = m.exact;
      if (--uses[from] == 0) {
        column.exact_values = std::move(m.exact_values);
        column.real_values = std::move(m.real_values);
      } else if (m.exact) {
        column.exact_values = copy_of(m.exact_values.data(), groups, stream);
      } else {
        column.real_values = copy_of(m.real_values.data(), groups, stream);
      }
      out.aggregates.push_back(std::move(column));
    }
  }
  return out;
}

void retype(DeviceGroupByResult::Aggregate& aggregate, bool exact, std::size_t n, cudaStream_t stream) {
  if (aggregate.exact == exact) return;
  if (exact) {
    aggregate.exact_values = DeviceBuffer<std::int64_t>(n, stream);
    if (n > 0) {
      convert_values<<<grid_for(n), kDefaultBlock, 0, stream>>>(aggregate.real_values.data(), n,
                                                               aggregate.exact_values.data());
      HASHLAB_CHECK_LAUNCH();
    }
    aggregate.real_values = DeviceBuffer<double>();  // freed in stream order, after the conversion
  } else {
    aggregate.real_values = DeviceBuffer<double>(n, stream);
    if (n > 0) {
      convert_values<<<grid_for(n), kDefaultBlock, 0, stream>>>(aggregate.exact_values.data(), n,
                                                               aggregate.real_values.data());
      HASHLAB_CHECK_LAUNCH();
    }
    aggregate.exact_values = DeviceBuffer<std::int64_t>();
  }
  aggregate.exact = exact;
}

}  // namespace hashlab::catalogue::detail
