// The demo (`hashlab demo rapids_groupby`): 12 rows, 2 key columns, traced through fillTable's
// steps, the relaunch, the table and the extraction; on a GPU, the same rows through HashGroupBy.
#include <algorithm>
#include <array>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "experiments.hpp"
#include "hashlab/common/hash.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/rapids_groupby/groupby.hpp"
#include "hashlab/reference/groupby.hpp"

namespace hashlab::rapids::experiments {
namespace {

using harness::RunOptions;

/// The teaching trace: fillTable's steps for each row, in row order (the kernel runs them in
/// parallel; the steps of one row are the same), with the 75% relaunch.
struct TraceTable {
  std::vector<std::int32_t> key_index;
  std::vector<std::int64_t> count, sum, min;
};

int run_demo(const RunOptions& options) {
  constexpr int kRows = 12;
  const std::vector<std::array<std::uint32_t, 2>> keys = {{1, 7}, {2, 5}, {1, 7}, {3, 3}, {2, 5}, {4, 9},
                                                          {1, 7}, {5, 2}, {3, 3}, {4, 9}, {2, 5}, {5, 2}};
  const std::vector<std::int32_t> values = {10, 20, 30, 40, 50, 60, 70, 80, 90, 15, 25, 35};
  std::cout << "RAPIDS hash group-by (Chen et al. 2019), " << kRows
            << " rows, 2 key columns, one value column, ops {sum, min}\n\n"
            << "Section 3: hashcode(keys) = keys[0] + keys[1]*31 (x*31 = (x << 5) - x), slot = hashcode mod size\n";
  auto hashcode = [&](int row) { return hash::rapids_hashcode(2, [&](int c) { return keys[row][c]; }); };
  for (int r = 0; r < kRows; ++r)
    std::cout << "  row " << std::setw(2) << r << "  keys (" << keys[r][0] << ", " << keys[r][1] << ")  value "
              << std::setw(2) << values[r] << "  hashcode " << hashcode(r) << "\n";

  // Cardinality prediction on 12 rows says little; start from a deliberately small table.
  std::uint32_t size = 4;
  std::cout << "\nEach row reads its slot first: a slot that holds a row index never changes, so only an empty\n"
            << "slot needs the atomicCAS (which another thread may win; then its row is compared as below).\n";
  std::cout << "\nThe table starts with " << size << " slots (too small on purpose); the kernel asks for a\n"
            << "relaunch when it claims a slot beyond 75% of the table (floor(0.75 * size)).\n";
  TraceTable t;
  for (int launch = 0;; ++launch) {
    const auto max_fill = static_cast<std::uint32_t>(std::floor(kRelaunchLoad * size));
    std::cout << "\n-- fillTable launch " << launch << ": " << size << " slots, key index = -1, count = 0, sum = 0,"
              << " min = INT32_MAX; at most " << max_fill << " slots may be claimed\n";
    t.key_index.assign(size, kEmptyIndex);
    t.count.assign(size, 0);
    t.sum.assign(size, 0);
    t.min.assign(size, std::numeric_limits<std::int32_t>::max());
    std::uint32_t used = 0;
    bool relaunch = false;
    for (int r = 0; r < kRows && !relaunch; ++r) {
      std::uint32_t slot = hashcode(r) % size;
      std::cout << "  row " << std::setw(2) << r << ": home slot " << slot;
      for (;;) {
        if (t.key_index[slot] == kEmptyIndex) {
          t.key_index[slot] = r;
          std::cout << ", empty: atomicCAS(-1 -> " << r << ") succeeds, new group";
          if (++used > max_fill) {
            std::cout << ", " << used << " slots claimed > " << max_fill << ": set the relaunch flag\n";
            relaunch = true;
          }
          break;
        }
        const int stored = t.key_index[slot];
        std::cout << ", holds row " << stored;
        if (keys[stored] == keys[r]) {
          std::cout << ", keys equal";
          break;
        }
        slot = (slot + 1) % size;
        std::cout << ", keys differ -> probe slot " << slot;  // linear probing
      }
      if (relaunch) break;
      ++t.count[slot];
      t.sum[slot] += values[r];
      t.min[slot] = std::min<std::int64_t>(t.min[slot], values[r]);
      std::cout << "; atomicAdd count, sum, atomicMin min at slot " << slot << "\n";
    }
    if (!relaunch) break;
    size = static_cast<std::uint32_t>(kGrowthFactor * size);
    std::cout << "  host: flag is 1 -> drop the partial table, allocate " << size << " slots (x" << kGrowthFactor
              << "), launch again\n";
  }
  std::cout << "\nThe table (slot: key index | count | sum | min); the kernel keeps the count column only when a\n"
            << "count or mean is asked for, it is shown here because a mean would divide by it:\n";
  for (std::uint32_t s = 0; s < size; ++s) {
    std::cout << "  " << std::setw(2) << s << ": " << std::setw(2) << t.key_index[s];
    if (t.key_index[s] != kEmptyIndex)
      std::cout << " | " << t.count[s] << " | " << std::setw(3) << t.sum[s] << " | " << t.min[s];
    std::cout << "\n";
  }
  std::cout << "\nExtraction: Thrust finds the used slots; each group's keys come from the input row its key index\n"
            << "names, its results from the table (a mean would be sum / count):\n";
  for (std::uint32_t s = 0; s < size; ++s)
    if (t.key_index[s] != kEmptyIndex)
      std::cout << "  slot " << std::setw(2) << s << " -> row " << std::setw(2) << t.key_index[s] << " keys ("
                << keys[t.key_index[s]][0] << ", " << keys[t.key_index[s]][1] << "): sum " << t.sum[s] << ", min "
                << t.min[s] << "\n";

  if (options.gpu) {
    Stream stream;  // before the buffers: they are freed on it
    std::vector<std::uint32_t> columns(2 * kRows);
    for (int r = 0; r < kRows; ++r) columns[r] = keys[r][0], columns[kRows + r] = keys[r][1];
    auto d_keys = to_device(columns, stream);
    auto d_values = to_device(values, stream);
    GroupByInput<std::int32_t> in{d_keys.data(), 2, d_values.data(), 1, kRows, columns.data()};
    GroupByOptions opt;
    opt.sampling = Sampling::kNone;
    opt.table_size = 4;
    HashGroupBy groupby;
    // Two value columns {sum, min} of the same values, as in the trace.
    std::vector<std::int32_t> two(values);
    two.insert(two.end(), values.begin(), values.end());
    auto d_two = to_device(two, stream);
    in.values = d_two.data();
    in.value_columns = 2;
    const auto out = groupby.aggregate(in, {Aggregation::kSum, Aggregation::kMin}, opt, stream);
    const auto got = out.to_reference(stream);
    const auto expected = reference::groupby(
        std::vector<std::vector<std::uint32_t>>{{columns.begin(), columns.begin() + kRows}, {columns.begin() + kRows, columns.end()}},
        std::vector<std::vector<std::int32_t>>{values, values}, {Aggregation::kSum, Aggregation::kMin});
    const std::string diff = reference::compare(expected, got);
    std::cout << "\nOn the GPU (same rows, same 4-slot start): " << out.groups << " groups after "
              << groupby.stats().relaunches << " relaunch(es), table " << groupby.stats().table_size << " slots; "
              << (diff.empty() ? "equal to the CPU reference" : "DIFFERS from the CPU reference: " + diff) << "\n";
    if (!diff.empty()) return 1;
  } else {
    std::cout << "\n(no GPU: the GPU run of the same rows is skipped)\n";
  }
  std::cout << "\nWhere to read the code (papers/rapids_groupby/):\n"
            << "  src/fill_table.cu       fillTable: CAS of the row index, key compare, probing, atomics, relaunch flag\n"
            << "  src/groupby.cu          the host side: prediction, relaunch loop (growth x2), extraction call\n"
            << "  src/predict_gpu.cu      predictTableLength_GPU: cuRAND triples\n"
            << "  src/cardinality.cpp     the CPU pair sampler and both estimators (derivation in cardinality.hpp)\n"
            << "  src/extract.cu          Thrust used-slot search, key and value extraction kernels\n"
            << "  src/sort_groupby.cu     the Thrust sort-based comparator\n"
            << "  README.md               the report-to-code map and the deviations\n";
  return 0;
}

}  // namespace

harness::Demo demo() {
  return {"rapids_groupby",
          "12 rows, 2 key columns: hash codes, each row's CAS / compare / probe steps, the relaunch, the table, the extraction",
          /*needs_gpu=*/false, run_demo};
}

}  // namespace hashlab::rapids::experiments
