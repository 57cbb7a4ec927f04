// Section 4: the largest input that builds on this GPU.
#include <algorithm>
#include <cstdint>
#include <string>

#include "hashlab/common/device.hpp"
#include "hashlab/common/generator.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/hashgraph/hashgraph.hpp"

#include "experiments.hpp"
#include "inputs.cuh"

namespace hashlab::hashgraph::experiments {
namespace {

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

}  // namespace

harness::Experiment largest_input_experiment() {
  return make_experiment(
      kPaper, "largest_input", "Section 4", "the largest input V2 builds on this GPU: a sequence (load 1), its rate; the table checked whole on the device",
      {"v2"},
      [](const RunOptions& o, const Variants& v) {
        if (!o.sizes.empty()) return sweep(v, {o.sizes.front()}, "", {0});
        // Without a GPU (listing, dry runs on a CPU machine) the size shown is the paper's.
        return sweep(v, {o.gpu && gpu_available() ? largest_fitting_input() : kPaperN}, "", {0});
      },
      run_largest);
}

}  // namespace hashlab::hashgraph::experiments
