// Fig. 9: join of two random inputs vs the multi-core CPU hash join.
#include <cstdint>

#include "hashlab/common/memory.hpp"
#include "hashlab/hashgraph/hashgraph.hpp"
#include "hashlab/hashgraph/probe.hpp"
#include "hashlab/reference/cpu_baselines.hpp"

#include "experiments.hpp"
#include "inputs.cuh"
#include "operations.cuh"

namespace hashlab::hashgraph::experiments {
namespace {

void run_fig9(PointContext& ctx) {
  const Point& p = ctx.point();
  const JoinInputs in = join_inputs(ctx, p);
  const double both_inputs = 2.0 * static_cast<double>(p.n);  // section 5.4: "we diving 64M by the execution time"
  std::uint64_t got = 0;
  if (p.variant == "hashgraph") {
    // Section 5.4: "the sum of the time for hash-table building and probing" (probe-new, count only).
    const std::uint32_t bins = bins_option(ctx.options());
    HashGraph table(p.n, hash_range_for(p.n, kHashGraphLoad), {Version::kV2, bins}, ctx.stream());
    Prober prober(table, ProbeMethod::kNew, p.n, ctx.stream(), {Version::kV2, bins});
    DeviceBuffer<std::uint64_t> count(1, ctx.stream());
    const auto t = ctx.time_gpu([&](cudaStream_t st) {
      table.build(in.r.keys.data(), p.n, st);
      prober.count(in.s.keys.data(), p.n, count.data(), st);
    });
    ctx.report_time("join", t, both_inputs, "keys");
    got = read_device_value(count.data(), ctx.stream());
  } else {
    const auto t = ctx.time_host([&] { got = cpu::parallel_join_count(in.r.host, in.s.host); });
    ctx.report_time("join", t, both_inputs, "keys");
  }
  ctx.report_value("output_pairs", static_cast<double>(in.expected), "pairs");
  ctx.verify(got == in.expected, "join count " + std::to_string(got) + ", reference " + std::to_string(in.expected));
}

}  // namespace

harness::Experiment fig9_experiment() {
  return make_experiment(
      kPaper, "fig9", "Fig. 9", "join rate vs average appearances: build + probe-new (count) of two random inputs vs the multi-core CPU hash join "
      "(MC-Hash stand-in); the rate counts both inputs",
      {"hashgraph", "cpu_join"},
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, {o.pick_size(kPaperN, kPaperN)}, "multiplicity",
                     o.full() ? std::vector<double>{1, 2, 4, 8, 16, 32} : std::vector<double>{1, 4, 32});
      },
      run_fig9);
}

}  // namespace hashlab::hashgraph::experiments
