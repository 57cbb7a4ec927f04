// What HashGraph's figures share: the module's option, the inputs (the sequence, and keys of
// average appearances m) with their CPU reference join counts, each built once per run of an
// experiment, and the plans' axes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hashlab/common/generator.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/harness/experiment.hpp"

namespace hashlab::hashgraph::experiments {

using harness::Point;
using harness::PointContext;
using harness::RunOptions;
using harness::make_experiment;
using harness::sweep;
using harness::Variants;

constexpr const char* kPaper = "hashgraph";
// Every figure runs at the paper's size in the quick profile too, with fewer points: at 8M the
// whole table (and the offsets at every load) fits in the H100's 50 MB L2, which flattens the
// load-factor trends of Fig. 6 and 8 that the paper measured at 32M. A 32M point costs well
// under a second, mostly the host check of its table.
constexpr std::uint64_t kPaperN = std::uint64_t{1} << 25;  // 32M: "both input arrays will have 32M keys"
constexpr double kHashGraphLoad = 1.0;                     // V2's default load: range = N (section 5.3)
constexpr double kLinearProbingLoad = 0.5;  // "By default we set the load factor to 0.5" (section 4)
constexpr double kLinearProbingDenseLoad = 0.8;  // the second cuDF load of Fig. 3 and 7 (our choice)

// ---- options and inputs -------------------------------------------------------------------------

/// --hashgraph-bins; throws std::invalid_argument naming the option.
std::uint32_t bins_option(const RunOptions& o);
/// The keys for average multiplicity m: uniform over [0, ceil(n / m)), every key present.
gen::KeySpec appearances(std::uint64_t n, double multiplicity);

struct Input {
  DeviceBuffer<std::uint32_t> keys;
  std::vector<std::uint32_t> host;
  std::string key;  // what it was generated from (its cache key)
};

/// One input column on the device and its host copy, shared by the points of the run that use it.
Input& input(PointContext& ctx, const gen::KeySpec& spec, std::uint64_t n, std::uint64_t seed);
/// reference::inner_join_count of two inputs, computed once per pair.
std::uint64_t expected_join_count(PointContext& ctx, const Input& r, const Input& s);
/// Figs. 7 and 9: two inputs of the point's size and appearances (R with the run's seed, S with
/// the next), drawn independently, and the number of pairs their join gives.
struct JoinInputs {
  const Input& r;
  const Input& s;
  std::uint64_t expected;
};
JoinInputs join_inputs(PointContext& ctx, const Point& p);
/// Keeps the cached inputs and reference counts only while `tag` stays the same.
void keep_only(PointContext& ctx, const std::string& tag);
void keep_only_size(PointContext& ctx, std::uint64_t n);
void keep_only_size_and_appearances(PointContext& ctx, const Point& p);

// ---- plans ---------------------------------------------------------------------------------------

bool is_linear_probing(const std::string& variant);
double linear_probing_load(const std::string& variant);

inline const std::vector<double> kLoads = {0.5, 0.75, 0.9, 1.0, 1.5, 2.0, 3.0, 4.0};
inline const std::vector<double> kQuickLoads = {0.5, 0.75, 1.0, 2.0, 4.0};
inline const std::vector<double> kMultiplicities = {1, 2, 4, 8, 16, 32, 64};
inline const std::vector<double> kQuickMultiplicities = {1, 4, 32};
// Fig. 7's quick sweep: the paper's claim is at 32; 2 and 8 show where the cuDF curves fall off.
inline const std::vector<double> kQuickProbeMultiplicities = {1, 2, 4, 8, 32};

const std::vector<double>& loads(const RunOptions& o);
const std::vector<double>& multiplicities(const RunOptions& o);

/// Figs. 2 and 6: the paper's N at every load factor of the profile.
std::vector<Point> load_sweep(const RunOptions& o, const Variants& v);

}  // namespace hashlab::hashgraph::experiments
