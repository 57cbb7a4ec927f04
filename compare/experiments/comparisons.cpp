// The cross-paper comparisons (issue 8, "compare/"): the questions no single paper asks, answered
// on identical inputs from the shared generator, every point verified against the CPU references.
//
//   tables   build and lookup rate vs load factor and vs multiplicity, bytes per key: cuckoo
//            (1.25 N, 4 functions; its multivalue table for repeated keys), HashGraph V1 / V2
//            (probe-standard as the lookup), common/'s linear probing and sorted array. The load
//            sweep is HashGraph's Fig. 2 with the cuckoo table as the cuDPP stand-in.
//   groupby  RAPIDS hash vs SP-EGA vs LPHGA vs sort-based vs multi-threaded CPU, one value column,
//            sum, over the number of groups (10 .. every key distinct) and over Zipf skew.
//   joins    BSP pk-pk join vs HashGraph probe-new (materialising) vs hash join vs sort join on
//            Pk-Pk tables, over the table size and the match rate.
//
// Each input (and its CPU reference) is built once and shared by the variants of its points
// (ctx.cached); a new input drops the previous one.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "hashlab/common/generator.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/common/radix_sort.hpp"
#include "hashlab/compare/groupby.hpp"
#include "hashlab/compare/joins.hpp"
#include "hashlab/compare/plan.hpp"
#include "hashlab/compare/tables.hpp"
#include "hashlab/harness/experiment.hpp"
#include "hashlab/pkpk_join/pkpk_join.hpp"
#include "hashlab/reference/cpu_baselines.hpp"
#include "hashlab/reference/groupby.hpp"

