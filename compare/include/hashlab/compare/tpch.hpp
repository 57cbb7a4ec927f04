// compare/tpch: the suite's group-bys and joins on TPC-H's lineitem and orders (issue 17) —
// the plan, the queries and the data directory (host logic, tested on the CPU). The experiment
// itself is experiments/tpch.cpp; the algorithms run through the catalogue.
//
// Data (scripts/tpch.py, `make tpch-data SF=1`): <dir>/sf<SF>/lineitem/<column>.npy and
// <dir>/sf<SF>/orders/<column>.npy, every column uint32 ('<u4'): keys as generated, l_returnflag
// and l_linestatus as dictionary codes, the decimals in hundredths.
//
// A point's query is its parameter, a named axis: param_name "query" for TPC-H's own columns (the
// value is the query's name below; its id the number behind it), "uniform" for the same group-by
// with the key column replaced by the shared generator's uniform keys of the same number of
// distinct keys (the value names the query copied).
//
//   q1        (id 1)  Q1's shape: group by (l_returnflag, l_linestatus)   4 groups, two key columns
//   suppkey   (id 2)  group by l_suppkey                                  10,000 groups per unit of SF
//   partkey   (id 3)  group by l_partkey                                  200,000 groups per unit of SF
//   orderkey  (id 4)  group by l_orderkey                                 1,500,000 groups per unit of SF
//   q18       (id 18) Q18's shape: orders Pk-Pk join (lineitem grouped by l_orderkey)
// Every group-by computes sum, count, min and max of l_quantity and l_extendedprice.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "hashlab/harness/experiment.hpp"

namespace hashlab::compare::tpch {

constexpr const char* kDirOption = "tpch-dir";  // module option: where sf<SF>/ lies
constexpr const char* kDefaultDir = "data/tpch";  // `make tpch-data`'s
constexpr const char* kSfOption = "tpch-sf";    // module option: the scale factor, or kSfByProfile
constexpr const char* kSfByProfile = "auto";     // 1 quick, 10 full
constexpr const char* kQuickSf = "1";
constexpr const char* kFullSf = "10";
constexpr const char* kQueryParam = "query";
constexpr const char* kUniformParam = "uniform";

/// The lineitem and orders columns the experiment reads.
const std::vector<std::string>& lineitem_columns();
const std::vector<std::string>& orders_columns();

struct Query {
  int id;
  const char* name;                   // "q1", "suppkey", "partkey", "orderkey", "q18"
  std::vector<std::string> keys;      // lineitem's key columns (Q18: the column lineitem is grouped by)
  bool join;                          // Q18: a join of orders with the grouped lineitem
  std::uint64_t groups_per_sf;        // TPC-H's cardinality per unit of scale (Q1: 4 at every SF)
};

/// Every query, in the plan's order.
const std::vector<Query>& queries();
/// The query of a point (param "query" or "uniform"); throws std::invalid_argument for another
/// parameter, an unknown id, or "uniform" on a query with other than one key column.
const Query& query_of(const harness::Point& point);
bool is_uniform(const harness::Point& point);

/// "1", "10", "0.01": the scale factor as scripts/tpch.py names its directory (sf<that>): a
/// positive decimal without trailing zeros. Throws std::invalid_argument otherwise.
std::string normalize_sf(const std::string& text);
/// The run's scale factor: --tpch-sf if it names one, else (auto or empty) 1 quick, 10 full.
/// Throws std::invalid_argument for another value.
std::string scale_factor(const harness::RunOptions& options);
/// <dir>/sf<sf>.
std::string sf_dir(const std::string& dir, const std::string& sf);
/// dbgen's lineitem rows at the scale factor (6,001,215 at SF 1), for a plan without data.
std::uint64_t nominal_lineitem_rows(const std::string& sf);
/// "" when every column the experiment reads is there; else why not and the command that
/// writes it (`make tpch-data SF=<sf>` for the default dir, scripts/tpch.py --out otherwise).
std::string missing_data(const std::string& dir, const std::string& sf);
/// lineitem's rows: from the .npy header of l_orderkey when the data are there, else nominal.
std::uint64_t lineitem_rows(const std::string& dir, const std::string& sf);

/// The variant names the plan uses: the catalogue's entries.
struct Variants {
  std::vector<std::string> groupby;           // every group-by: rapids, sp_ega, ...
  std::vector<std::string> groupby_two_keys;  // those that take two key columns (Q1)
  std::vector<std::string> join;              // every join: bsp, sort_join, ...
};
Variants variants();

/// Q1 (two-key variants), then for each one-key query its variants on TPC-H's keys and on
/// uniform keys, then Q18 (join variants). n is lineitem's rows at every point (--n is ignored:
/// the data fix it; choose the size with --tpch-sf).
std::vector<harness::Point> plan(const harness::RunOptions& options, const Variants& variants);

/// The columns of one scale factor.
struct Data {
  std::string dir;  // <dir>/sf<sf>
  std::string sf;
  std::map<std::string, std::vector<std::uint32_t>> columns;  // by column name
  const std::vector<std::uint32_t>& column(const std::string& name) const;  // throws naming it
  std::string path(const std::string& name) const;                          // its .npy file
  std::size_t lineitem_rows() const { return column("l_orderkey").size(); }
};
/// Reads every column; throws (naming the file) for a missing or malformed file, another dtype
/// than uint32, or a column whose length differs from its table's first.
Data load(const std::string& dir, const std::string& sf);

/// The number of distinct values.
std::uint64_t count_distinct(const std::vector<std::uint32_t>& keys);

/// lineitem grouped by l_orderkey with the sum of l_quantity (Q18's subquery), sorted by key:
/// the join's S table. Throws when a sum does not fit the joins' 32-bit values.
struct Grouped {
  std::vector<std::uint32_t> keys, sums;
};
Grouped group_by_order(const std::vector<std::uint32_t>& l_orderkey, const std::vector<std::uint32_t>& l_quantity);

/// What the point computes, in words, for its note (`groups`: the join's grouped lineitem rows).
std::string describe(const harness::Point& point, const std::string& sf, std::uint64_t groups);
}  // namespace hashlab::compare::tpch
