// compare/joins: every Pk-Pk join of the catalogue, rows (key, value1, value2) materialised, over
// the table size and the match rate (the Pk-Pk report + HashGraph Fig. 9 side by side).
#include <algorithm>
#include <string>
#include <vector>

#include "experiments.hpp"
#include "hashlab/catalogue/checks.hpp"
#include "hashlab/catalogue/join.hpp"
#include "hashlab/common/generator.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/compare/plan.hpp"

namespace hashlab::compare::experiments {
namespace {

using harness::Point;
using harness::PointContext;

constexpr std::uint32_t kMaxTableValue = 0xfffffffeu;

struct JoinInput {
  gen::PkPkSpec spec;
  DeviceBuffer<std::uint32_t> r_keys, s_keys, r_values, s_values;
  std::vector<std::uint32_t> host_r_keys, host_s_keys, host_r_values, host_s_values;
  std::vector<pkpk::JoinedRow> expected;  // sorted by key
  std::string oracle_note;

  catalogue::JoinInput input() const {
    using catalogue::Column;
    return {Column::in_both(host_r_keys, r_keys.data(), "r_keys"), Column::in_both(host_r_values, r_values.data(), "r_values"),
            Column::in_both(host_s_keys, s_keys.data(), "s_keys"), Column::in_both(host_s_values, s_values.data(), "s_values")};
  }
};

JoinInput& join_input(PointContext& ctx, const gen::PkPkSpec& spec) {
  const std::string key = "joins:" + spec.describe() + ":" + std::to_string(spec.r_rows) + ":" + std::to_string(ctx.seed());
  return ctx.cached<JoinInput>(key, [&] {
    ctx.drop_cached("joins:");
    JoinInput in;
    in.spec = spec;
    const cudaStream_t st = ctx.stream();
    in.r_keys = DeviceBuffer<std::uint32_t>(spec.r_rows, st);
    in.s_keys = DeviceBuffer<std::uint32_t>(spec.s_rows, st);
    in.r_values = DeviceBuffer<std::uint32_t>(spec.r_rows, st);
    in.s_values = DeviceBuffer<std::uint32_t>(spec.s_rows, st);
    gen::generate_pkpk(spec, ctx.seed(), in.r_keys.data(), in.s_keys.data(), st);
    gen::generate_values<std::uint32_t>(ctx.seed() + 1, 0, kMaxTableValue, in.r_values.data(), spec.r_rows, st);
    gen::generate_values<std::uint32_t>(ctx.seed() + 2, 0, kMaxTableValue, in.s_values.data(), spec.s_rows, st);
    in.host_r_keys = in.r_keys.to_host(st);
    in.host_s_keys = in.s_keys.to_host(st);
    in.host_r_values = in.r_values.to_host(st);
    in.host_s_values = in.s_values.to_host(st);
    in.expected = catalogue::oracle_join(in.input(), &in.oracle_note);
    return in;
  });
}

void run_joins(PointContext& ctx) {
  const Point& p = ctx.point();
  const catalogue::JoinEntry& entry = catalogue::join_entry(p.variant);
  JoinInput& in = join_input(ctx, join_spec(p));
  const catalogue::JoinInput input = in.input();
  auto join = entry.make(input, {}, ctx.stream());
  const auto t = ctx.time(entry.clock, [&](cudaStream_t s) { join->run(s); });
  const auto got = join->result(ctx.stream());
  ctx.report_time("join", t, static_cast<double>(in.spec.r_rows + in.spec.s_rows), "rows");
  ctx.report_value("result_rows", static_cast<double>(got.size()), "rows");
  report_statistics(ctx, join->statistics(ctx.stream(), false), join->warnings(), {"rows_out"});
  if (!in.oracle_note.empty()) ctx.note(in.oracle_note);
  const std::string diff = catalogue::compare_rows(in.expected, got);
  ctx.verify(diff.empty(), diff);
}

}  // namespace

harness::Experiment joins() {
  return harness::make_experiment(
      kPaper, "joins", "Pk-Pk report + HashGraph Fig. 9",
      "every join side by side: a Pk-Pk join, rows (key, value1, value2) materialised; every join of the catalogue "
      "(BSP-sort, the full sort joins, the GPU hash join, HashGraph probe-new, the CPU join), over table size and "
      "match rate",
      join_variants(), [](const harness::RunOptions& o) { return joins_plan(o); }, run_joins);
}

}  // namespace hashlab::compare::experiments