namespace hashlab::compare {
namespace {

using harness::Point;
using harness::PointContext;
using harness::RunOptions;
using reference::Aggregation;

constexpr const char* kPaper = "compare";
constexpr std::uint32_t kMaxTableValue = 0xfffffffeu;  // below kNotFound: a miss is never a value
constexpr std::uint32_t kMaxGroupValue = 1000000;      // EGA's and the baselines' value range

std::string input_key(const char* prefix, const std::string& what, std::uint64_t n, std::uint64_t seed) {
  return std::string(prefix) + what + ":" + std::to_string(n) + ":" + std::to_string(seed);
}

// ---- tables --------------------------------------------------------------------------------------

struct TableInput {
  DeviceBuffer<std::uint32_t> keys, values;
  std::vector<std::uint32_t> host_keys, host_values;
  LookupReference reference;
};

TableInput& table_input(PointContext& ctx, const gen::KeySpec& spec) {
  const std::uint64_t n = ctx.point().n;
  return ctx.cached<TableInput>(input_key("tables:", spec.describe(), n, ctx.seed()), [&] {
    ctx.drop_cached("tables:");
    gen::validate(spec, n);
    TableInput in;
    in.keys = DeviceBuffer<std::uint32_t>(n, ctx.stream());
    in.values = DeviceBuffer<std::uint32_t>(n, ctx.stream());
    gen::generate_keys(spec, ctx.seed(), in.keys.data(), n, ctx.stream());
    gen::generate_values<std::uint32_t>(ctx.seed() + 1, 0, kMaxTableValue, in.values.data(), n, ctx.stream());
    in.host_keys = in.keys.to_host(ctx.stream());
    in.host_values = in.values.to_host(ctx.stream());
    in.reference = make_lookup_reference(in.host_keys, in.host_values, in.host_keys);  // queries: the keys
    return in;
  });
}

void run_tables(PointContext& ctx) {
  const Point& p = ctx.point();
  const TableKind kind = parse_table_kind(p.variant);
  const bool multi = p.param_name == kMultiplicity;
  if (!multi && p.param_name != kLoadFactor)
    throw std::invalid_argument("compare tables: unknown parameter '" + p.param_name + "'");
  const gen::KeySpec spec =
      multi ? multiplicity_keys(p.n, p.param_value) : parse_table_keys(ctx.options().option(kKeysOption));
  TableInput& in = table_input(ctx, spec);
  if (!multi && !in.reference.keys_unique)
    throw std::runtime_error("compare tables: the load sweep's keys (" + spec.describe() + ") repeat");

  auto table = make_table(kind, multi ? KeyMode::kMulti : KeyMode::kUnique, p.n, p.param_value, ctx.stream());
  const auto build = ctx.time_gpu([&](cudaStream_t s) { table->build(in.keys.data(), in.values.data(), p.n, s); },
                                  [&](cudaStream_t s) { table->reset(s); });
  const int restarts = table->restarts();  // of the last timed build
  // The queries are the build keys, in input order: every lookup hits (m = n).
  const auto lookup = ctx.time_gpu([&](cudaStream_t s) { table->lookup(in.keys.data(), p.n, s); });
  const double n = static_cast<double>(p.n);
  ctx.report_time("build", build, n, "keys");
  ctx.report_time("lookup", lookup, n, "queries");
  ctx.report_value("bytes_per_key", static_cast<double>(table->bytes()) / n, "B");
  ctx.report_value("distinct_keys", static_cast<double>(in.reference.unique_keys.size()), "keys");
  if (kind == TableKind::kCuckoo) ctx.report_value("restarts", restarts, "count");
  ctx.note(table->lookup_semantics());
  const std::string problem =
      table->check({&in.host_keys, &in.host_values, &in.host_keys, &in.reference}, ctx.stream());
  ctx.verify(problem.empty(), problem);
}

// ---- group-by ------------------------------------------------------------------------------------

struct GroupInput {
  DeviceBuffer<std::uint32_t> keys, values;
  std::vector<std::uint32_t> host_keys, host_values;
  reference::GroupByResult expected;
  std::string oracle_note;
};

GroupInput& group_input(PointContext& ctx, const gen::KeySpec& spec) {
  const std::uint64_t n = ctx.point().n;
  return ctx.cached<GroupInput>(input_key("groupby:", spec.describe(), n, ctx.seed()), [&] {
    ctx.drop_cached("groupby:");
    gen::validate(spec, n);
    GroupInput in;
    in.keys = DeviceBuffer<std::uint32_t>(n, ctx.stream());
    in.values = DeviceBuffer<std::uint32_t>(n, ctx.stream());
    gen::generate_keys(spec, ctx.seed(), in.keys.data(), n, ctx.stream());
    gen::generate_values<std::uint32_t>(ctx.seed() + 1, 0, kMaxGroupValue, in.values.data(), n, ctx.stream());
    in.host_keys = in.keys.to_host(ctx.stream());
    in.host_values = in.values.to_host(ctx.stream());
    if (n <= cpu::kOracleReferenceRows) {
      in.expected = reference::groupby(in.host_keys, in.host_values, Aggregation::kSum);
    } else {
      in.expected = reference::sorted_groupby(in.host_keys, in.host_values, Aggregation::kSum);
      in.oracle_note = "oracle: the sort-based multi-threaded group-by (reference::sorted_groupby, equal to the reference)";
    }
    return in;
  });
}

void run_groupby(PointContext& ctx) {
  const Point& p = ctx.point();
  const GroupByKind kind = parse_groupby_kind(p.variant);
  GroupInput& in = group_input(ctx, groupby_keys(p));
  const GroupByData data{in.keys.data(), in.values.data(), p.n, &in.host_keys, &in.host_values};
  auto groupby = make_groupby(kind, data, ctx.stream());
  const auto t = groupby->on_host()
                     ? ctx.time_host([&] { groupby->run(nullptr); })
                     : ctx.time_gpu([&](cudaStream_t s) { groupby->run(s); },
                                    [&](cudaStream_t s) { groupby->prepare(s); });
  ctx.report_time("groupby", t, static_cast<double>(p.n), "rows");
  ctx.report_value("groups", static_cast<double>(in.expected.groups()), "groups");
  if (groupby->bytes() > 0) ctx.report_value("bytes_per_row", static_cast<double>(groupby->bytes()) / p.n, "B");
  for (const auto& e : groupby->extras()) ctx.report_value(e.name, e.value, e.unit);
  if (kind == GroupByKind::kSpEga || kind == GroupByKind::kLphga)
    ctx.note("the input's load into red is untimed (EGA's premise: the pairs lie in red)");
  if (!in.oracle_note.empty()) ctx.note(in.oracle_note);
  const std::string diff = reference::compare(in.expected, groupby->result(ctx.stream()));
  ctx.verify(diff.empty(), diff);
}

// ---- joins ---------------------------------------------------------------------------------------

struct JoinInput {
  gen::PkPkSpec spec;
  DeviceBuffer<std::uint32_t> r_keys, s_keys, r_values, s_values;
  std::vector<pkpk::JoinedRow> expected;  // sorted by key
  std::string oracle_note;

