// The operations each figure times (operations.cuh).
#include "operations.cuh"

#include <string>

#include "hashlab/baselines/linear_probing.hpp"
#include "hashlab/common/primitives.hpp"

namespace hashlab::hashgraph::experiments {
namespace {

/// The build's steps (V1's loops, V2's phases), each timed with CUDA events over traced builds
/// after the timed ones (PointContext::time_phases: warm-ups, then as many builds as the point
/// has repetitions): one "step_<name>_time" row per step, its median, and its rate over the keys,
/// vertices or bins the step walks. Sections 3.2 and 3.3. The graph holds the last traced build.
void report_build_steps(PointContext& ctx, HashGraph& graph, const Input& in, std::uint64_t n) {
  const auto steps =
      ctx.time_phases([&](PhaseTimer& phases, cudaStream_t s) { graph.build(in.keys.data(), n, s, &phases); });
  for (const auto& step : steps) ctx.report_time("step_" + step.name, step.timing, step.items, step.unit);
}

}  // namespace

/// Builds a HashGraph of `in` (timed), checks it against the input, reports "build" and the
/// bytes per key of the table, of the build's scratch and of both (the build's peak). With
/// `trace_steps`, also the time of every step (report_build_steps).
void time_hashgraph_build(PointContext& ctx, const Input& in, std::uint64_t n, double load, BuildOptions options,
                          bool trace_steps) {
  HashGraph graph(n, hash_range_for(n, load), options, ctx.stream());
  const auto t = ctx.time_gpu([&](cudaStream_t s) { graph.build(in.keys.data(), n, s); });
  ctx.report_time("build", t, static_cast<double>(n), "keys");
  const auto per_key = [n](std::size_t bytes) { return static_cast<double>(bytes) / static_cast<double>(n); };
  ctx.report_value("bytes_per_key", per_key(graph.table_bytes()), "B");
  ctx.report_value("scratch_bytes_per_key", per_key(graph.scratch_bytes()), "B");
  ctx.report_value("peak_bytes_per_key", per_key(graph.peak_bytes()), "B");
  if (trace_steps) report_build_steps(ctx, graph, in, n);  // the last traced build is the one checked
  // One host copy for the experiment's points: each overwrites it whole, and resizing it to the
  // same size (every point of a size) allocates nothing, where a fresh copy zeroed and faulted in
  // 12 bytes a key on one core. It holds the largest table checked so far, until the experiment ends.
  HostGraph& host = ctx.cached<HostGraph>("host_table", [] { return HostGraph{}; });
  graph.to_host(host, ctx.stream());
  const std::string problem = check_against_input(host, in.host);
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

}  // namespace hashlab::hashgraph::experiments
