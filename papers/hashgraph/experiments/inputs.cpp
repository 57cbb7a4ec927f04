// HashGraph's shared inputs, their reference join counts, the option and the plans' axes
// (inputs.cuh).
#include "inputs.cuh"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "hashlab/hashgraph/hashgraph.hpp"
#include "hashlab/reference/join.hpp"

namespace hashlab::hashgraph::experiments {

std::uint32_t bins_option(const RunOptions& o) {
  const std::string& text = o.option("hashgraph-bins");
  std::size_t used = 0;
  unsigned long long bins = 0;
  try {
    bins = std::stoull(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || text[0] == '-' || bins == 0 || bins > kMaxBins)
    throw std::invalid_argument("--hashgraph-bins must be an integer in [1, " + std::to_string(kMaxBins) + "], got '" +
                                text + "'");
  return static_cast<std::uint32_t>(bins);
}

/// The keys for average multiplicity m: uniform over [0, ceil(n / m)), every key present.
gen::KeySpec appearances(std::uint64_t n, double multiplicity) {
  const auto distinct = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(n / multiplicity)));
  return gen::KeySpec::uniform(distinct, distinct);
}

/// One input column on the device and its host copy, shared by the points of an experiment.
Input& input(PointContext& ctx, const gen::KeySpec& spec, std::uint64_t n, std::uint64_t seed) {
  const std::string key = "input:" + spec.describe() + ":" + std::to_string(n) + ":" + std::to_string(seed);
  return ctx.cached<Input>(key, [&] {
    Input in;
    in.key = key;
    in.keys = DeviceBuffer<std::uint32_t>(n, ctx.stream());
    gen::generate_keys(spec, seed, in.keys.data(), n, ctx.stream());
    in.host = in.keys.to_host(ctx.stream());
    return in;
  });
}

/// The inner join count of two inputs, computed once per pair (reference::oracle_join_count).
std::uint64_t expected_join_count(PointContext& ctx, const Input& r, const Input& s) {
  using Answer = std::pair<std::uint64_t, std::string>;  // the count and the oracle's note
  const auto& [count, note] = ctx.cached<Answer>("expected:" + r.key + "|" + s.key, [&] {
    Answer answer;
    answer.first = reference::oracle_join_count(r.host, s.host, &answer.second);
    return answer;
  });
  if (!note.empty()) ctx.note(note);
  return count;
}

JoinInputs join_inputs(PointContext& ctx, const Point& p) {
  keep_only_size_and_appearances(ctx, p);
  const auto spec = appearances(p.n, p.param_value);
  const Input& r = input(ctx, spec, p.n, ctx.seed());
  const Input& s = input(ctx, spec, p.n, ctx.seed() + 1);
  return {r, s, expected_join_count(ctx, r, s)};
}

/// Keeps the cached inputs and reference counts only while `tag` (what the inputs depend on: the
/// size, and the appearances where they vary) stays the same, so that sweeps do not pile up inputs.
void keep_only(PointContext& ctx, const std::string& tag) {
  auto& current = ctx.cached<std::string>("tag", [&] { return tag; });
  if (current != tag) {
    ctx.drop_cached("input:");
    ctx.drop_cached("expected:");
    current = tag;
  }
}
void keep_only_size(PointContext& ctx, std::uint64_t n) { keep_only(ctx, std::to_string(n)); }
void keep_only_size_and_appearances(PointContext& ctx, const Point& p) {
  keep_only(ctx, std::to_string(p.n) + ":" + std::to_string(p.param_value));
}

// ---- plans ---------------------------------------------------------------------------------------

bool is_linear_probing(const std::string& variant) { return variant.rfind("linear_probing", 0) == 0; }
double linear_probing_load(const std::string& variant) {
  return variant == "linear_probing_0.8" ? kLinearProbingDenseLoad : kLinearProbingLoad;
}

namespace {

// Linear probing cannot hold more keys than slots, and near load 1 its inserts degrade to
// scanning the whole table: it runs at loads up to 0.9 only.
constexpr double kLinearProbingMaxLoad = 0.9;
std::vector<Point> without_dense_linear_probing(std::vector<Point> points) {
  points.erase(std::remove_if(points.begin(), points.end(),
                              [](const Point& p) { return is_linear_probing(p.variant) && p.param_value > kLinearProbingMaxLoad; }),
               points.end());
  return points;
}

}  // namespace

const std::vector<double>& loads(const RunOptions& o) { return o.full() ? kLoads : kQuickLoads; }
const std::vector<double>& multiplicities(const RunOptions& o) { return o.full() ? kMultiplicities : kQuickMultiplicities; }

// Figs. 2 and 6: the paper's N at every load factor of the profile.
std::vector<Point> load_sweep(const RunOptions& o, const Variants& v) {
  return without_dense_linear_probing(sweep(v, {o.pick_size(kPaperN, kPaperN)}, "load_factor", loads(o)));
}

}  // namespace hashlab::hashgraph::experiments
