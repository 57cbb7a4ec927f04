// The shared baselines as registered experiments (paper "baselines"): the yardsticks of
// docs/design.md measured through the same harness as every paper, and a CPU-only experiment so that
// a machine without a GPU still runs something end to end.
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "hashlab/baselines/groupby.hpp"
#include "hashlab/baselines/hash_join.hpp"
#include "hashlab/baselines/linear_probing.hpp"
#include "hashlab/baselines/sorted_array.hpp"
#include "hashlab/common/generator.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/harness/experiment.hpp"
#include "hashlab/reference/cpu_baselines.hpp"
#include "hashlab/reference/groupby.hpp"
#include "hashlab/reference/join.hpp"
#include "hashlab/reference/lookup.hpp"

namespace hashlab {
namespace {

using harness::Experiment;
using harness::make_experiment;
using harness::Point;
using harness::PointContext;
using harness::RunOptions;
using harness::sweep;
using harness::Variants;
using reference::Aggregation;

constexpr std::uint64_t kGroups = 10000;  // docs/design.md's group-by yardstick: 100M rows, 10K groups

// ---- group-by: hash (load 0.5 of the groups) vs sort ----------------------------------------

struct GroupByInput {
  DeviceBuffer<std::uint32_t> keys, values;
  reference::GroupByResult expected;
};

void run_groupby(PointContext& ctx) {
  const Point& p = ctx.point();
  auto& in = ctx.cached<GroupByInput>("groupby:" + std::to_string(p.n), [&] {
    ctx.drop_cached("groupby:");
    GroupByInput input;
    input.keys = DeviceBuffer<std::uint32_t>(p.n, ctx.stream());
    input.values = DeviceBuffer<std::uint32_t>(p.n, ctx.stream());
    gen::generate_keys(gen::KeySpec::uniform(kGroups), ctx.seed(), input.keys.data(), p.n, ctx.stream());
    gen::generate_values<std::uint32_t>(ctx.seed(), 0, 1000000, input.values.data(), p.n, ctx.stream());
    input.expected = cpu::parallel_groupby(input.keys.to_host(ctx.stream()), input.values.to_host(ctx.stream()),
                                           Aggregation::kSum);
    return input;
  });
  baseline::DeviceGroups out;
  harness::Timing t;
  if (p.variant == "hash") {
    baseline::HashGroupBy groupby(2 * kGroups, ctx.stream());
    t = ctx.time_gpu([&](cudaStream_t s) { out = groupby.aggregate(in.keys.data(), in.values.data(), p.n, Aggregation::kSum, s); });
  } else {
    t = ctx.time_gpu([&](cudaStream_t s) { out = baseline::sort_groupby(in.keys.data(), in.values.data(), p.n, Aggregation::kSum, s); });
  }
  ctx.report_time("groupby", t, static_cast<double>(p.n), "rows");
  const std::string diff = reference::compare(in.expected, out.to_reference(Aggregation::kSum, ctx.stream()));
  ctx.verify(diff.empty(), diff);
}

// ---- tables: linear probing (load 0.5) vs sorted array, build and find -----------------------

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
    baseline::LinearProbingTable table(baseline::LinearProbingTable::capacity_for(p.n, 0.5), ctx.stream());
    const auto build = ctx.time_gpu([&](cudaStream_t s) { table.insert(in.keys.data(), in.values.data(), p.n, s); },
                                    [&](cudaStream_t s) { table.clear(s); });
    const auto find = ctx.time_gpu([&](cudaStream_t s) { table.find(in.keys.data(), p.n, found.data(), s); });
    ctx.report_time("build", build, static_cast<double>(p.n), "keys");
    ctx.report_time("find", find, static_cast<double>(p.n), "keys");
    ctx.report_value("bytes_per_key", static_cast<double>(table.bytes()) / static_cast<double>(p.n), "B");
  } else {
    baseline::SortedArray array;
    const auto build = ctx.time_gpu([&](cudaStream_t s) { array.build(in.keys.data(), in.values.data(), p.n, s); });
    const auto find = ctx.time_gpu([&](cudaStream_t s) { array.find(in.keys.data(), p.n, found.data(), s); });
    ctx.report_time("build", build, static_cast<double>(p.n), "keys");
    ctx.report_time("find", find, static_cast<double>(p.n), "keys");
    ctx.report_value("bytes_per_key", static_cast<double>(array.bytes()) / static_cast<double>(p.n), "B");
  }
  // Every key was inserted with its value; a lookup of all keys returns exactly those values.
  ctx.verify(found.to_host(ctx.stream()) == in.host_values, "a lookup returned a wrong value");
}

// ---- join: GPU hash join count vs the multi-threaded CPU join -------------------------------

