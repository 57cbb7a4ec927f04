// Section 4.5.3's bandwidth shares: hash insertions 6%, radix sort 70% of the pin bandwidth.
#include "hashlab/baselines/sorted_array.hpp"
#include "hashlab/common/device.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/cuckoo/cost_model.hpp"
#include "hashlab/cuckoo/cuckoo_table.hpp"
#include "hashlab/harness/probe.hpp"

#include "experiments.hpp"
#include "inputs.cuh"
#include "builds.cuh"

namespace hashlab::cuckoo::experiments {
namespace {

// The DRAM pin bandwidth of the current device from its memory clock and bus width (0 when the
// driver does not report them).
double device_pin_bandwidth_gbps() {
  int device = 0, clock_khz = 0, bus_bits = 0;
  HASHLAB_CUDA_CHECK(cudaGetDevice(&device));
  if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device) != cudaSuccess) {
    (void)cudaGetLastError();  // clear the error the query left
    return 0;
  }
  return pin_bandwidth_gbps(clock_khz, bus_bits);
}

// CUB's onesweep radix sort (the sorted array's build) sorts 32-bit keys in 4 passes of 8-bit
// digits on sm_90 (ONESWEEP_RADIX_BITS = 8 in CUB's Policy900 of CUDA 13.0).
constexpr int kOnesweepPasses = 4;

// Bytes per pair in the timed region and the rate give the bandwidth each construction sustains,
// counted as the chapter counts it (8-byte accesses, see cost_model.hpp): the cuckoo build's
// random updates (16 B per atomicExch, counted by an instrumented build of the same input) and
// the sorted array's copy of the input (16 B) plus CUB's onesweep passes (4 + 4 x 16 B).
void run_bandwidth_share(PointContext& ctx) {
  const Point& pt = ctx.point();
  auto& p = pairs(ctx, pt.n);
  const double n = static_cast<double>(pt.n);
  DeviceBuffer<std::uint32_t> found(pt.n, ctx.stream());
  found.fill_bytes(0xff, ctx.stream());
  harness::Timing build;
  double bytes_per_pair = 0;
  if (pt.variant == "radix_sort") {
    baseline::SortedArray array;
    build = ctx.time_gpu([&](cudaStream_t s) { array.build(p.keys.data(), p.values.data(), pt.n, s); });
    bytes_per_pair = 2 * 8.0 + radix_sort_bytes_per_pair(kOnesweepPasses, false);
    array.find(p.keys.data(), pt.n, found.data(), ctx.stream());
  } else {
    CuckooHashTable table(config_from(ctx.options(), 4, 1.25));
    int builds = 0, attempts = 0;
    build = time_build(ctx, table, p, pt.n, builds, attempts);
    CuckooConfig counting = config_from(ctx.options(), 4, 1.25);
    counting.count_evictions = true;
    CuckooHashTable counted(counting);
    counted.build(p.keys.data(), p.values.data(), pt.n, ctx.stream());
    const double updates = static_cast<double>(counted.stats().exchanges) / n;
    bytes_per_pair = hash_update_bytes_per_pair(updates);
    ctx.report_value("updates_per_pair", updates, "count");
    // Everything the build moves, for comparison: the input pairs (8 B) and the table's
    // initialisation (8 B per slot) besides the random updates.
    ctx.report_value("all_bytes_per_pair", bytes_per_pair + 8.0 + 8.0 * table.table_size() / n, "B");
    table.find(p.keys.data(), pt.n, found.data(), ctx.stream());
  }
  ctx.report_time("build", build, n, "pairs");
  const double moved_gbps = bytes_per_pair * n / (build.median_ms * 1e-3) / 1e9;
  ctx.report_value("bytes_per_pair", bytes_per_pair, "B");
  ctx.report_value("moved_gbps", moved_gbps, "GB/s");
  const double pin = device_pin_bandwidth_gbps();
  if (pin > 0) {
    ctx.report_value("pin_bandwidth_gbps", pin, "GB/s");
    ctx.report_value("pin_share", moved_gbps / pin, "fraction");
  } else {
    ctx.note("the driver reports no memory clock or bus width: no pin bandwidth");
  }
  const auto& limits = device_limits(ctx);
  if (limits.copy_gbps > 0) ctx.report_value("copy_share", moved_gbps / limits.copy_gbps, "fraction");
  verify_all_found(ctx, found, p);
}

}  // namespace

harness::Experiment bandwidth_share_experiment() {
  harness::Experiment e = make_experiment(
      "cuckoo", "bandwidth_share", "Section 4.5.3 (bandwidth shares)",
      "share of the DRAM pin bandwidth: what the cuckoo build (1.25N, 4 functions) and the radix sort sustain, "
      "from their rates and the bytes they move, at 32M pairs (128M full)",
      {"cuckoo_1.25N", "radix_sort"},
      [](const RunOptions& o, const Variants& v) { return sweep(v, {o.pick_size(k32M, 1u << 27)}); },
      run_bandwidth_share);
  e.needs_limits = true;  // the cost model's (or the copy's) rates: the runner finds them once
  return e;
}

}  // namespace hashlab::cuckoo::experiments
