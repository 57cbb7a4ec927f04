// The sweeps of the comparison experiments (see plan.hpp).
#include "hashlab/compare/plan.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "hashlab/catalogue/groupby.hpp"
#include "hashlab/catalogue/join.hpp"
#include "hashlab/catalogue/table.hpp"

namespace hashlab::compare {

using harness::Point;
using harness::RunOptions;

// ---- tables --------------------------------------------------------------------------------------

gen::KeySpec parse_table_keys(const std::string& name) {
  if (name == "unique") return gen::KeySpec::unique();
  if (name == "sequence") return gen::KeySpec::sequence();
  if (name == "shuffled") return gen::KeySpec::shuffled_sequence();
  throw std::invalid_argument("--" + std::string(kKeysOption) + " must be unique, sequence or shuffled, got '" +
                              name + "'");
}

const std::vector<TableVariant>& table_variants() {
  // Probe-standard's count as HashGraph's lookup, as section 5 times it (the matches counted).
  static const std::vector<TableVariant> variants = {
      {"cuckoo", "cuckoo", {}},
      {"hashgraph_v1", "hashgraph", {{"version", "v1"}, {"answer", "total"}}},
      {"hashgraph_v2", "hashgraph", {{"version", "v2"}, {"answer", "total"}}},
      {"linear_probing", "linear_probing", {}},
      {"sorted_array", "sorted_array", {}}};
  return variants;
}

const TableVariant& table_variant(const std::string& name) {
  std::string choices;
  for (const auto& v : table_variants()) {
    if (v.name == name) return v;
    choices += (choices.empty() ? "" : ", ") + v.name;
  }
  throw std::invalid_argument("unknown table '" + name + "' (choices: " + choices + ")");
}

bool runs_at_load(const TableVariant& variant, double load_factor) {
  if (!(load_factor > 0)) return false;
  const double max_load = catalogue::table_entry(variant.entry).max_load;
  return max_load == 0 ? load_factor == 1.0 : load_factor <= max_load;
}

std::vector<double> table_loads(const RunOptions& o) {
  if (o.full()) return {0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 1.0, 1.5, 2.0, 3.0, 4.0};
  return {0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 2.0, 4.0};
}

std::vector<double> table_multiplicities(const RunOptions& o) {
  if (o.full()) return {1, 2, 4, 8, 16, 32, 64};
  return {1, 4, 16};
}

std::vector<Point> tables_plan(const RunOptions& o) {
  // A bad --compare-keys stops the run before any point (not one FAILED point per load).
  if (o.module_options.count(kKeysOption)) parse_table_keys(o.option(kKeysOption));
  const std::uint64_t n = o.pick_size(kTablesQuickN, kTablesFullN);
  std::vector<Point> points;
  for (double load : table_loads(o))
    for (const auto& v : table_variants())
      if (runs_at_load(v, load)) points.push_back({v.name, n, kLoadFactor, load});
  for (double m : table_multiplicities(o))
    for (const auto& v : table_variants()) points.push_back({v.name, n, kMultiplicity, m});
  return points;
}

gen::KeySpec multiplicity_keys(std::uint64_t n, double multiplicity) {
  if (!(multiplicity >= 1))
    throw std::invalid_argument("compare tables: multiplicity must be >= 1, got " + std::to_string(multiplicity));
  return gen::KeySpec::multiplicity(n, multiplicity);
}

// ---- group-by ------------------------------------------------------------------------------------

std::vector<double> groupby_cardinalities(const RunOptions& o, std::uint64_t n) {
  const std::vector<double> quick = {10, 1e3, 1e5, 1e6};
  const std::vector<double> full = {10, 100, 1e3, 1e4, 1e5, 1e6, 1e7};
  std::vector<double> groups;
  for (double g : o.full() ? full : quick)
    if (g < static_cast<double>(n)) groups.push_back(g);
  // EGA's claims are about load factors above 0.9 and below 1 (LPHGA's table of L = n slots
  // cannot hold n groups and probe well): 0.99 n groups is load factor 0.99.
  const double high_load = std::floor(kHighLoadFactor * static_cast<double>(n));
  if (high_load > groups.back()) groups.push_back(high_load);
  groups.push_back(static_cast<double>(n));  // every key distinct
  return groups;
}

std::vector<double> groupby_zipf_exponents(const RunOptions& o) {
  if (o.full()) return {0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5};
  return {0.5, 1.0, 1.5};
}

std::vector<std::string> groupby_variants() {
  std::vector<std::string> names;
  for (const auto& e : catalogue::groupby_entries()) names.push_back(e.name);
  return names;
}

std::vector<Point> groupby_plan(const RunOptions& o) {
  const std::uint64_t n = o.pick_size(kGroupByQuickN, kGroupByFullN);
  const auto variants = groupby_variants();
  std::vector<Point> points;
  for (double g : groupby_cardinalities(o, n))
    for (const auto& v : variants) points.push_back({v, n, kGroups, g});
  for (double s : groupby_zipf_exponents(o))
    for (const auto& v : variants) points.push_back({v, n, kZipfExponent, s});
  return points;
}

std::uint64_t zipf_candidates(std::uint64_t n) {
  return std::min<std::uint64_t>(std::max<std::uint64_t>(n / 4, 1), gen::kMaxZipfKeys);
}

gen::KeySpec groupby_keys(const Point& p) {
  if (p.param_name == kZipfExponent) return gen::KeySpec::zipf(zipf_candidates(p.n), p.param_value);
  if (p.param_name != kGroups) throw std::invalid_argument("compare group-by: unknown parameter '" + p.param_name + "'");
  if (!(p.param_value >= 1))
    throw std::invalid_argument("compare group-by: groups must be >= 1, got " + std::to_string(p.param_value));
  const auto groups = static_cast<std::uint64_t>(std::llround(p.param_value));
  return groups >= p.n ? gen::KeySpec::unique() : gen::KeySpec::uniform(groups);
}

// ---- joins ---------------------------------------------------------------------------------------

std::vector<std::uint64_t> join_sizes(const RunOptions& o) {
  return o.pick_sizes({std::uint64_t{1} << 20, std::uint64_t{1} << 22, std::uint64_t{1} << 24},
                      {std::uint64_t{1} << 20, std::uint64_t{1} << 22, std::uint64_t{1} << 24, std::uint64_t{1} << 26});
}

std::vector<double> join_match_rates(const RunOptions& o) {
  if (o.full()) return {0.01, 0.1, 0.5, 0.9, 1.0};
  return {0.01, 0.5, 1.0};
}

std::vector<std::string> join_variants() {
  std::vector<std::string> names;
  for (const auto& e : catalogue::join_entries()) names.push_back(e.name);
  return names;
}

std::vector<Point> joins_plan(const RunOptions& o) {
  const auto sizes = join_sizes(o);
  const auto variants = join_variants();
  std::vector<Point> points;
  for (auto n : sizes)
    for (const auto& v : variants) points.push_back({v, n, kMatchRate, kDefaultMatchRate});
  if (sizes.empty()) return points;
  const std::uint64_t largest = *std::max_element(sizes.begin(), sizes.end());
  for (double rate : join_match_rates(o))
    if (rate != kDefaultMatchRate)
      for (const auto& v : variants) points.push_back({v, largest, kMatchRate, rate});
  return points;
}

gen::PkPkSpec join_spec(const Point& p) {
  gen::PkPkSpec spec;
  spec.r_rows = p.n;
  spec.s_rows = p.n;
  spec.key_domain = std::min<std::uint64_t>(gen::kMaxKeyDomain, std::max<std::uint64_t>(100000000, 4 * p.n));
  spec.match_rate = p.param_value;
  gen::validate(spec);
  return spec;
}

}  // namespace hashlab::compare
