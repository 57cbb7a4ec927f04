// Section 4.3.1.2: the short-circuit of Listing 4.1 vs the fix (skip repeated slots).
#include <string>
#include <vector>

#include "hashlab/common/threads.hpp"
#include "hashlab/cuckoo/cuckoo_table.hpp"

#include "experiments.hpp"
#include "inputs.cuh"
#include "builds.cuh"

namespace hashlab::cuckoo::experiments {
namespace {

// Paired single attempts: two tables with the same seed draw the same constants for their a-th
// attempt, one following the chapter's fix (skip repeated slots), one Listing 4.1 as printed
// (short-circuit). So each pair of attempts differs in the round-robin rule only. 4 functions,
// 1.25N, 7 lg N; every built table is checked by a lookup of every key.
void run_short_circuit(PointContext& ctx) {
  const Point& pt = ctx.point();
  auto& p = pairs(ctx, pt.n);
  // Small tables fail rarely even with the short-circuit (chapter: "an issue for tables containing
  // only a few hundred items"): many cheap attempts there, fewer at 1M.
  const int attempts = (pt.n <= 4096 ? 20000 : 128000) * (ctx.options().full() ? 2 : 1);
  // The two rules' attempts run side by side, each table on a host thread and a stream of its own:
  // an attempt is a few launches between two synchronisations (~0.1 ms of GPU work at 1M), and the
  // GPU fills one rule's gaps with the other's kernels. Each table draws its constants in order, so
  // attempt a of both still has the same ones. (The stream outlives the table whose buffers it frees.)
  Stream second;
  CuckooConfig config = config_from(ctx.options(), 4, 1.25);
  config.max_attempts = 1;
  CuckooHashTable fix(config);
  config.round_robin = RoundRobin::kShortCircuit;
  CuckooHashTable listing(config);
  std::vector<char> ok_fix(attempts), ok_listing(attempts);
  std::size_t wrong_fix = 0, wrong_listing = 0;
  HASHLAB_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));  // the pairs are on the device
  int device = 0;
  HASHLAB_CUDA_CHECK(cudaGetDevice(&device));
  cpu::run_threads(2, [&](unsigned t) {
    HASHLAB_CUDA_CHECK(cudaSetDevice(device));
    CuckooHashTable& table = t == 0 ? fix : listing;
    std::vector<char>& ok = t == 0 ? ok_fix : ok_listing;
    std::size_t& wrong = t == 0 ? wrong_fix : wrong_listing;
    const cudaStream_t stream = t == 0 ? ctx.stream() : second.get();
    DeviceCheck check;
    for (int a = 0; a < attempts; ++a)
      ok[a] = attempt_and_check(table, p.keys.data(), p.values.data(), pt.n, check, stream, wrong);
    HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  });
  int failed_fix = 0, failed_listing = 0, only_fix = 0, only_listing = 0, built = 0;
  for (int a = 0; a < attempts; ++a) {
    failed_fix += !ok_fix[a];
    failed_listing += !ok_listing[a];
    only_fix += !ok_fix[a] && ok_listing[a];
    only_listing += ok_fix[a] && !ok_listing[a];
    built += ok_fix[a] + ok_listing[a];
  }
  const std::size_t wrong = wrong_fix + wrong_listing;
  const double a = attempts;
  ctx.report_value("attempts", attempts, "count");
  ctx.report_value("failed_fraction_skip_repeated_slots", failed_fix / a, "fraction");
  ctx.report_value("failed_fraction_short_circuit", failed_listing / a, "fraction");
  // The paired differences: attempts that failed under one rule and built under the other.
  ctx.report_value("short_circuit_only_fraction", only_listing / a, "fraction");
  ctx.report_value("skip_repeated_slots_only_fraction", only_fix / a, "fraction");
  ctx.report_value("max_iterations", fix.stats().max_iterations, "count");
  ctx.verify(wrong == 0, std::to_string(wrong) + " lookups wrong over " + std::to_string(built) + " built tables");
}

}  // namespace

harness::Experiment short_circuit_experiment() {
  return make_experiment(
      "cuckoo", "short_circuit", "Section 4.3.1.2 (Listing 4.1's short-circuit)",
      "failed attempts, the short-circuit vs the fix: single attempts with the fix (skip repeated slots) and with "
      "Listing 4.1's short-circuit, the same constants for both, 1.25N, 4 functions, 7 lg N; 20000 attempts up to "
      "4096 items, 128000 at 1M (twice full)",
      {"cuckoo_4fn"},
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, o.pick_sizes({128, 256, 512, 4096, k1M}, {64, 128, 256, 512, 1024, 4096, 65536, k1M}));
      },
      run_short_circuit);
}

}  // namespace hashlab::cuckoo::experiments
