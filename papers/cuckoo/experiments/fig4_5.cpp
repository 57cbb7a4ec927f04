// Fig. 4.5: the compacting hash table vs the sorted structure (section 4.4).
#include <string>
#include <vector>

#include "hashlab/common/memory.hpp"
#include "hashlab/cuckoo/set.hpp"

#include "experiments.hpp"
#include "inputs.cuh"

namespace hashlab::cuckoo::experiments {
namespace {

void run_fig4_5(PointContext& ctx) {
  const Point& pt = ctx.point();
  auto& in = multi_input(ctx, false);
  DeviceBuffer<std::uint32_t> ids(pt.n, ctx.stream());
  ids.fill_bytes(0xff, ctx.stream());
  std::vector<std::uint32_t> compacted;
  std::size_t unique = 0;
  auto measure = [&](auto& table) {
    const auto build = ctx.time_gpu([&](cudaStream_t s) { table.build(in.keys.data(), pt.n, s); });
    // "Each key was queried once for every time the key appeared in the input."
    const auto find = ctx.time_gpu([&](cudaStream_t s) { table.find(in.keys.data(), pt.n, ids.data(), s); });
    ctx.report_time("build", build, static_cast<double>(pt.n), "keys");
    ctx.report_time("retrieve", find, static_cast<double>(pt.n), "queries");
    ctx.report_value("build_plus_retrieve_time", build.median_ms + find.median_ms, "ms");
    ctx.report_value("bytes_per_key", static_cast<double>(table.bytes()) / static_cast<double>(pt.n), "B");
    unique = table.unique_keys();
    compacted = copy_to_host(table.keys(), unique, ctx.stream());
  };
  if (pt.variant == "sorted_compacting") {
    SortedCompacting table;
    measure(table);
  } else {
    CompactingHashTable table(config_from(ctx.options(), 4, 1.25));
    measure(table);
    ctx.report_value("restarts", table.stats().restarts(), "count");
  }
  // IDs are 0..u-1 with u the number of distinct keys, and translate back to their key: so each
  // distinct key has exactly one ID and each ID one key.
  const auto got = ids.to_host(ctx.stream());
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < pt.n; ++i) wrong += got[i] >= unique || compacted[got[i]] != in.host_keys[i];
  ctx.verify(unique == in.distinct, "found " + std::to_string(unique) + " distinct keys, expected " + std::to_string(in.distinct));
  ctx.verify(wrong == 0, std::to_string(wrong) + " keys got a wrong ID");
}

}  // namespace

harness::Experiment fig4_5_experiment() {
  return make_experiment(
      "cuckoo", "fig4_5", "Fig. 4.5", "compacting hash table vs sorted structure: 10M keys, rising multiplicity",
      {"cuckoo_compacting", "sorted_compacting"},
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, {o.pick_size(k10M, k10M)}, "multiplicity", multiplicities(o));
      },
      run_fig4_5);
}

}  // namespace hashlab::cuckoo::experiments
