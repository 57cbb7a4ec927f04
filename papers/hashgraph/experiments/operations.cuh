// The operations HashGraph's figures time: a HashGraph or linear-probing build, a probe of
// either, each checked against the CPU reference (operations.cu).
#pragma once

#include <cstdint>

#include "hashlab/hashgraph/hashgraph.hpp"
#include "hashlab/hashgraph/probe.hpp"
#include "inputs.cuh"

namespace hashlab::hashgraph::experiments {

/// Builds a HashGraph of `in` (timed), checks it against the input, reports "build" and the
/// bytes per key; with `trace_steps`, also the time of every step.
void time_hashgraph_build(PointContext& ctx, const Input& in, std::uint64_t n, double load, BuildOptions options,
                          bool trace_steps = false);
/// Builds the linear-probing table of `in` at `load` (timed), then finds every key (untimed).
void time_linear_probing_build(PointContext& ctx, const Input& in, std::uint64_t n, double load);
/// Probes a table of r with s (count only, timed), checks the count against the reference.
void time_hashgraph_probe(PointContext& ctx, const Input& r, const Input& s, std::uint64_t n, double load,
                          ProbeMethod method, std::uint64_t expected, std::uint32_t bins);
/// Probes the linear-probing table of r at `load` with s: per-query counts and their sum, timed.
void time_linear_probing_probe(PointContext& ctx, const Input& r, const Input& s, std::uint64_t n, double load,
                               std::uint64_t expected);

}  // namespace hashlab::hashgraph::experiments
