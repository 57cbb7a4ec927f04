// What the comparison experiments sweep and the inputs each point draws (host logic, tested on
// the CPU). Every variant of one point draws the same input from the shared generator; points
// are ordered so that the variants of one input run one after another (the input and its CPU
// reference are built once, see experiments/tables.cpp, groupby.cpp and joins.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hashlab/catalogue/column.hpp"
#include "hashlab/common/generator.hpp"
#include "hashlab/harness/experiment.hpp"

namespace hashlab::compare {

// ---- tables --------------------------------------------------------------------------------------

constexpr const char* kLoadFactor = "load_factor";
constexpr const char* kMultiplicity = "multiplicity";
constexpr std::uint64_t kTablesQuickN = std::uint64_t{1} << 24;  // 16M
constexpr std::uint64_t kTablesFullN = std::uint64_t{1} << 25;   // 32M: HashGraph's N and cuckoo Fig. 4.4's largest

/// The module option naming the unique keys of the load sweep: "unique" (random, default),
/// "sequence" (HashGraph Fig. 2's input 0..N-1) or "shuffled".
constexpr const char* kKeysOption = "compare-keys";
/// Parses the option; throws std::invalid_argument naming the choices.
gen::KeySpec parse_table_keys(const std::string& name);

/// One variant of the tables experiment: a catalogue table entry and the options that make it the
/// variant (HashGraph V1 and V2 are one entry's two versions). Every table entry appears.
struct TableVariant {
  std::string name;    // "cuckoo", "hashgraph_v1", "hashgraph_v2", "linear_probing", "sorted_array"
  std::string entry;   // the catalogue's
  catalogue::Options options;
};
const std::vector<TableVariant>& table_variants();
/// The variant called `name`; std::invalid_argument naming the choices.
const TableVariant& table_variant(const std::string& name);
/// Whether the variant's table holds unique keys at `load_factor` (keys / slots; HashGraph: keys
/// per vertex) in this comparison: up to its entry's max_load, and the sorted array (no load) at 1.
bool runs_at_load(const TableVariant& variant, double load_factor);

std::vector<double> table_loads(const harness::RunOptions& options);
std::vector<double> table_multiplicities(const harness::RunOptions& options);
/// Load points (each table where runs_at_load holds), then multiplicity points (every table).
std::vector<harness::Point> tables_plan(const harness::RunOptions& options);
/// The keys of a multiplicity point: uniform, n / multiplicity distinct keys from the whole domain.
gen::KeySpec multiplicity_keys(std::uint64_t n, double multiplicity);

// ---- group-by ------------------------------------------------------------------------------------

constexpr const char* kGroups = "groups";
constexpr const char* kZipfExponent = "zipf_exponent";
constexpr std::uint64_t kGroupByQuickN = std::uint64_t{1} << 23;  // 8M rows
constexpr std::uint64_t kGroupByFullN = std::uint64_t{1} << 26;   // 64M rows

/// The load factor of the group-by sweep's second-to-last point (groups / n): EGA's "above 0.9".
constexpr double kHighLoadFactor = 0.99;
/// Group counts from 10 to n (the last two points: load factor 0.99, every key distinct), without
/// repeats.
std::vector<double> groupby_cardinalities(const harness::RunOptions& options, std::uint64_t n);
std::vector<double> groupby_zipf_exponents(const harness::RunOptions& options);
/// Every group-by of the catalogue, each point (the inputs take one key column and one value
/// column of unsigned values below 2^31, so that every entry reads the same numbers).
std::vector<std::string> groupby_variants();
std::vector<harness::Point> groupby_plan(const harness::RunOptions& options);
/// The keys of a point: uniform over `groups` keys (unique keys when groups >= n), or Zipf over
/// zipf_candidates(n) keys.
gen::KeySpec groupby_keys(const harness::Point& point);
std::uint64_t zipf_candidates(std::uint64_t n);  // n / 4 (EGA's sp_zipf), at most gen::kMaxZipfKeys

// ---- joins ---------------------------------------------------------------------------------------

constexpr const char* kMatchRate = "match_rate";
constexpr double kDefaultMatchRate = 0.5;  // the pk-pk module's sweep default

std::vector<std::uint64_t> join_sizes(const harness::RunOptions& options);
std::vector<double> join_match_rates(const harness::RunOptions& options);
/// Every join of the catalogue.
std::vector<std::string> join_variants();
/// Every size at kDefaultMatchRate, then the other match rates at the largest size.
std::vector<harness::Point> joins_plan(const harness::RunOptions& options);
/// |R| = |S| = n, keys in [0, max(10^8, 2 (|R| + |S|))) (the pk-pk report's 10^8 where it fits).
gen::PkPkSpec join_spec(const harness::Point& point);

}  // namespace hashlab::compare
