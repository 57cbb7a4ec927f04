// baselines/join: the inner-join count of two tables of unique random keys: the GPU hash join vs
// the multi-threaded CPU join.
#include <string>
#include <vector>

#include "experiments.hpp"
#include "hashlab/baselines/hash_join.hpp"
#include "hashlab/common/generator.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/reference/cpu_baselines.hpp"
#include "hashlab/reference/join.hpp"

namespace hashlab::baseline::experiments {
namespace {

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
    HashJoin join(0.5);
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

}  // namespace

harness::Experiment join() {
  return harness::make_experiment(
      "baselines", "join", "docs/design.md yardstick",
      "inner join count of two tables of unique random keys: GPU hash join vs multi-threaded CPU join",
      {"gpu_hash_join", "cpu_parallel_join"},
      [](const RunOptions& o, const Variants& v) {
        return harness::sweep(v, o.pick_sizes({1u << 20, 1u << 24}, {1u << 20, 1u << 24, 1u << 25}));
      },
      run_join);
}

}  // namespace hashlab::baseline::experiments
