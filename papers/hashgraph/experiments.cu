// HashGraph's figures as registered experiments (section 5), and `hashlab demo hashgraph`.
//
// Inputs follow the paper: the sequence 0..N-1 for the framework comparisons (Fig. 2, 6, 8), and
// for "average appearances" m the keys drawn uniformly from [0, N/m) (Fig. 3, 4, 5, 7, 9: "given
// an input with 32M keys and an average of four appearances, the keys are generated from numbers
// in the range of [0, 8M)"). The comparators: the linear-probing table of common/ (the cuDF
// stand-in) and the multi-threaded CPU hash join of common/ (the MC-Hash stand-in).
//
// Verification, every point: a build is checked entry by entry against its input on the host
// (check_against_input, the multimap key -> rows in array form); a linear-probing build by finding
// every key; a probe or join count against reference::inner_join_count on the same inputs. The
// largest-input point (billions of keys) is checked whole on the device against the sequence's
// known answer (check_sequence_table), not copied to the host.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "hashlab/baselines/linear_probing.hpp"
#include "hashlab/common/device.hpp"
#include "hashlab/common/generator.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/common/primitives.hpp"
#include "hashlab/harness/experiment.hpp"
#include "hashlab/hashgraph/hashgraph.hpp"
#include "hashlab/hashgraph/probe.hpp"
#include "hashlab/reference/cpu_baselines.hpp"
#include "hashlab/reference/join.hpp"

