// What Fig. 4's two panels share (fig4a_rows_100_keys.cu, fig4b_rows_10k_keys.cu): time vs rows
// for 100 and 10K unique keys: CPU, sort-based, hash with CPU sampling, hash with GPU sampling.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "inputs.cuh"

namespace hashlab::rapids::experiments {

inline void run_fig4(PointContext& ctx, std::uint64_t unique) {
  const Point& p = ctx.point();
  ReportDataset& d = dataset(ctx, p.n, unique, kKeyColumns, kReportOps);
  run_variant(ctx, d, p.variant, static_cast<double>(std::min<std::uint64_t>(unique, p.n)), /*with_copies=*/true);
}

// Fig. 4's two panels: the same variants and rows. The issue's 1K .. 100M rows in both
// profiles: the 100M points cost about 30 s per figure on an H100 host (the single-threaded CPU
// comparator and the reference, 2 GB of input).
inline Variants fig4_variants() { return {"cpu_stl", "sort_thrust", "hash_cpu_sampling", "hash_gpu_sampling"}; }

inline std::vector<Point> fig4_rows_plan(const RunOptions& o, const Variants& v) {
  const std::vector<std::uint64_t> rows = {1000, 10000, 100000, 1000000, 10000000, 100000000};
  return sweep(v, o.pick_sizes(rows, rows));
}

}  // namespace hashlab::rapids::experiments
