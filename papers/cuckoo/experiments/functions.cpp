// Section 4.3.1.1's number of hash functions: more functions build faster, retrieve slower.
#include <algorithm>
#include <string>

#include "hashlab/common/memory.hpp"
#include "hashlab/cuckoo/cuckoo_table.hpp"

#include "experiments.hpp"
#include "inputs.cuh"
#include "builds.cuh"

namespace hashlab::cuckoo::experiments {
namespace {

void run_functions(PointContext& ctx) {
  const Point& pt = ctx.point();
  auto& p = pairs(ctx, pt.n, true);
  const int functions = static_cast<int>(pt.param_value);
  const double space = pt.variant == "cuckoo_2.5N" ? 2.5 : 1.25;
  CuckooHashTable table(config_from(ctx.options(), functions, space));
  int builds = 0, attempts = 0;
  harness::Timing build;
  try {
    build = time_build(ctx, table, p, pt.n, builds, attempts);
  } catch (const BuildFailure& e) {
    // An outcome the sweep measures (two functions near their minimum space, 4.3.1.1), not an
    // error: no attempt built the table. Recorded, with nothing to time or look up.
    ctx.report_value("built", 0, "bool");
    ctx.report_value("attempts", table.config().max_attempts, "count");
    ctx.report_value("builds_before_failure", builds, "count");  // the warm-up and timed builds that did
    ctx.note(std::string("no table built: ") + e.what());
    ctx.verify(true);
    return;
  }
  ctx.report_value("built", 1, "bool");
  DeviceBuffer<std::uint32_t> found(pt.n, ctx.stream()), missed(pt.n, ctx.stream());
  found.fill_bytes(0, ctx.stream());
  missed.fill_bytes(0, ctx.stream());
  const auto hit = ctx.time_gpu([&](cudaStream_t s) { table.find(p.keys.data(), pt.n, found.data(), s); });
  const auto miss = ctx.time_gpu([&](cudaStream_t s) { table.find(p.absent.data(), pt.n, missed.data(), s); });
  ctx.report_time("build", build, static_cast<double>(pt.n), "pairs");
  ctx.report_time("retrieve", hit, static_cast<double>(pt.n), "queries");
  ctx.report_time("retrieve_absent", miss, static_cast<double>(pt.n), "queries");
  ctx.report_value("restarts_per_build", static_cast<double>(attempts - builds) / builds, "count");
  verify_all_found(ctx, found, p);
  // The absent keys come from the same unique draw as the inserted ones: every answer is NOT_FOUND.
  const auto got = missed.to_host(ctx.stream());
  const auto wrong = std::count_if(got.begin(), got.end(), [](std::uint32_t v) { return v != kNotFound; });
  ctx.verify(wrong == 0, std::to_string(wrong) + " absent keys were reported found");
}

}  // namespace

harness::Experiment functions_experiment() {
  return make_experiment(
      "cuckoo", "functions", "Section 4.3.1.1 (number of hash functions)",
      "time vs number of hash functions: build, retrieval and absent-key retrieval; 3..5 at 1.25N, 2..5 at 2.5N",
      {"cuckoo_1.25N", "cuckoo_2.5N"},
      [](const RunOptions& o) {
        const std::uint64_t n = o.pick_size(1u << 24, k32M);
        std::vector<Point> points;
        for (int k : {3, 4, 5}) points.push_back({"cuckoo_1.25N", n, "hash_functions", static_cast<double>(k)});
        for (int k : {2, 3, 4, 5}) points.push_back({"cuckoo_2.5N", n, "hash_functions", static_cast<double>(k)});
        return points;
      },
      run_functions);
}

}  // namespace hashlab::cuckoo::experiments
