// Fig. 4.6: the multivalue hash table vs the sorted structure (section 4.4).
#include <string>
#include <vector>

#include "hashlab/common/memory.hpp"
#include "hashlab/cuckoo/multivalue.hpp"

#include "experiments.hpp"
#include "inputs.cuh"

namespace hashlab::cuckoo::experiments {
namespace {

void run_fig4_6(PointContext& ctx) {
  const Point& pt = ctx.point();
  auto& in = multi_input(ctx, true);
  DeviceBuffer<KeyInfo> info(pt.n, ctx.stream());
  info.fill_bytes(0, ctx.stream());
  std::vector<std::uint32_t> sorted_values;
  std::size_t unique = 0;
  auto measure = [&](auto& table) {
    const auto build = ctx.time_gpu([&](cudaStream_t s) { table.build(in.keys.data(), in.values.data(), pt.n, s); });
    const auto find = ctx.time_gpu([&](cudaStream_t s) { table.find(in.keys.data(), pt.n, info.data(), s); });
    ctx.report_time("build", build, static_cast<double>(pt.n), "pairs");
    ctx.report_time("retrieve", find, static_cast<double>(pt.n), "queries");
    ctx.report_value("build_plus_retrieve_time", build.median_ms + find.median_ms, "ms");
    ctx.report_value("bytes_per_pair", static_cast<double>(table.bytes()) / static_cast<double>(pt.n), "B");
    unique = table.unique_keys();
    sorted_values = copy_to_host(table.sorted_values(), pt.n, ctx.stream());
  };
  if (pt.variant == "sorted_multivalue") {
    SortedMultivalue table;
    measure(table);
  } else {
    MultivalueHashTable table(config_from(ctx.options(), 4, 1.25));
    measure(table);
    ctx.report_value("restarts", table.stats().restarts(), "count");
  }
  // sortedValues[] against the CPU's stable sort, and every query's (offset, count) against the
  // key's range in it.
  ctx.verify(sorted_values == in.sorted_values, "sortedValues[] differs from the CPU's stable sort by key");
  const auto got = info.to_host(ctx.stream());
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < pt.n; ++i)
    wrong += got[i].offset != in.expected[i].offset || got[i].count != in.expected[i].count;
  ctx.verify(unique == in.distinct, "found " + std::to_string(unique) + " distinct keys, expected " + std::to_string(in.distinct));
  ctx.verify(wrong == 0, std::to_string(wrong) + " queries returned a wrong offset or count");
}

}  // namespace

harness::Experiment fig4_6_experiment() {
  return make_experiment(
      "cuckoo", "fig4_6", "Fig. 4.6", "multivalue hash table vs sorted structure: 10M pairs, rising multiplicity",
      {"cuckoo_multivalue", "sorted_multivalue"},
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, {o.pick_size(k10M, k10M)}, "multiplicity", multiplicities(o));
      },
      run_fig4_6);
}

}  // namespace hashlab::cuckoo::experiments