// Both variants join the same two tables and are checked against one answer, independent of
// both (reference::oracle_join_count: the single-threaded reference took seconds at 16M).
struct JoinInput {
  std::vector<std::uint32_t> r, s;
  std::uint64_t expected = 0;
  std::string oracle_note;
};

void run_join(PointContext& ctx) {
  const Point& p = ctx.point();
  const JoinInput& in = ctx.cached<JoinInput>("join:" + std::to_string(p.n), [&] {
    ctx.drop_cached("join:");
    JoinInput made;
    made.r = gen::generate_keys_host(gen::KeySpec::unique(), ctx.seed(), p.n);
    made.s = gen::generate_keys_host(gen::KeySpec::unique(), ctx.seed() + 1, p.n);
    made.expected = reference::oracle_join_count(made.r, made.s, &made.oracle_note);
    return made;
  });
  if (!in.oracle_note.empty()) ctx.note(in.oracle_note);
  std::uint64_t got = 0;
  if (p.variant == "gpu_hash_join") {
    auto dr = to_device(in.r, ctx.stream());
    auto ds = to_device(in.s, ctx.stream());
    DeviceBuffer<std::uint64_t> count(1, ctx.stream());
    baseline::HashJoin join(0.5);
    const auto t = ctx.time_gpu([&](cudaStream_t st) {
      join.build(dr.data(), p.n, st);
      join.count(ds.data(), p.n, count.data(), st);
    });
    ctx.report_time("join", t, 2.0 * static_cast<double>(p.n), "rows");
    got = read_device_value(count.data(), ctx.stream());
  } else {
    const auto t = ctx.time_host([&] { got = cpu::parallel_join_count(in.r, in.s); });
    ctx.report_time("join", t, 2.0 * static_cast<double>(p.n), "rows");
  }
  ctx.verify(got == in.expected, "join count " + std::to_string(got) + ", expected " + std::to_string(in.expected));
}

// ---- CPU group-by: parallel baseline vs the reference (runs without a GPU) ----------------------

void run_cpu_groupby(PointContext& ctx) {
  const Point& p = ctx.point();
  const auto keys = gen::generate_keys_host(gen::KeySpec::uniform(kGroups), ctx.seed(), p.n);
  const auto values = gen::generate_values_host<std::uint32_t>(ctx.seed(), 0, 1000000, p.n);
  reference::GroupByResult got;
  const auto t = p.variant == "parallel"
                     ? ctx.time_host([&] { got = cpu::parallel_groupby(keys, values, Aggregation::kSum); })
                     : ctx.time_host([&] { got = reference::groupby(keys, values, Aggregation::kSum); });
  ctx.report_time("groupby", t, static_cast<double>(p.n), "rows");
  const std::string diff = reference::compare(reference::groupby(keys, values, Aggregation::kSum), got);
  ctx.verify(diff.empty(), diff);
}

const harness::Registrar registrar([](harness::Registry& r) {
  r.add_experiment(make_experiment(
      "baselines", "groupby", "docs/design.md yardstick",
      "GPU group-by baselines, 10K groups, sum: cuDF-style hash (2x slots) vs CUB sort + reduce-by-key", {"hash", "sort"},
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, o.pick_sizes({1000000, 10000000, 100000000}, {1000000, 10000000, 100000000, 300000000}));
      },
      run_groupby));

  r.add_experiment(make_experiment(
      "baselines", "tables", "docs/design.md yardstick",
      "build and find of unique random keys: linear probing at load 0.5 vs sorted array", {"linear_probing", "sorted_array"},
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, o.pick_sizes({1u << 20, 1u << 25}, {1u << 20, 1u << 22, 1u << 25, 1u << 27}));
      },
      run_table));

  r.add_experiment(make_experiment(
      "baselines", "join", "docs/design.md yardstick",
      "inner join count of two tables of unique random keys: GPU hash join vs multi-threaded CPU join",
      {"gpu_hash_join", "cpu_parallel_join"},
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, o.pick_sizes({1u << 20, 1u << 24}, {1u << 20, 1u << 24, 1u << 25}));
      },
      run_join));

  Experiment cpu_groupby = make_experiment(
      "baselines", "cpu_groupby", "CPU baseline",
      "CPU group-by, 10K groups, sum: multi-threaded radix-partitioned vs the single-threaded reference",
      {"parallel", "reference"},
      [](const RunOptions& o, const Variants& v) { return sweep(v, o.pick_sizes({100000, 1000000}, {1000000, 10000000})); },
      run_cpu_groupby);
  cpu_groupby.needs_gpu = false;
  r.add_experiment(std::move(cpu_groupby));
});

}  // namespace
}  // namespace hashlab
