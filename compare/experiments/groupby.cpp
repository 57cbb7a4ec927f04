// compare/groupby: every group-by of the catalogue on one key column and one value column, sum,
// over the number of groups (10 .. every key distinct) and over Zipf skew (RAPIDS Fig. 4 + EGA's
// claims side by side). The values are unsigned and below 2^31, so that RAPIDS's int32 path reads
// the same numbers as the others' uint32.
#include <string>
#include <vector>

#include "experiments.hpp"
#include "hashlab/catalogue/checks.hpp"
#include "hashlab/catalogue/groupby.hpp"
#include "hashlab/common/generator.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/compare/plan.hpp"

namespace hashlab::compare::experiments {
namespace {

using harness::Point;
using harness::PointContext;

constexpr std::uint32_t kMaxGroupValue = 1000000;  // EGA's and the baselines' value range

struct GroupInput {
  DeviceBuffer<std::uint32_t> keys, values;
  std::vector<std::uint32_t> host_keys, host_values;
  reference::GroupByResult expected;
  std::string oracle_note;

  catalogue::GroupByInput input() const {
    catalogue::GroupByInput in;
    in.keys = {catalogue::Column::in_both(host_keys, keys.data(), "key")};
    in.values = {catalogue::Column::in_both(host_values, values.data(), "value")};
    in.aggregations = {catalogue::Aggregation::kSum};
    return in;
  }
};

GroupInput& group_input(PointContext& ctx, const gen::KeySpec& spec) {
  const std::uint64_t n = ctx.point().n;
  const std::string key = "groupby:" + spec.describe() + ":" + std::to_string(n) + ":" + std::to_string(ctx.seed());
  return ctx.cached<GroupInput>(key, [&] {
    ctx.drop_cached("groupby:");
    gen::validate(spec, n);
    GroupInput in;
    in.keys = DeviceBuffer<std::uint32_t>(n, ctx.stream());
    in.values = DeviceBuffer<std::uint32_t>(n, ctx.stream());
    gen::generate_keys(spec, ctx.seed(), in.keys.data(), n, ctx.stream());
    gen::generate_values<std::uint32_t>(ctx.seed() + 1, 0, kMaxGroupValue, in.values.data(), n, ctx.stream());
    in.host_keys = in.keys.to_host(ctx.stream());
    in.host_values = in.values.to_host(ctx.stream());
    in.expected = catalogue::oracle_groupby(in.input(), &in.oracle_note);
    return in;
  });
}

void run_groupby(PointContext& ctx) {
  const Point& p = ctx.point();
  const catalogue::GroupByEntry& entry = catalogue::groupby_entry(p.variant);
  GroupInput& in = group_input(ctx, groupby_keys(p));
  const catalogue::GroupByInput input = in.input();
  auto groupby = entry.make(input, {}, ctx.stream());
  const auto t = ctx.time(entry.clock, [&](cudaStream_t s) { groupby->run(s); },
                          [&](cudaStream_t s) { groupby->prepare(s); });
  ctx.report_time("groupby", t, static_cast<double>(p.n), "rows");
  ctx.report_value("groups", static_cast<double>(in.expected.groups()), "groups");
  if (groupby->bytes() > 0) ctx.report_value("bytes_per_row", static_cast<double>(groupby->bytes()) / p.n, "B");
  report_statistics(ctx, groupby->statistics(ctx.stream(), false), groupby->warnings(), {"groups"});
  if (entry.name == "sp_ega" || entry.name == "lphga")
    ctx.note("the input's load into red is untimed (EGA's premise: the pairs lie in red)");
  if (!in.oracle_note.empty()) ctx.note(in.oracle_note);
  const std::string diff = reference::compare(in.expected, groupby->result(ctx.stream()));
  ctx.verify(diff.empty(), diff);
}

}  // namespace

harness::Experiment groupby() {
  return harness::make_experiment(
      kPaper, "groupby", "RAPIDS Fig. 4 + EGA's claims",
      "every group-by side by side: one value column, sum; every group-by of the catalogue (RAPIDS, SP-EGA, LPHGA, "
      "MP-EGA, sort, hash, the CPU's), over the number of groups (10 .. all distinct) and Zipf skew",
      groupby_variants(), [](const harness::RunOptions& o) { return groupby_plan(o); }, run_groupby);
}

}  // namespace hashlab::compare::experiments
