// compare/tpch (issue 17): the suite's group-bys and Pk-Pk joins on TPC-H's lineitem and orders,
// real data beside the generator's uniform keys of the same cardinality. The plan, the queries
// and the data directory are compare/tpch.hpp's; every algorithm runs through owndata/'s
// adapters (multi-column keys, several aggregations), as `hashlab groupby` and `hashlab join` do.
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

#include "hashlab/common/generator.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/compare/tpch.hpp"
#include "hashlab/harness/experiment.hpp"
#include "hashlab/owndata/groupby.hpp"
#include "hashlab/owndata/join.hpp"
#include "hashlab/pkpk_join/pkpk_join.hpp"
#include "hashlab/reference/groupby.hpp"

namespace hashlab::compare {
namespace {

using harness::Point;
using harness::PointContext;
using reference::Aggregation;

constexpr const char* kPaper = "compare";
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

owndata::KeyColumn key_column(const tpch::Data& data, const std::string& name) {
  return {name, data.path(name), data.column(name)};
}

struct GroupCase {
  owndata::GroupByInput input;
  owndata::GroupByOptions options;
  reference::GroupByResult expected;
  std::string note;
};

GroupCase& group_case(PointContext& ctx, const tpch::Data& data, const std::string& sf) {
  const Point& p = ctx.point();
  return ctx.cached<GroupCase>("tpch:input:" + p.param_name + ":" + std::to_string(p.param_value), [&] {
    ctx.drop_cached("tpch:input:");
    const tpch::Query& q = tpch::query_of(p);
    GroupCase c;
    c.options.aggs = {Aggregation::kSum, Aggregation::kCount, Aggregation::kMin, Aggregation::kMax};
    for (const auto& k : q.keys) c.input.keys.push_back(key_column(data, k));
    if (tpch::is_uniform(p)) {  // the same rows, the key column drawn by the shared generator
      owndata::KeyColumn& keys = c.input.keys.front();
      const gen::KeySpec spec = gen::KeySpec::uniform(tpch::count_distinct(keys.data));
      gen::validate(spec, p.n);
      DeviceBuffer<std::uint32_t> d_keys(p.n, ctx.stream());
      gen::generate_keys(spec, ctx.seed(), d_keys.data(), p.n, ctx.stream());
      keys = {"uniform_" + keys.name, spec.describe() + ", seed " + std::to_string(ctx.seed()), d_keys.to_host(ctx.stream())};
    }
    for (const char* v : {"l_quantity", "l_extendedprice"}) {
      const auto& column = data.column(v);
      c.input.values.push_back({v, data.path(v), false, std::vector<std::int64_t>(column.begin(), column.end()), {}});
    }
    std::string oracle;
    c.expected = owndata::oracle_groupby(c.input, c.options, &oracle);
    c.note = tpch::describe(p, sf, c.expected.groups()) + (oracle.empty() ? "" : "; " + oracle);
    return c;
  });
}

struct JoinCase {
  owndata::JoinInput input;
  std::vector<pkpk::JoinedRow> expected;  // sorted by key
  std::string note;
};

JoinCase& join_case(PointContext& ctx, const tpch::Data& data, const std::string& sf) {
  const Point& p = ctx.point();
  return ctx.cached<JoinCase>("tpch:input:" + p.param_name + ":" + std::to_string(p.param_value), [&] {
    ctx.drop_cached("tpch:input:");
    JoinCase c;
    c.input.r = {key_column(data, "o_orderkey"), key_column(data, "o_totalprice")};
    tpch::Grouped s = tpch::group_by_order(data.column("l_orderkey"), data.column("l_quantity"));
    c.input.s = {{"l_orderkey", data.path("l_orderkey") + " (grouped)", std::move(s.keys)},
                 {"sum_l_quantity", data.path("l_quantity") + " (summed by l_orderkey)", std::move(s.sums)}};
    std::string oracle;
    c.expected = owndata::oracle_join(c.input, &oracle);
    c.note = tpch::describe(p, sf, c.input.s.keys.data.size()) + (oracle.empty() ? "" : "; " + oracle);
    return c;
  });
}

void report_stats(PointContext& ctx, const std::vector<owndata::Stat>& stats) {
  for (const auto& s : stats)
    if (s.name != "groups") ctx.report_value(s.name, s.value, tpch::stat_unit(s.name));  // groups: the oracle's
}

// ---- the points ----------------------------------------------------------------------------------

void run_groupby(PointContext& ctx, const tpch::Data& data, const std::string& sf) {
  const Point& p = ctx.point();
  GroupCase& c = group_case(ctx, data, sf);
  auto g = owndata::make_groupby(owndata::parse_groupby_algo(p.variant), c.input, c.options, ctx.stream());
  const auto t = g->on_host() ? ctx.time_host([&] { g->run(nullptr); })
                              : ctx.time_gpu([&](cudaStream_t s) { g->run(s); }, [&](cudaStream_t s) { g->prepare(s); });
  ctx.report_time("groupby", t, static_cast<double>(p.n), "rows");
  ctx.report_value("groups", static_cast<double>(c.expected.groups()), "groups");
  report_stats(ctx, g->stats());
  ctx.note(c.note);
  const std::string diff = reference::compare(c.expected, g->result(ctx.stream()));
  ctx.verify(diff.empty(), diff);
}

void run_join(PointContext& ctx, const tpch::Data& data, const std::string& sf) {
  const Point& p = ctx.point();
  JoinCase& c = join_case(ctx, data, sf);
  auto j = owndata::make_join(owndata::parse_join_algo(tpch::join_algo(p.variant)), c.input, ctx.stream());
  const auto t = j->on_host() ? ctx.time_host([&] { j->run(nullptr); })
                              : ctx.time_gpu([&](cudaStream_t s) { j->run(s); });
  const double rows = static_cast<double>(c.input.r.keys.data.size() + c.input.s.keys.data.size());
  ctx.report_time("join", t, rows, "rows");
  ctx.report_value("orders_rows", static_cast<double>(c.input.r.keys.data.size()), "rows");
  ctx.report_value("grouped_lineitem_rows", static_cast<double>(c.input.s.keys.data.size()), "rows");
  report_stats(ctx, j->stats());
  ctx.note(c.note);
  const std::string diff = owndata::compare_rows(c.expected, j->result(ctx.stream()));
  ctx.verify(diff.empty(), diff);
}

void run_tpch(PointContext& ctx) {
  std::string sf;
  const tpch::Data& data = tpch_data(ctx, sf);
  if (tpch::query_of(ctx.point()).join) run_join(ctx, data, sf);
  else run_groupby(ctx, data, sf);
}

// ---- registration --------------------------------------------------------------------------------

/// The variants, from owndata's algorithms: Q1 gets those whose checks accept two key columns.
tpch::Variants variants() {
  tpch::Variants v;
  owndata::GroupByInput two_keys;
  for (const char* k : {"a", "b"}) two_keys.keys.push_back({k, k, {1, 2}});
  two_keys.values.push_back({"v", "v", false, {1, 2}, {}});
  for (owndata::GroupByAlgo a : owndata::all_groupby_algos()) {
    v.groupby.push_back(owndata::to_string(a));
    try {
      owndata::check_groupby(a, two_keys, owndata::GroupByOptions{});
      v.groupby_two_keys.push_back(owndata::to_string(a));
    } catch (const owndata::InputError&) {  // one key column only (EGA, the baselines, the CPU group-by)
    }
  }
  for (owndata::JoinAlgo a : owndata::all_join_algos()) v.join.push_back(tpch::join_variant(owndata::to_string(a)));
  return v;
}

const harness::Registrar registrar([](harness::Registry& r) {
  r.add_option({kPaper, tpch::kDirOption,
                "compare/tpch: the folder holding sf<SF>/lineitem and sf<SF>/orders (make tpch-data SF=1 writes "
                "data/tpch/sf1)",
                tpch::kDefaultDir, {}});
  r.add_option({kPaper, tpch::kSfOption,
                "compare/tpch: the TPC-H scale factor: auto (1 quick, 10 full), or e.g. 0.01 for a smoke test",
                tpch::kSfByProfile, [](const std::string& v) {
                  if (v != tpch::kSfByProfile) tpch::normalize_sf(v);
                }});

  const tpch::Variants v = variants();
  std::vector<std::string> names = v.groupby;
  names.insert(names.end(), v.join.begin(), v.join.end());
  r.add_experiment(harness::make_experiment(
      kPaper, "tpch", "TPC-H lineitem and orders as real data (issue 17)",
      "group-by of lineitem by (returnflag, linestatus) (Q1), suppkey, partkey, orderkey, sum/count/min/max of "
      "quantity and extendedprice, each also on uniform keys of the same cardinality; orders Pk-Pk join lineitem "
      "grouped by orderkey (Q18); SF 1 quick, 10 full",
      names, [v](const harness::RunOptions& o) { return tpch::plan(o, v); }, run_tpch));
});

}  // namespace
}  // namespace hashlab::compare