  pkpk::TableView r() const { return {r_keys.data(), r_values.data(), spec.r_rows}; }
  pkpk::TableView s() const { return {s_keys.data(), s_values.data(), spec.s_rows}; }
};

JoinInput& join_input(PointContext& ctx, const gen::PkPkSpec& spec) {
  return ctx.cached<JoinInput>(input_key("joins:", spec.describe(), spec.r_rows, ctx.seed()), [&] {
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
    const auto r_keys = in.r_keys.to_host(st), s_keys = in.s_keys.to_host(st);
    const auto r_values = in.r_values.to_host(st), s_values = in.s_values.to_host(st);
    in.expected = pkpk::oracle_join(r_keys, r_values, s_keys, s_values, &in.oracle_note);
    return in;
  });
}

void run_joins(PointContext& ctx) {
  const Point& p = ctx.point();
  const JoinKind kind = parse_join_kind(p.variant);
  JoinInput& in = join_input(ctx, join_spec(p));
  auto join = make_join(kind, in.spec.r_rows, in.spec.s_rows, ctx.stream());
  pkpk::JoinedRows out;
  const auto t = ctx.time_gpu([&](cudaStream_t s) { out = join->run(in.r(), in.s(), s); });
  ctx.report_time("join", t, static_cast<double>(in.spec.r_rows + in.spec.s_rows), "rows");
  ctx.report_value("result_rows", static_cast<double>(out.size), "rows");
  if (!in.oracle_note.empty()) ctx.note(in.oracle_note);

  auto got = out.to_host(ctx.stream());
  if (!join->sorted_output()) cpu::radix_sort(got, [](const pkpk::JoinedRow& row) { return row.key; });
  if (got.size() != in.expected.size()) {
    ctx.verify(false, std::to_string(got.size()) + " rows, reference " + std::to_string(in.expected.size()));
    return;
  }
  const auto diff = std::mismatch(got.begin(), got.end(), in.expected.begin());
  ctx.verify(diff.first == got.end(), diff.first == got.end()
                                          ? ""
                                          : "row " + std::to_string(diff.first - got.begin()) + " (key " +
                                                std::to_string(diff.first->key) + ") differs from the reference");
}

// ---- registration --------------------------------------------------------------------------------

std::vector<std::string> names_of_tables() {
  std::vector<std::string> names;
  for (TableKind k : all_table_kinds()) names.push_back(to_string(k));
  return names;
}
std::vector<std::string> names_of_groupbys() {
  std::vector<std::string> names;
  for (GroupByKind k : all_groupby_kinds()) names.push_back(to_string(k));
  return names;
}
std::vector<std::string> names_of_joins() {
  std::vector<std::string> names;
  for (JoinKind k : all_join_kinds()) names.push_back(to_string(k));
  return names;
}

const harness::Registrar registrar([](harness::Registry& r) {
  r.add_option({kPaper, kKeysOption,
                "compare/tables: the unique keys of the load sweep: unique (random), sequence (HashGraph Fig. 2's "
                "0..N-1) or shuffled",
                "unique", [](const std::string& v) { parse_table_keys(v); }});

  r.add_experiment(harness::make_experiment(
      kPaper, "tables", "HashGraph Fig. 2 + cuckoo Fig. 4.4 side by side",
      "build and lookup rate vs load factor and vs multiplicity, bytes per key: cuckoo (4 functions; multivalue "
      "table for repeats), HashGraph V1/V2 (probe-standard lookup), linear probing, sorted array",
      names_of_tables(), tables_plan, run_tables));

  r.add_experiment(harness::make_experiment(
      kPaper, "groupby", "RAPIDS Fig. 4 + EGA's claims side by side",
      "group-by, one value column, sum: RAPIDS hash vs SP-EGA vs LPHGA vs sort-based vs multi-threaded CPU, over "
      "the number of groups (10 .. all distinct) and Zipf skew",
      names_of_groupbys(), groupby_plan, run_groupby));

  r.add_experiment(harness::make_experiment(
      kPaper, "joins", "Pk-Pk report + HashGraph Fig. 9 side by side",
      "Pk-Pk join, rows (key, value1, value2) materialised: BSP-sort join vs HashGraph probe-new vs GPU hash join "
      "vs full sort join, over table size and match rate",
      names_of_joins(), joins_plan, run_joins));
});

}  // namespace
}  // namespace hashlab::compare