namespace hashlab::hashgraph {
namespace {

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

struct Input {
  DeviceBuffer<std::uint32_t> keys;
  std::vector<std::uint32_t> host;
};

/// One input column on the device and its host copy, shared by the points of an experiment.
Input& input(PointContext& ctx, const gen::KeySpec& spec, std::uint64_t n, std::uint64_t seed) {
  const std::string key = "input:" + spec.describe() + ":" + std::to_string(n) + ":" + std::to_string(seed);
  return ctx.cached<Input>(key, [&] {
    Input in;
    in.keys = DeviceBuffer<std::uint32_t>(n, ctx.stream());
    gen::generate_keys(spec, seed, in.keys.data(), n, ctx.stream());
    in.host = in.keys.to_host(ctx.stream());
    return in;
  });
}

/// reference::inner_join_count of two inputs, computed once per pair.
std::uint64_t expected_join_count(PointContext& ctx, const std::string& name, const Input& r, const Input& s) {
  return ctx.cached<std::uint64_t>("expected:" + name, [&] { return reference::inner_join_count(r.host, s.host); });
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

// ---- the operations each figure times ------------------------------------------------------------

/// The build's steps (V1's loops, V2's phases), each timed with CUDA events over as many traced
/// builds as the point has repetitions, after the timed builds: one "step_<name>_time" row per
/// step (and its rate over the keys, vertices or bins the step walks). Sections 3.2 and 3.3.
void report_build_steps(PointContext& ctx, HashGraph& graph, const Input& in, std::uint64_t n) {
  const int runs = std::max(1, ctx.options().effective_repetitions());
  BuildTrace first, trace;
  std::map<std::string, std::vector<double>> times;
  for (int i = 0; i < runs; ++i) {
    graph.build(in.keys.data(), n, ctx.stream(), &trace);
    if (i == 0) first = trace;
    for (const auto& step : trace) times[step.name].push_back(step.ms);
  }
  for (const auto& step : first) {
    auto& t = times[step.name];
    std::sort(t.begin(), t.end());
    const harness::Timing timing{t[t.size() / 2], t.front(), t.back(), static_cast<int>(t.size())};
    ctx.report_time("step_" + step.name, timing, static_cast<double>(step.items), step.unit);
  }
}

/// Builds a HashGraph of `in` (timed), checks it against the input, reports "build" and the
/// bytes per key of the table, of the build's scratch and of both (the build's peak). With
/// `trace_steps`, also the time of every step (report_build_steps).
void time_hashgraph_build(PointContext& ctx, const Input& in, std::uint64_t n, double load, BuildOptions options,
                          bool trace_steps = false) {
  HashGraph graph(n, hash_range_for(n, load), options, ctx.stream());
  const auto t = ctx.time_gpu([&](cudaStream_t s) { graph.build(in.keys.data(), n, s); });
  ctx.report_time("build", t, static_cast<double>(n), "keys");
  const auto per_key = [n](std::size_t bytes) { return static_cast<double>(bytes) / static_cast<double>(n); };
  ctx.report_value("bytes_per_key", per_key(graph.table_bytes()), "B");
  ctx.report_value("scratch_bytes_per_key", per_key(graph.scratch_bytes()), "B");
  ctx.report_value("peak_bytes_per_key", per_key(graph.peak_bytes()), "B");
  if (trace_steps) report_build_steps(ctx, graph, in, n);  // the last traced build is the one checked
  const std::string problem = check_against_input(graph.to_host(ctx.stream()), in.host);
  ctx.verify(problem.empty(), problem);
  if (options.version == Version::kV2 && !graph.shared_memory_phase3())
    ctx.note("phase 3 in global memory: " + std::to_string(graph.bin_size()) + " vertices per bin exceed shared memory");
}

/// Builds the linear-probing table of `in` at `load` (timed), then finds every key (untimed).
void time_linear_probing_build(PointContext& ctx, const Input& in, std::uint64_t n, double load) {
  baseline::LinearProbingTable table(baseline::LinearProbingTable::capacity_for(n, load), ctx.stream());
  const auto t = ctx.time_gpu([&](cudaStream_t s) { table.insert(in.keys.data(), nullptr, n, s); },
                              [&](cudaStream_t s) { table.clear(s); });
  ctx.report_time("build", t, static_cast<double>(n), "keys");
  ctx.report_value("bytes_per_key", static_cast<double>(table.bytes()) / static_cast<double>(n), "B");
  table.check(ctx.stream());
  DeviceBuffer<std::uint32_t> rows(n, ctx.stream());
  rows.fill_bytes(0xff, ctx.stream());  // kNotFound until written
  table.find(in.keys.data(), n, rows.data(), ctx.stream());
  const auto found = rows.to_host(ctx.stream());
  for (std::uint64_t i = 0; i < n; ++i)
    if (found[i] >= n || in.host[found[i]] != in.host[i]) {
      ctx.verify(false, "key " + std::to_string(in.host[i]) + " of row " + std::to_string(i) + " not found");
      return;
    }
  ctx.verify(true);
}

/// Probes a table of r with s (count only, timed), checks the count against the reference.
void time_hashgraph_probe(PointContext& ctx, const Input& r, const Input& s, std::uint64_t n, double load,
                          ProbeMethod method, std::uint64_t expected, std::uint32_t bins) {
  HashGraph table(n, hash_range_for(n, load), {Version::kV2, bins}, ctx.stream());
  table.build(r.keys.data(), n, ctx.stream());
  Prober prober(table, method, n, ctx.stream(), {Version::kV2, bins});
  DeviceBuffer<std::uint64_t> count(1, ctx.stream());
  const auto t = ctx.time_gpu([&](cudaStream_t st) { prober.count(s.keys.data(), n, count.data(), st); });
  ctx.report_time("probe", t, static_cast<double>(n), "keys");
  if (method == ProbeMethod::kNew) {  // section 5.2: the share of probe-new spent building the second table
    HashGraph second(n, table.range(), {Version::kV2, bins}, ctx.stream());
    const auto b = ctx.time_gpu([&](cudaStream_t st) { second.build(s.keys.data(), n, st); });
    ctx.report_time("query_build", b, static_cast<double>(n), "keys");
  }
  const std::uint64_t got = read_device_value(count.data(), ctx.stream());
  ctx.verify(got == expected, "probe count " + std::to_string(got) + ", reference " + std::to_string(expected));
}

/// Probes the linear-probing table of r at `load` with s: per-query counts and their sum, timed.
void time_linear_probing_probe(PointContext& ctx, const Input& r, const Input& s, std::uint64_t n, double load,
                               std::uint64_t expected) {
  baseline::LinearProbingTable table(baseline::LinearProbingTable::capacity_for(n, load), ctx.stream());
  table.insert(r.keys.data(), nullptr, n, ctx.stream());
  table.check(ctx.stream());
  DeviceBuffer<std::uint32_t> counts(n, ctx.stream());
  DeviceBuffer<std::uint64_t> total(1, ctx.stream());
  const auto t = ctx.time_gpu([&](cudaStream_t st) {
    table.count(s.keys.data(), n, counts.data(), st);
    prim::sum(counts.data(), n, total.data(), st);
  });
  ctx.report_time("probe", t, static_cast<double>(n), "keys");
  const std::uint64_t got = read_device_value(total.data(), ctx.stream());
  ctx.verify(got == expected, "probe count " + std::to_string(got) + ", reference " + std::to_string(expected));
}

// ---- plans ---------------------------------------------------------------------------------------

bool is_linear_probing(const std::string& variant) { return variant.rfind("linear_probing", 0) == 0; }
double linear_probing_load(const std::string& variant) {
  return variant == "linear_probing_0.8" ? kLinearProbingDenseLoad : kLinearProbingLoad;
}

// Linear probing cannot hold more keys than slots, and near load 1 its inserts degrade to
// scanning the whole table: it runs at loads up to 0.9 only.
constexpr double kLinearProbingMaxLoad = 0.9;
std::vector<Point> without_dense_linear_probing(std::vector<Point> points) {
  points.erase(std::remove_if(points.begin(), points.end(),
                              [](const Point& p) { return is_linear_probing(p.variant) && p.param_value > kLinearProbingMaxLoad; }),
               points.end());
  return points;
}

const std::vector<double> kLoads = {0.5, 0.75, 0.9, 1.0, 1.5, 2.0, 3.0, 4.0};
const std::vector<double> kQuickLoads = {0.5, 0.75, 1.0, 2.0, 4.0};
const std::vector<double> kMultiplicities = {1, 2, 4, 8, 16, 32, 64};
const std::vector<double> kQuickMultiplicities = {1, 4, 32};
// Fig. 7's quick sweep: the paper's claim is at 32; 2 and 8 show where the cuDF curves fall off.
const std::vector<double> kQuickProbeMultiplicities = {1, 2, 4, 8, 32};

const std::vector<double>& loads(const RunOptions& o) { return o.full() ? kLoads : kQuickLoads; }
const std::vector<double>& multiplicities(const RunOptions& o) { return o.full() ? kMultiplicities : kQuickMultiplicities; }

// Figs. 2 and 6: the paper's N at every load factor of the profile.
std::vector<Point> load_sweep(const RunOptions& o, const Variants& v) {
  return without_dense_linear_probing(sweep(v, {o.pick_size(kPaperN, kPaperN)}, "load_factor", loads(o)));
}

// ---- Fig. 2: build rate vs load factor, sequence input -------------------------------------------

void run_fig2(PointContext& ctx) {
  const Point& p = ctx.point();
  keep_only_size(ctx, p.n);
  const Input& in = input(ctx, gen::KeySpec::sequence(), p.n, ctx.seed());
  if (p.variant == "linear_probing")
    time_linear_probing_build(ctx, in, p.n, p.param_value);
  else
    time_hashgraph_build(ctx, in, p.n, p.param_value,
                         {p.variant == "v1" ? Version::kV1 : Version::kV2, bins_option(ctx.options())},
                         /*trace_steps=*/true);
}

// ---- Fig. 3: build rate vs average appearances ---------------------------------------------------

void run_fig3(PointContext& ctx) {
  const Point& p = ctx.point();
  keep_only_size_and_appearances(ctx, p);
  const Input& in = input(ctx, appearances(p.n, p.param_value), p.n, ctx.seed());
  if (is_linear_probing(p.variant))
    time_linear_probing_build(ctx, in, p.n, linear_probing_load(p.variant));
  else
    time_hashgraph_build(ctx, in, p.n, kHashGraphLoad,
                         {p.variant == "v1" ? Version::kV1 : Version::kV2, bins_option(ctx.options())});
}

// ---- Fig. 4 and 5: V2 vs bin count and vs input size ---------------------------------------------

const std::vector<std::uint32_t> kBins = {1u << 10, 1u << 11, 1u << 12, 1u << 13, 1u << 14, 1u << 15,
                                          1u << 16, 1u << 17, 1u << 18, 1u << 20};
// The quick sweep keeps both neighbours of the paper's best counts (16K, 32K): 8K and 64K.
const std::vector<std::uint32_t> kQuickBins = {1u << 10, 1u << 12, 1u << 13, 1u << 14,
                                               1u << 15, 1u << 16, 1u << 17, 1u << 20};

std::string bins_variant(std::uint32_t bins) { return "bins_" + std::to_string(bins); }

void run_fig4(PointContext& ctx) {
  const Point& p = ctx.point();
  keep_only_size_and_appearances(ctx, p);
  const auto bins = static_cast<std::uint32_t>(std::stoul(p.variant.substr(5)));
  const Input& in = input(ctx, appearances(p.n, p.param_value), p.n, ctx.seed());
  time_hashgraph_build(ctx, in, p.n, kHashGraphLoad, {Version::kV2, bins});
}

void run_fig5(PointContext& ctx) {
  const Point& p = ctx.point();
  keep_only_size_and_appearances(ctx, p);
  const Input& in = input(ctx, appearances(p.n, p.param_value), p.n, ctx.seed());
  time_hashgraph_build(ctx, in, p.n, kHashGraphLoad, {Version::kV2, bins_option(ctx.options())});
}

// ---- Fig. 6 and 7: probe rate vs load factor and vs average appearances --------------------------

void run_fig6(PointContext& ctx) {
  const Point& p = ctx.point();
  keep_only_size(ctx, p.n);
  const Input& keys = input(ctx, gen::KeySpec::sequence(), p.n, ctx.seed());  // table and queries alike
  const std::uint64_t expected = expected_join_count(ctx, "sequence", keys, keys);
  if (p.variant == "linear_probing")
    time_linear_probing_probe(ctx, keys, keys, p.n, p.param_value, expected);
  else
    time_hashgraph_probe(ctx, keys, keys, p.n, p.param_value,
                         p.variant == "probe_new" ? ProbeMethod::kNew : ProbeMethod::kStandard, expected,
                         bins_option(ctx.options()));
}

void run_fig7(PointContext& ctx) {
  const Point& p = ctx.point();
  keep_only_size_and_appearances(ctx, p);
  const auto spec = appearances(p.n, p.param_value);
  const Input& r = input(ctx, spec, p.n, ctx.seed());
  const Input& s = input(ctx, spec, p.n, ctx.seed() + 1);
  const std::uint64_t expected = expected_join_count(ctx, spec.describe(), r, s);
  if (is_linear_probing(p.variant))
    time_linear_probing_probe(ctx, r, s, p.n, linear_probing_load(p.variant), expected);
  else
    time_hashgraph_probe(ctx, r, s, p.n, kHashGraphLoad,
                         p.variant == "probe_new" ? ProbeMethod::kNew : ProbeMethod::kStandard, expected,
                         bins_option(ctx.options()));
}

// ---- Fig. 8: build and probe vs hash range (2N .. N/4) -------------------------------------------

void run_fig8(PointContext& ctx) {
  const Point& p = ctx.point();
  keep_only_size(ctx, p.n);
  const Input& keys = input(ctx, gen::KeySpec::sequence(), p.n, ctx.seed());
  ctx.report_value("hash_range", static_cast<double>(hash_range_for(p.n, p.param_value)), "vertices");
  const std::uint32_t bins = bins_option(ctx.options());
  if (p.variant == "build_v2") {
    time_hashgraph_build(ctx, keys, p.n, p.param_value, {Version::kV2, bins});
    return;
  }
  const std::uint64_t expected = expected_join_count(ctx, "sequence", keys, keys);
  time_hashgraph_probe(ctx, keys, keys, p.n, p.param_value,
                       p.variant == "probe_new" ? ProbeMethod::kNew : ProbeMethod::kStandard, expected, bins);
}

// ---- Fig. 9: join of two random inputs vs the multi-core CPU hash join ---------------------------

void run_fig9(PointContext& ctx) {
  const Point& p = ctx.point();
  keep_only_size_and_appearances(ctx, p);
  const auto spec = appearances(p.n, p.param_value);
  const Input& r = input(ctx, spec, p.n, ctx.seed());
  const Input& s = input(ctx, spec, p.n, ctx.seed() + 1);
  const std::uint64_t expected = expected_join_count(ctx, spec.describe(), r, s);
  const double both_inputs = 2.0 * static_cast<double>(p.n);  // section 5.4: "we diving 64M by the execution time"
  std::uint64_t got = 0;
  if (p.variant == "hashgraph") {
    // Section 5.4: "the sum of the time for hash-table building and probing" (probe-new, count only).
    const std::uint32_t bins = bins_option(ctx.options());
    HashGraph table(p.n, hash_range_for(p.n, kHashGraphLoad), {Version::kV2, bins}, ctx.stream());
    Prober prober(table, ProbeMethod::kNew, p.n, ctx.stream(), {Version::kV2, bins});
    DeviceBuffer<std::uint64_t> count(1, ctx.stream());
    const auto t = ctx.time_gpu([&](cudaStream_t st) {
      table.build(r.keys.data(), p.n, st);
      prober.count(s.keys.data(), p.n, count.data(), st);
    });
    ctx.report_time("join", t, both_inputs, "keys");
    got = read_device_value(count.data(), ctx.stream());
  } else {
    const auto t = ctx.time_host([&] { got = cpu::parallel_join_count(r.host, s.host); });
    ctx.report_time("join", t, both_inputs, "keys");
  }
  ctx.report_value("output_pairs", static_cast<double>(expected), "pairs");
  ctx.verify(got == expected, "join count " + std::to_string(got) + ", reference " + std::to_string(expected));
}

// ---- the largest input that builds on this GPU ---------------------------------------------------

// V2 at load 1 needs, per key: the key (4 B), the entry (8 B), the reorganized tuple (8 B) and
// one offset (4 B); the probe that checks it adds nothing.
constexpr double kV2BytesPerKey = 24.0;
constexpr std::uint64_t kLargestBinVertices = 16384;  // 64 KB of shared-memory counters per bin

std::uint64_t largest_fitting_input() {
  std::size_t free_bytes = 0, total_bytes = 0;
  trim_device_pool();
  device_memory(free_bytes, total_bytes);
  const double usable = 0.92 * static_cast<double>(free_bytes);  // the pool, CUB temporaries, the context
  const auto n = static_cast<std::uint64_t>(usable / kV2BytesPerKey);
  return std::min<std::uint64_t>(n & ~((std::uint64_t{1} << 20) - 1), kMaxKeys & ~((std::uint64_t{1} << 20) - 1));
}

void run_largest(PointContext& ctx) {
  const Point& p = ctx.point();
  const std::uint64_t n = p.n;
  ctx.drop_cached("");
  DeviceBuffer<std::uint32_t> keys(n, ctx.stream());
  gen::generate_keys(gen::KeySpec::sequence(), ctx.seed(), keys.data(), n, ctx.stream());
  // Enough bins that phase 3 stays in shared memory (the global fallback would need another 4 B
  // per vertex): at most kLargestBinVertices vertices per bin.
  const std::uint32_t range = hash_range_for(n, kHashGraphLoad);
  const auto bins = static_cast<std::uint32_t>(
      std::max<std::uint64_t>(bins_option(ctx.options()), (range + kLargestBinVertices - 1) / kLargestBinVertices));
  HashGraph graph(n, range, {Version::kV2, bins}, ctx.stream());
  ctx.report_value("bins", bins, "count");
  const auto t = ctx.time_gpu([&](cudaStream_t s) { graph.build(keys.data(), n, s); });
  ctx.report_time("build", t, static_cast<double>(n), "keys");
  ctx.report_value("device_bytes", static_cast<double>(graph.peak_bytes() + keys.bytes()), "B");
  ctx.report_value("keys", static_cast<double>(n), "keys");  // the claims read the size from here

  // The whole table, checked on the device against the sequence's known answer (key k at row k):
  // a host copy of billions of entries would take minutes.
  const std::string problem = check_sequence_table(graph, ctx.stream());
  ctx.note("checked whole on the device against the sequence's answer (check_sequence_table)");
  ctx.verify(problem.empty(), problem);
}

// ---- registration --------------------------------------------------------------------------------

// ---- demo ----------------------------------------------------------------------------------------

int run_demo(const RunOptions&) {
  Stream stream;  // before the buffers: they are freed on it
  const std::vector<std::uint32_t> keys = {42, 7, 19, 42, 3, 88, 7, 61, 42, 25};
  const std::uint32_t range = 4;  // load factor 10 / 4 = 2.5: fewer vertices than keys is fine
  auto d_keys = to_device(keys, stream);
  std::printf("HashGraph demo (Green et al.): %zu keys hashed into a range of %u vertices (load %.1f)\n\n",
              keys.size(), range, keys.size() / static_cast<double>(range));
  std::printf("Section 3.1: the table is a CSR graph. Vertices are hash values, edges point back to the input.\n\n");
  HashGraph graph(keys.size(), range, {Version::kV1}, stream);
  graph.build(d_keys.data(), keys.size(), stream);
  const HostGraph v1 = graph.to_host(stream);

  std::printf("Alg. 1 (V1), step 1 - hash every key into the range (Murmur3 finaliser, reduced to [0, %u)):\n", range);
  for (std::size_t i = 0; i < keys.size(); ++i)
    std::printf("  input[%zu] = %2u  ->  vertex %u\n", i, keys[i], vertex_of(keys[i], range));
  std::printf("\nSteps 2-3 - zero one counter per vertex, then count each vertex's keys with atomic adds.\n"
              "The counts the GPU found (offsets[v + 1] - offsets[v]):\n  counters = [");
  for (std::uint32_t v = 0; v < range; ++v) std::printf("%s%u", v ? ", " : "", v1.offsets[v + 1] - v1.offsets[v]);
  std::printf("]\n\n");
  std::printf("Step 4 - the prefix sum of the counters is the CSR offset array (range + 1 values):\n  offsets  = [");
  for (std::size_t v = 0; v < v1.offsets.size(); ++v) std::printf("%s%u", v ? ", " : "", v1.offsets[v]);
  std::printf("]\n\n");
  std::printf("Steps 5-6 - reset the counters, then place each key at offsets[vertex] + its atomic position.\n");
  std::printf("The edges (key, row in the input), vertex by vertex, as the GPU placed them:\n");
  for (std::uint32_t v = 0; v < range; ++v) {
    std::printf("  vertex %u: entries [%u, %u) ", v, v1.offsets[v], v1.offsets[v + 1]);
    for (std::uint32_t e = v1.offsets[v]; e < v1.offsets[v + 1]; ++e)
      std::printf(" (key %u, row %u)", v1.entries[e].key, v1.entries[e].index);
    std::printf("\n");
  }
  const std::string v1_check = check_against_input(v1, keys);

  HashGraph graph2(keys.size(), range, {Version::kV2, 2}, stream);
  graph2.build(d_keys.data(), keys.size(), stream);
  const HostGraph v2 = graph2.to_host(stream);
  std::printf("\nAlg. 2 (V2) with 2 bins of %u vertices: phase 1 counts keys per bin, phase 2 reorganizes the\n"
              "input bin by bin, phase 3 builds each bin's part of the CSR in shared memory. Same offsets:\n  offsets  = [",
              graph2.bin_size());
  for (std::size_t v = 0; v < v2.offsets.size(); ++v) std::printf("%s%u", v ? ", " : "", v2.offsets[v]);
  std::printf("]  (%s)\n\n", v2.offsets == v1.offsets ? "equal to V1's" : "DIFFERENT from V1's");

  const std::vector<std::uint32_t> queries = {42, 5, 7};
  auto d_queries = to_device(queries, stream);
  std::printf("Section 3.4 - probing with queries [42, 5, 7]:\n");
  for (std::size_t j = 0; j < queries.size(); ++j) {
    const std::uint32_t v = vertex_of(queries[j], range);
    std::printf("  probe-standard: query %u hashes to vertex %u, walks entries [%u, %u):", queries[j], v,
                v1.offsets[v], v1.offsets[v + 1]);
    int found = 0;
    for (std::uint32_t e = v1.offsets[v]; e < v1.offsets[v + 1]; ++e)
      if (v1.entries[e].key == queries[j]) {
        std::printf(" match row %u", v1.entries[e].index);
        ++found;
      }
    std::printf("%s\n", found ? "" : " no match");
  }
  Prober prober(graph, ProbeMethod::kNew, queries.size(), stream);
  const auto pairs = prober.join(d_queries.data(), queries.size(), stream).to_host(stream);
  std::printf("  probe-new: builds a second HashGraph over the queries (same range) and intersects the two\n"
              "  lists of every vertex; on the GPU it found %zu pairs (table row, query row):", pairs.size());
  auto sorted = pairs;
  std::sort(sorted.begin(), sorted.end());
  for (const auto& pair : sorted) std::printf(" (%u, %u)", pair.r_index, pair.s_index);
  const bool probe_ok = sorted == reference::inner_join(keys, queries);
  std::printf("\n  CPU reference join: %s\n\n", probe_ok ? "the same pairs" : "DIFFERENT pairs");

  std::printf("Where to read the code (papers/hashgraph/):\n"
              "  include/hashlab/hashgraph/hashgraph.hpp  the table: vertex_of, HashGraph, BuildOptions\n"
              "  src/hashgraph_v1.cu                      Alg. 1, one kernel per loop\n"
              "  src/hashgraph_v2.cu                      Alg. 2: bin count, reorganize, per-bin build\n"
              "  src/probe.cu                             probe-standard and probe-new (Alg. 3)\n"
              "  experiments.cu                           Fig. 2-9 as experiments; README.md maps the paper\n");
  const bool ok = v1_check.empty() && check_against_input(v2, keys).empty() && v2.offsets == v1.offsets && probe_ok;
  if (!ok) std::printf("\nFAILED: %s\n", v1_check.empty() ? "V2 or the probe differs from the reference" : v1_check.c_str());
  return ok ? 0 : 1;
}

const harness::Registrar registrar([](harness::Registry& r) {
  r.add_option({kPaper, "hashgraph-bins", "HashGraph V2's number of bins (section 3.3; Fig. 4 sweeps its own)",
                std::to_string(kDefaultBins), harness::validate_with("hashgraph-bins", bins_option)});

  r.add_experiment(make_experiment(
      kPaper, "fig2", "Fig. 2",
      "build rate vs load factor, sequence 0..N-1: V1, V2, linear probing (cuDF stand-in); V1's loops and V2's phases "
      "timed one by one, the build's bytes per key (table, scratch, peak)",
      {"v1", "v2", "linear_probing"},
      [](const RunOptions& o, const Variants& v) {
        bins_option(o);  // a bad --hashgraph-bins fails before anything runs
        return load_sweep(o, v);
      },
      run_fig2));

  r.add_experiment(make_experiment(
      kPaper, "fig3", "Fig. 3", "build rate vs average appearances per key: V1, V2 (load 1), linear probing at loads 0.5, 0.8",
      {"v1", "v2", "linear_probing_0.5", "linear_probing_0.8"},
      [](const RunOptions& o, const Variants& v) {
        // The full sweep in both profiles: the paper's claims are at 2, 8 and 32 appearances ("1 .. 32+").
        return sweep(v, {o.pick_size(kPaperN, kPaperN)}, "multiplicity", kMultiplicities);
      },
      run_fig3));

  r.add_experiment(make_experiment(
      kPaper, "fig4", "Fig. 4", "V2 build rate vs average appearances, one line per bin count, inputs 2M, 8M, 32M", {},
      [](const RunOptions& o) {
        std::vector<std::string> variants;
        for (auto b : o.full() ? kBins : kQuickBins) variants.push_back(bins_variant(b));
        return sweep(variants, o.pick_sizes({1u << 21, 1u << 23, 1u << 25}, {1u << 21, 1u << 23, 1u << 25}), "multiplicity",
                     o.full() ? kMultiplicities : std::vector<double>{1, 4, 32});
      },
      run_fig4));

  r.add_experiment(make_experiment(
      kPaper, "fig5", "Fig. 5", "V2 build rate vs average appearances for several input sizes", {"v2"},
      [](const RunOptions& o, const Variants& v) {
        return sweep(v,
                     o.pick_sizes({1u << 21, 1u << 23, 1u << 25, 1u << 27},
                                  {1u << 21, 1u << 23, 1u << 25, 1u << 27, 1u << 29}),
                     "multiplicity", multiplicities(o));
      },
      run_fig5));

  r.add_experiment(make_experiment(
      kPaper, "fig6", "Fig. 6", "probe rate vs load factor, sequence probed with itself: probe-standard, probe-new, linear probing",
      {"probe_standard", "probe_new", "linear_probing"},
      load_sweep, run_fig6));

  r.add_experiment(make_experiment(
      kPaper, "fig7", "Fig. 7", "probe rate vs average appearances (both inputs): probe-standard, probe-new, linear probing 0.5, 0.8",
      {"probe_standard", "probe_new", "linear_probing_0.5", "linear_probing_0.8"},
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, {o.pick_size(kPaperN, kPaperN)}, "multiplicity",
                     o.full() ? kMultiplicities : kQuickProbeMultiplicities);
      },
      run_fig7));

  r.add_experiment(make_experiment(
      kPaper, "fig8", "Fig. 8", "V2 build and probe rate vs hash range (load factor 0.5: range 2N .. 4: range N/4)",
      {"build_v2", "probe_standard", "probe_new"},
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, {o.pick_size(kPaperN, kPaperN)}, "load_factor",
                     o.full() ? kLoads : std::vector<double>{0.5, 1.0, 2.0, 4.0});
      },
      run_fig8));

