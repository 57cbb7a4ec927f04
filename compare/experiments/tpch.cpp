// compare/tpch (issue 17): the suite's group-bys and Pk-Pk joins on TPC-H's lineitem and orders,
// real data beside the generator's uniform keys of the same cardinality. The plan, the queries
// and the data directory are compare/tpch.hpp's; every algorithm runs through the catalogue
// (several key columns, several aggregations), as `hashlab groupby` and `hashlab join` do.
//
//   query 1     Q1's shape, group by (l_returnflag, l_linestatus): the group-bys that take two key columns
//   query 2/3/4 group by l_suppkey / l_partkey / l_orderkey: every group-by; "uniform" 2/3/4: the same
//               rows with the key column replaced by uniform keys of as many distinct values
//   query 18    Q18's shape: orders Pk-Pk join (lineitem grouped by l_orderkey): every join
// Group-bys compute sum, count, min and max of l_quantity and l_extendedprice (hundredths).
//
// Each query's input and its CPU answer are built once and shared by its variants (ctx.cached).
// Without the data of the scale factor, every point is skipped, naming the command that writes it.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "experiments.hpp"
#include "hashlab/catalogue/checks.hpp"
#include "hashlab/catalogue/groupby.hpp"
#include "hashlab/catalogue/join.hpp"
#include "hashlab/common/generator.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/compare/tpch.hpp"
#include "hashlab/reference/groupby.hpp"

