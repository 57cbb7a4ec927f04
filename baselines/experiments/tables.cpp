// baselines/tables: build and find of unique random keys: the linear-probing table at load 0.5 vs
// the sorted array with binary search.
#include <string>
#include <vector>

#include "experiments.hpp"
#include "hashlab/baselines/linear_probing.hpp"
#include "hashlab/baselines/sorted_array.hpp"
#include "hashlab/common/generator.hpp"
#include "hashlab/common/memory.hpp"

namespace hashlab::baseline::experiments {
namespace {

struct TableInput {
  DeviceBuffer<std::uint32_t> keys, values;
  std::vector<std::uint32_t> host_keys, host_values;
};

void run_table(PointContext& ctx) {
  const Point& p = ctx.point();
  auto& in = ctx.cached<TableInput>("table:" + std::to_string(p.n), [&] {
    ctx.drop_cached("table:");
    TableInput input;
    input.host_keys = gen::generate_keys_host(gen::KeySpec::unique(), ctx.seed(), p.n);
    input.host_values = gen::generate_values_host<std::uint32_t>(ctx.seed(), 0, 0xfffffffeu, p.n);
    input.keys = to_device(input.host_keys, ctx.stream());
    input.values = to_device(input.host_values, ctx.stream());
    return input;
  });
  DeviceBuffer<std::uint32_t> found(p.n, ctx.stream());
  found.fill_bytes(0, ctx.stream());  // poisoned: a lookup that writes nothing fails verification
  if (p.variant == "linear_probing") {
    LinearProbingTable table(LinearProbingTable::capacity_for(p.n, 0.5), ctx.stream());
    const auto build = ctx.time_gpu([&](cudaStream_t s) { table.insert(in.keys.data(), in.values.data(), p.n, s); },
                                    [&](cudaStream_t s) { table.clear(s); });
    const auto find = ctx.time_gpu([&](cudaStream_t s) { table.find(in.keys.data(), p.n, found.data(), s); });
    ctx.report_time("build", build, static_cast<double>(p.n), "keys");
    ctx.report_time("find", find, static_cast<double>(p.n), "keys");
    ctx.report_value("bytes_per_key", static_cast<double>(table.bytes()) / static_cast<double>(p.n), "B");
  } else {
    SortedArray array;
    const auto build = ctx.time_gpu([&](cudaStream_t s) { array.build(in.keys.data(), in.values.data(), p.n, s); });
    const auto find = ctx.time_gpu([&](cudaStream_t s) { array.find(in.keys.data(), p.n, found.data(), s); });
    ctx.report_time("build", build, static_cast<double>(p.n), "keys");
    ctx.report_time("find", find, static_cast<double>(p.n), "keys");
    ctx.report_value("bytes_per_key", static_cast<double>(array.bytes()) / static_cast<double>(p.n), "B");
  }
  // Every key was inserted with its value; a lookup of all keys returns exactly those values.
  ctx.verify(found.to_host(ctx.stream()) == in.host_values, "a lookup returned a wrong value");
}

}  // namespace

harness::Experiment tables() {
  return harness::make_experiment(
      "baselines", "tables", "docs/design.md yardstick",
      "build and find of unique random keys: linear probing at load 0.5 vs sorted array", {"linear_probing", "sorted_array"},
      [](const RunOptions& o, const Variants& v) {
        return harness::sweep(v, o.pick_sizes({1u << 20, 1u << 25}, {1u << 20, 1u << 22, 1u << 25, 1u << 27}));
      },
      run_table);
}

}  // namespace hashlab::baseline::experiments
