// compare/tpch's host logic (see hashlab/compare/tpch.hpp).
#include "hashlab/compare/tpch.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>
#include <stdexcept>

#include "hashlab/catalogue/groupby.hpp"
#include "hashlab/catalogue/join.hpp"
#include "hashlab/common/column_io.hpp"
#include "hashlab/reference/cpu_baselines.hpp"

namespace hashlab::compare::tpch {
namespace {

namespace fs = std::filesystem;

/// The table a column belongs to, by its prefix (TPC-H's naming: l_ lineitem, o_ orders).
const char* table_of(const std::string& column) { return column.rfind("o_", 0) == 0 ? "orders" : "lineitem"; }

std::string column_path(const std::string& sf_directory, const std::string& column) {
  return (fs::path(sf_directory) / table_of(column) / (column + ".npy")).string();
}

/// The rows of a 1-D .npy file from its header alone; nullopt when it cannot be read as one.
std::optional<std::uint64_t> npy_rows(const std::string& path) {
  try {
    return io::npy_file_rows(path);
  } catch (const io::FormatError&) {
    return std::nullopt;
  }
}

std::string make_command(const std::string& dir, const std::string& sf) {
  if (dir == kDefaultDir) return "make tpch-data SF=" + sf;
  return "python3 scripts/tpch.py --sf " + sf + " --out " + dir;
}

const char* kAggregates = "sum, count, min and max of l_quantity and l_extendedprice";

}  // namespace

const std::vector<std::string>& lineitem_columns() {
  static const std::vector<std::string> columns = {"l_orderkey", "l_partkey",  "l_suppkey",      "l_returnflag",
                                                   "l_linestatus", "l_quantity", "l_extendedprice"};
  return columns;
}

const std::vector<std::string>& orders_columns() {
  static const std::vector<std::string> columns = {"o_orderkey", "o_totalprice"};
  return columns;
}

const std::vector<Query>& queries() {
  static const std::vector<Query> all = {
      {1, "q1", {"l_returnflag", "l_linestatus"}, false, 0},
      {2, "suppkey", {"l_suppkey"}, false, 10000},
      {3, "partkey", {"l_partkey"}, false, 200000},
      {4, "orderkey", {"l_orderkey"}, false, 1500000},
      {18, "q18", {"l_orderkey"}, true, 1500000},
  };
  return all;
}

bool is_uniform(const harness::Point& point) { return point.param_name == kUniformParam; }

const Query& query_of(const harness::Point& point) {
  if (point.param_name != kQueryParam && point.param_name != kUniformParam)
    throw std::invalid_argument("compare tpch: unknown parameter '" + point.param_name + "' (query or uniform)");
  for (const Query& q : queries()) {
    if (point.param_text.empty() ? static_cast<double>(q.id) != point.param_value : point.param_text != q.name) continue;
    if (is_uniform(point) && (q.join || q.keys.size() != 1))
      throw std::invalid_argument("compare tpch: query " + std::to_string(q.id) + " has no uniform-key twin");
    return q;
  }
  throw std::invalid_argument("compare tpch: unknown query " + point.value_text());
}

std::string normalize_sf(const std::string& text) {
  const auto bad = [&] {
    return std::invalid_argument("'" + text + "' is not a scale factor (a positive decimal: 1, 10, 0.01)");
  };
  const auto dot = text.find('.');
  std::string whole = text.substr(0, dot), fraction = dot == std::string::npos ? "" : text.substr(dot + 1);
  if (whole.empty() && fraction.empty()) throw bad();
  for (const std::string* part : {&whole, &fraction})
    if (part->find_first_not_of("0123456789") != std::string::npos) throw bad();
  whole.erase(0, std::min(whole.find_first_not_of('0'), whole.size()));
  while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
  if (whole.empty() && fraction.empty()) throw bad();  // zero
  return (whole.empty() ? "0" : whole) + (fraction.empty() ? "" : "." + fraction);
}

std::string scale_factor(const harness::RunOptions& options) {
  const std::string& given = options.option(kSfOption);
  if (!given.empty() && given != kSfByProfile) return normalize_sf(given);
  return options.full() ? kFullSf : kQuickSf;
}

std::string sf_dir(const std::string& dir, const std::string& sf) { return (fs::path(dir) / ("sf" + sf)).string(); }

std::uint64_t nominal_lineitem_rows(const std::string& sf) {
  // dbgen's counts (tpchgen-cli generates the same rows); others scale 6M rows per unit.
  if (sf == "0.01") return 60175;
  if (sf == "0.1") return 600572;
  if (sf == "1") return 6001215;
  if (sf == "10") return 59986052;
  if (sf == "100") return 600037902;
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(6.0e6 * std::stod(sf))));
}

std::string missing_data(const std::string& dir, const std::string& sf) {
  const std::string where = sf_dir(dir, sf);
  std::string missing;
  if (!fs::is_directory(where)) {
    missing = "no such directory";
  } else {
    for (const auto* columns : {&lineitem_columns(), &orders_columns()})
      for (const auto& c : *columns)
        if (missing.empty() && !fs::is_regular_file(column_path(where, c)))
          missing = std::string(table_of(c)) + "/" + c + ".npy is missing";
  }
  if (missing.empty()) return "";
  return "no TPC-H data at " + where + " (" + missing + "): run `" + make_command(dir, sf) + "`";
}

std::uint64_t lineitem_rows(const std::string& dir, const std::string& sf) {
  const auto rows = npy_rows(column_path(sf_dir(dir, sf), "l_orderkey"));
  return rows && *rows > 0 ? *rows : nominal_lineitem_rows(sf);
}