namespace hashlab::compare::experiments {
namespace {

using harness::Point;
using harness::PointContext;
using catalogue::Aggregation;
using catalogue::Column;

// ---- the data and each query's input -------------------------------------------------------------

const tpch::Data& tpch_data(PointContext& ctx, std::string& sf) {
  const std::string dir = ctx.options().option(tpch::kDirOption);
  sf = tpch::scale_factor(ctx.options());
  const std::string missing = tpch::missing_data(dir, sf);
  if (!missing.empty()) throw harness::SkipPoint(missing);
  const tpch::Data& data = ctx.cached<tpch::Data>("tpch:data:" + dir + ":" + sf, [&] { return tpch::load(dir, sf); });
  if (data.lineitem_rows() != ctx.point().n)
    throw std::runtime_error("compare tpch: " + data.path("l_orderkey") + " holds " +
                             std::to_string(data.lineitem_rows()) + " rows, the plan " + std::to_string(ctx.point().n) +
                             " (did the data change during the run?)");
  return data;
}

/// A case's columns: the host vectors the catalogue's columns point into.
struct GroupCase {
  std::vector<std::vector<std::uint32_t>> keys, values;
  std::vector<std::string> key_names, value_names, sources;
  catalogue::GroupByInput input;
  reference::GroupByResult expected;
  std::string note;
};

GroupCase& group_case(PointContext& ctx, const tpch::Data& data, const std::string& sf) {
  const Point& p = ctx.point();
  return ctx.cached<GroupCase>("tpch:input:" + p.param_name + ":" + std::to_string(p.param_value), [&] {
    ctx.drop_cached("tpch:input:");
    const tpch::Query& q = tpch::query_of(p);
    GroupCase c;
    for (const auto& k : q.keys) {
      c.keys.push_back(data.column(k));
      c.key_names.push_back(k);
      c.sources.push_back(data.path(k));
    }
    if (tpch::is_uniform(p)) {  // the same rows, the key column drawn by the shared generator
      const gen::KeySpec spec = gen::KeySpec::uniform(tpch::count_distinct(c.keys.front()));
      gen::validate(spec, p.n);
      DeviceBuffer<std::uint32_t> d_keys(p.n, ctx.stream());
      gen::generate_keys(spec, ctx.seed(), d_keys.data(), p.n, ctx.stream());
      c.keys.front() = d_keys.to_host(ctx.stream());
      c.key_names.front() = "uniform_" + c.key_names.front();
      c.sources.front() = spec.describe() + ", seed " + std::to_string(ctx.seed());
    }
    for (const char* v : {"l_quantity", "l_extendedprice"}) {
      c.values.push_back(data.column(v));
      c.value_names.push_back(v);
    }
    for (std::size_t k = 0; k < c.keys.size(); ++k) {
      c.input.keys.push_back(Column::on_host(c.keys[k], c.key_names[k]));
      c.input.keys.back().source = c.sources[k];
    }
    for (std::size_t v = 0; v < c.values.size(); ++v) {
      c.input.values.push_back(Column::on_host(c.values[v], c.value_names[v]));
      c.input.values.back().source = data.path(c.value_names[v]);
    }
    c.input.aggregations = {Aggregation::kSum, Aggregation::kCount, Aggregation::kMin, Aggregation::kMax};
    std::string oracle;
    c.expected = catalogue::oracle_groupby(c.input, &oracle);
    c.note = tpch::describe(p, sf, c.expected.groups()) + (oracle.empty() ? "" : "; " + oracle);
    return c;
  });
}

struct JoinCase {
  std::vector<std::uint32_t> r_keys, r_values, s_keys, s_values;
  catalogue::JoinInput input;
  std::vector<pkpk::JoinedRow> expected;  // sorted by key
  std::string note;
};

JoinCase& join_case(PointContext& ctx, const tpch::Data& data, const std::string& sf) {
  const Point& p = ctx.point();
  return ctx.cached<JoinCase>("tpch:input:" + p.param_name + ":" + std::to_string(p.param_value), [&] {
    ctx.drop_cached("tpch:input:");
    JoinCase c;
    c.r_keys = data.column("o_orderkey");
    c.r_values = data.column("o_totalprice");
    tpch::Grouped s = tpch::group_by_order(data.column("l_orderkey"), data.column("l_quantity"));
    c.s_keys = std::move(s.keys);
    c.s_values = std::move(s.sums);
    c.input = {Column::on_host(c.r_keys, "o_orderkey"), Column::on_host(c.r_values, "o_totalprice"),
               Column::on_host(c.s_keys, "l_orderkey"), Column::on_host(c.s_values, "sum_l_quantity")};
    c.input.r_keys.source = data.path("o_orderkey");
    c.input.r_values.source = data.path("o_totalprice");
    c.input.s_keys.source = data.path("l_orderkey") + " (grouped)";
    c.input.s_values.source = data.path("l_quantity") + " (summed by l_orderkey)";
    std::string oracle;
    c.expected = catalogue::oracle_join(c.input, &oracle);
    c.note = tpch::describe(p, sf, c.s_keys.size()) + (oracle.empty() ? "" : "; " + oracle);
    return c;
  });
}

// ---- the points ----------------------------------------------------------------------------------

void run_groupby(PointContext& ctx, const tpch::Data& data, const std::string& sf) {
  const Point& p = ctx.point();
  GroupCase& c = group_case(ctx, data, sf);
  const catalogue::GroupByEntry& entry = catalogue::groupby_entry(p.variant);
  auto g = entry.make(c.input, {}, ctx.stream());
  const auto t = ctx.time(entry.clock, [&](cudaStream_t s) { g->run(s); }, [&](cudaStream_t s) { g->prepare(s); });
  ctx.report_time("groupby", t, static_cast<double>(p.n), "rows");
  ctx.report_value("groups", static_cast<double>(c.expected.groups()), "groups");
  report_statistics(ctx, g->statistics(ctx.stream(), false), g->warnings(), {"groups"});  // groups: the oracle's
  ctx.note(c.note);
  const std::string diff = reference::compare(c.expected, g->result(ctx.stream()));
  ctx.verify(diff.empty(), diff);
}

void run_join(PointContext& ctx, const tpch::Data& data, const std::string& sf) {
  const Point& p = ctx.point();
  JoinCase& c = join_case(ctx, data, sf);
  const catalogue::JoinEntry& entry = catalogue::join_entry(p.variant);
  auto j = entry.make(c.input, {}, ctx.stream());
  const auto t = ctx.time(entry.clock, [&](cudaStream_t s) { j->run(s); });
  const double rows = static_cast<double>(c.r_keys.size() + c.s_keys.size());
  ctx.report_time("join", t, rows, "rows");
  ctx.report_value("orders_rows", static_cast<double>(c.r_keys.size()), "rows");
  ctx.report_value("grouped_lineitem_rows", static_cast<double>(c.s_keys.size()), "rows");
  report_statistics(ctx, j->statistics(ctx.stream(), false), j->warnings(), {});
  ctx.note(c.note);
  const std::string diff = catalogue::compare_rows(c.expected, j->result(ctx.stream()));
  ctx.verify(diff.empty(), diff);
}

void run_tpch(PointContext& ctx) {
  std::string sf;
  const tpch::Data& data = tpch_data(ctx, sf);
  if (tpch::query_of(ctx.point()).join) run_join(ctx, data, sf);
  else run_groupby(ctx, data, sf);
}

}  // namespace

harness::Experiment tpch() {
  const tpch::Variants v = tpch::variants();
  std::vector<std::string> names = v.groupby;
  names.insert(names.end(), v.join.begin(), v.join.end());
  return harness::make_experiment(
      kPaper, "tpch", "TPC-H lineitem and orders as real data (issue 17)",
      "group-bys and a join on TPC-H data: group-by of lineitem by (returnflag, linestatus) (Q1), suppkey, partkey, "
      "orderkey, sum/count/min/max of "
      "quantity and extendedprice, each also on uniform keys of the same cardinality; orders Pk-Pk join lineitem "
      "grouped by orderkey (Q18); SF 1 quick, 10 full",
      names, [v](const harness::RunOptions& o) { return tpch::plan(o, v); }, run_tpch);
}

std::vector<harness::ModuleOption> tpch_options() {
  return {{kPaper, tpch::kDirOption,
           "compare/tpch: the folder holding sf<SF>/lineitem and sf<SF>/orders (make tpch-data SF=1 writes "
           "data/tpch/sf1)",
           tpch::kDefaultDir, {}},
          {kPaper, tpch::kSfOption,
           "compare/tpch: the TPC-H scale factor: auto (1 quick, 10 full), or e.g. 0.01 for a smoke test",
           tpch::kSfByProfile, [](const std::string& v) {
             if (v != tpch::kSfByProfile) tpch::normalize_sf(v);
           }}};
}

}  // namespace hashlab::compare::experiments