  r.add_experiment(make_experiment(
      kPaper, "fig9", "Fig. 9", "join (build + probe-new, count) of two random inputs vs the multi-core CPU hash join (MC-Hash stand-in); rate counts both inputs",
      {"hashgraph", "cpu_join"},
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, {o.pick_size(kPaperN, kPaperN)}, "multiplicity",
                     o.full() ? std::vector<double>{1, 2, 4, 8, 16, 32} : std::vector<double>{1, 4, 32});
      },
      run_fig9));

  r.add_experiment(make_experiment(
      kPaper, "largest_input", "Section 4", "the largest sequence input V2 builds on this GPU (load 1), its rate; the table checked whole on the device",
      {"v2"},
      [](const RunOptions& o, const Variants& v) {
        if (!o.sizes.empty()) return sweep(v, {o.sizes.front()}, "", {0});
        // Without a GPU (listing, dry runs on a CPU machine) the size shown is the paper's.
        return sweep(v, {o.gpu && gpu_available() ? largest_fitting_input() : kPaperN}, "", {0});
      },
      run_largest));

  r.add_demo({kPaper, "ten keys through V1 and V2: counts, offsets, edges, then both probes", /*needs_gpu=*/true, run_demo});
});

}  // namespace
}  // namespace hashlab::hashgraph