Variants variants() {
  Variants v;
  for (const auto& e : catalogue::groupby_entries()) {
    v.groupby.push_back(e.name);
    if (e.max_key_columns >= 2) v.groupby_two_keys.push_back(e.name);
  }
  for (const auto& e : catalogue::join_entries()) v.join.push_back(e.name);
  return v;
}

std::vector<harness::Point> plan(const harness::RunOptions& options, const Variants& variants) {
  const std::string sf = scale_factor(options);
  const std::uint64_t n = lineitem_rows(options.option(kDirOption), sf);
  std::vector<harness::Point> points;
  // A named axis: each point's value is its query's name (its id the number behind it).
  const auto add = [&](const std::vector<std::string>& names, const char* param, const Query& q) {
    for (const auto& v : names) points.push_back({v, n, param, static_cast<double>(q.id), q.name});
  };
  for (const Query& q : queries()) {
    if (q.join) {
      add(variants.join, kQueryParam, q);
    } else if (q.keys.size() > 1) {
      add(variants.groupby_two_keys, kQueryParam, q);
    } else {
      add(variants.groupby, kQueryParam, q);
      add(variants.groupby, kUniformParam, q);
    }
  }
  return points;
}

const std::vector<std::uint32_t>& Data::column(const std::string& name) const {
  const auto it = columns.find(name);
  if (it == columns.end()) throw std::logic_error("compare tpch: column " + name + " was not loaded");
  return it->second;
}

std::string Data::path(const std::string& name) const { return column_path(dir, name); }

Data load(const std::string& dir, const std::string& sf) {
  Data data;
  data.dir = sf_dir(dir, sf);
  data.sf = sf;
  for (const auto* table : {&lineitem_columns(), &orders_columns()}) {
    const std::string& first = table->front();
    for (const auto& c : *table) {
      const std::string path = data.path(c);
      if (!fs::is_regular_file(path)) throw std::runtime_error(missing_data(dir, sf));
      const std::string dtype = io::npy_file_dtype(path);
      if (dtype != "<u4")
        throw io::FormatError(path + ": dtype '" + dtype + "', expected uint32 ('<u4') as scripts/tpch.py writes; run `" +
                              make_command(dir, sf) + "` again");
      auto values = io::read_npy<std::uint32_t>(path);
      if (c != first && values.size() != data.column(first).size())
        throw io::FormatError(path + ": " + std::to_string(values.size()) + " rows, but " + data.path(first) + " has " +
                              std::to_string(data.column(first).size()) + "; run `" + make_command(dir, sf) + "` again");
      if (values.empty()) throw io::FormatError(path + ": no rows");
      data.columns[c] = std::move(values);
    }
  }
  return data;
}

std::uint64_t count_distinct(const std::vector<std::uint32_t>& keys) {
  if (keys.empty()) return 0;
  const std::uint64_t top = *std::max_element(keys.begin(), keys.end());
  std::vector<std::uint64_t> seen(top / 64 + 1, 0);  // a bitmap of [0, max]: 512 MiB at most
  std::uint64_t distinct = 0;
  for (std::uint32_t k : keys) {
    std::uint64_t& word = seen[k >> 6];
    const std::uint64_t bit = std::uint64_t{1} << (k & 63);
    distinct += (word & bit) == 0;
    word |= bit;
  }
  return distinct;
}

Grouped group_by_order(const std::vector<std::uint32_t>& l_orderkey, const std::vector<std::uint32_t>& l_quantity) {
  // The multi-threaded CPU group-by (tested equal to the reference in common/tests): input
  // preparation, not an answer under test.
  const auto result = cpu::parallel_groupby(l_orderkey, l_quantity, reference::Aggregation::kSum);
  Grouped out;
  out.keys = result.keys.at(0);
  const auto& sums = result.aggregates.at(0).exact;
  out.sums.reserve(sums.size());
  for (std::size_t g = 0; g < sums.size(); ++g) {
    if (sums[g] < 0 || sums[g] > std::numeric_limits<std::uint32_t>::max())
      throw std::runtime_error("compare tpch: sum(l_quantity) of order " + std::to_string(out.keys[g]) + " is " +
                               std::to_string(sums[g]) + ", beyond the joins' 32-bit values");
    out.sums.push_back(static_cast<std::uint32_t>(sums[g]));
  }
  return out;
}

std::string describe(const harness::Point& point, const std::string& sf, std::uint64_t groups) {
  const Query& q = query_of(point);
  const std::string at = "TPC-H SF " + sf + ", ";
  const std::string count = " (" + std::to_string(groups) + " groups)";
  if (q.join)
    return at + "Q18's shape: orders (o_orderkey, o_totalprice) Pk-Pk join lineitem grouped by l_orderkey (" +
           std::to_string(groups) + " rows: sum of l_quantity, grouped on the CPU, untimed), without Q18's HAVING";
  if (is_uniform(point))
    return at + "lineitem's rows with " + q.keys.front() + " replaced by the generator's uniform keys of as many " +
           "distinct values" + count + "; " + kAggregates;
  std::string keys;
  for (const auto& k : q.keys) keys += (keys.empty() ? "" : ", ") + k;
  return at + (q.id == 1 ? "Q1's shape: " : "") + "lineitem grouped by " +
         (q.keys.size() > 1 ? "(" + keys + ")" : keys) + count + "; " + kAggregates;
}

}  // namespace hashlab::compare::tpch
