// Section 4.3.1.2's block size: the chapter's 64 threads per block vs others.
#include "hashlab/common/memory.hpp"
#include "hashlab/cuckoo/cuckoo_table.hpp"

#include "experiments.hpp"
#include "inputs.cuh"
#include "builds.cuh"

namespace hashlab::cuckoo::experiments {
namespace {

void run_block_size(PointContext& ctx) {
  const Point& pt = ctx.point();
  auto& p = pairs(ctx, pt.n);
  CuckooConfig config = config_from(ctx.options(), 4, 1.25);
  config.block_size = static_cast<int>(pt.param_value);
  CuckooHashTable table(config);
  int builds = 0, attempts = 0;
  const auto build = time_build(ctx, table, p, pt.n, builds, attempts);
  ctx.report_time("build", build, static_cast<double>(pt.n), "pairs");
  ctx.report_value("restarts_per_build", static_cast<double>(attempts - builds) / builds, "count");
  DeviceBuffer<std::uint32_t> found(pt.n, ctx.stream());
  found.fill_bytes(0, ctx.stream());
  table.find(p.keys.data(), pt.n, found.data(), ctx.stream());
  verify_all_found(ctx, found, p);
}

}  // namespace

harness::Experiment block_size_experiment() {
  return make_experiment(
      "cuckoo", "block_size", "Section 4.3.1.2 (block size)", "construction rate vs threads per block: 1.25N, 4 functions",
      {"cuckoo"},
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, {o.pick_size(1u << 24, k32M)}, "block_size", {32, 64, 128, 256, 512, 1024});
      },
      run_block_size);
}

}  // namespace hashlab::cuckoo::experiments
