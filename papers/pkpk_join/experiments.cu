// The report's measurements as registered experiments (`hashlab run pkpk_join`), the scaling
// its future work asks for, the sweeps the report leaves open, and `hashlab demo pkpk_join`.
//
// Every point draws its two tables with the shared generator (gen::PkPkSpec) on the device,
// copies them to the host and verifies each variant's rows against the CPU join of the same
// tables (every point; see `expected_rows` for the oracle at the largest sizes).
#include <algorithm>
#include <array>
#include <cstdio>
#include <functional>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "hashlab/common/generator.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/harness/experiment.hpp"
#include "hashlab/pkpk_join/pkpk_join.hpp"

namespace hashlab::pkpk {
namespace {

using harness::make_experiment;
using harness::Point;
using harness::PointContext;
using harness::RunOptions;
using harness::sweep;
using harness::Variants;
using Keys = std::vector<std::uint32_t>;

constexpr std::uint64_t kReportRows = 1000000;        // report: data set sizes 10^6 and 10^6
constexpr std::uint64_t kReportKeyDomain = 100000000;  // report: key mod value 10^8
// Two independent tables of 10^6 random keys mod 10^8 share about 10^6 / 10^8 = 1% of keys.
constexpr double kReportMatchRate = 0.01;
constexpr double kSweepMatchRate = 0.5;  // the sweeps' default: half of S finds a partner
// Above this many rows per table the oracle is the multi-threaded CPU join (which the tests
// check equal to the single-threaded reference); the reference would take minutes.
constexpr std::uint64_t kReferenceOracleRows = 20000000;
// The CPU join is timed up to this many rows per table (it takes seconds beyond).
constexpr std::uint64_t kCpuMaxRowsQuick = 10000000;
constexpr std::uint64_t kCpuMaxRowsFull = 100000000;

/// Sorts joined rows by key (unique in a pk-pk join): an LSD radix sort, 8 bits a pass, about
/// 3x faster than std::sort, which took seconds of each 100M point's wall time.
void sort_by_key(std::vector<JoinedRow>& rows) {
  std::vector<JoinedRow> buffer(rows.size());
  for (int shift = 0; shift < 32; shift += 8) {
    std::array<std::size_t, 257> start{};
    for (const auto& row : rows) ++start[((row.key >> shift) & 0xffu) + 1];
    std::partial_sum(start.begin(), start.end(), start.begin());
    for (const auto& row : rows) buffer[start[(row.key >> shift) & 0xffu]++] = row;
    rows.swap(buffer);  // four passes: the sorted rows end in `rows`
  }
}

/// The smallest key domain >= the report's 10^8 that holds the keys `spec` needs, with room.
std::uint64_t domain_for(std::uint64_t r_rows, std::uint64_t s_rows) {
  return std::min<std::uint64_t>(gen::kMaxKeyDomain, std::max<std::uint64_t>(kReportKeyDomain, 2 * (r_rows + s_rows)));
}

// ---- inputs, shared by the variants of one point ---------------------------------------------

struct Input {
  gen::PkPkSpec spec;
  DeviceBuffer<std::uint32_t> r_keys, s_keys, r_values, s_values;
  Keys host_r_keys, host_s_keys, host_r_values, host_s_values;
  std::vector<JoinedRow> expected;  // sorted by key
  std::string oracle;

  TableView r() const { return {r_keys.data(), r_values.data(), spec.r_rows}; }
  TableView s() const { return {s_keys.data(), s_values.data(), spec.s_rows}; }
};

Input& input_for(PointContext& ctx, const gen::PkPkSpec& spec) {
  const std::string key = "input:" + spec.describe();
  return ctx.cached<Input>(key, [&] {
    ctx.drop_cached("input:");
    Input in;
    in.spec = spec;
    cudaStream_t st = ctx.stream();
    in.r_keys = DeviceBuffer<std::uint32_t>(spec.r_rows, st);
    in.s_keys = DeviceBuffer<std::uint32_t>(spec.s_rows, st);
    in.r_values = DeviceBuffer<std::uint32_t>(spec.r_rows, st);
    in.s_values = DeviceBuffer<std::uint32_t>(spec.s_rows, st);
    gen::generate_pkpk(spec, ctx.seed(), in.r_keys.data(), in.s_keys.data(), st);
    gen::generate_values<std::uint32_t>(ctx.seed() + 1, 0, 0xfffffffeu, in.r_values.data(), spec.r_rows, st);
    gen::generate_values<std::uint32_t>(ctx.seed() + 2, 0, 0xfffffffeu, in.s_values.data(), spec.s_rows, st);
    in.host_r_keys = in.r_keys.to_host(st);
    in.host_s_keys = in.s_keys.to_host(st);
    in.host_r_values = in.r_values.to_host(st);
    in.host_s_values = in.s_values.to_host(st);
    if (std::max(spec.r_rows, spec.s_rows) <= kReferenceOracleRows) {
      in.expected = reference_join(in.host_r_keys, in.host_r_values, in.host_s_keys, in.host_s_values);
      in.oracle = "";
    } else {
      in.expected = cpu_join(in.host_r_keys, in.host_r_values, in.host_s_keys, in.host_s_values);
      sort_by_key(in.expected);
      in.oracle = "oracle: multi-threaded CPU join (tested equal to the reference)";
    }
    return in;
  });
}

/// Checks `got` (sorted by key unless `sort_first`) against the oracle.
void verify_rows(PointContext& ctx, const Input& in, std::vector<JoinedRow> got, bool sort_first) {
  if (sort_first) sort_by_key(got);
  if (!in.oracle.empty()) ctx.note(in.oracle);
  if (got.size() != in.expected.size()) {
    ctx.verify(false, std::to_string(got.size()) + " rows, expected " + std::to_string(in.expected.size()));
    return;
  }
  const auto diff = std::mismatch(got.begin(), got.end(), in.expected.begin());
  ctx.verify(diff.first == got.end(),
             diff.first == got.end() ? "" : "row " + std::to_string(diff.first - got.begin()) + " differs (key " +
                                                std::to_string(diff.first->key) + ")");
}

void report_bucket_skew(PointContext& ctx, const BspTrace& trace) {
  ctx.report_value("partitions", trace.partitions, "count");
  ctx.report_value("max_bucket", static_cast<double>(trace.max_bucket), "rows");
  ctx.report_value("mean_bucket", trace.mean_bucket, "rows");
  ctx.report_value("bucket_skew", static_cast<double>(trace.max_bucket) / trace.mean_bucket, "max/mean");
}

/// Per-kernel medians over `runs` profiled runs: "kernel_<step>_time" and "kernel_<step>_rate"
/// rows, the rate in what the step itself processed (KernelTime::items: input rows for the steps
/// that pass over the data; samples, splitters or counts for those that never touch it).
void report_kernels(PointContext& ctx, const std::vector<std::vector<KernelTime>>& runs) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<double>> times;
  std::map<std::string, KernelTime> work;
  for (const auto& run : runs)
    for (const auto& k : run) {
      if (!times.count(k.kernel)) {
        order.push_back(k.kernel);
        work[k.kernel] = k;
      }
      times[k.kernel].push_back(k.ms);
    }
  double total = 0;
  for (const auto& name : order) {
    auto& t = times[name];
    std::sort(t.begin(), t.end());
    harness::Timing timing{t[t.size() / 2], t.front(), t.back(), static_cast<int>(t.size())};
    total += timing.median_ms;
    ctx.report_time("kernel_" + name, timing, work[name].items, work[name].item_unit);
  }
  ctx.report_value("kernel_sum_time", total, "ms");
}

/// The device memory `call` holds at its peak beyond what was in use before it (the inputs): the
/// high-water mark of the default pool's used memory, which every DeviceBuffer (and every cub
/// temporary of the joins) allocates from. Synchronises `stream` before and after.
double peak_device_bytes(cudaStream_t stream, const std::function<void()>& call) {
  HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  const DevicePeakScope scope;
  call();
  HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return static_cast<double>(scope.added());
}

/// Variant "h2d_pinned": the host-to-device copy of both tables (keys and values) from pinned
/// memory, the copy the report's nvprof table is 97% of. Timed like a join; verified by copying
/// the four device columns back and comparing them with the host tables.
void run_h2d_copy(PointContext& ctx, Input& in) {
  cudaStream_t st = ctx.stream();
  const std::vector<const Keys*> host = {&in.host_r_keys, &in.host_r_values, &in.host_s_keys, &in.host_s_values};
  std::vector<PinnedBuffer<std::uint32_t>> pinned;
  std::vector<DeviceBuffer<std::uint32_t>> device;
  pinned.reserve(host.size());
  device.reserve(host.size());
  double bytes = 0;
  for (const Keys* column : host) {
    pinned.emplace_back(column->size());
    std::copy(column->begin(), column->end(), pinned.back().begin());
    device.emplace_back(column->size(), st);
    bytes += static_cast<double>(column->size() * sizeof(std::uint32_t));
  }
  const auto t = ctx.time_gpu([&](cudaStream_t s) {
    for (std::size_t c = 0; c < host.size(); ++c) device[c].copy_from_host(pinned[c].data(), pinned[c].size(), s);
  });
  ctx.report_time("copy", t, bytes, "B");  // copy_rate in GB/s
  ctx.report_value("copy_bytes", bytes, "bytes");
  bool same = true;
  for (std::size_t c = 0; c < host.size(); ++c) same = same && device[c].to_host(st) == *host[c];
  ctx.verify(same, "the copied columns differ from the host tables");
}

/// One variant on one pair of tables: time, verify, and for BSP the bucket skew.
void run_variant(PointContext& ctx, const gen::PkPkSpec& spec, const BspOptions& bsp_options = {},
                 bool profile = false) {
  const Point& p = ctx.point();
  Input& in = input_for(ctx, spec);
  const double rows = static_cast<double>(spec.r_rows + spec.s_rows);
  cudaStream_t st = ctx.stream();
  if (p.variant == "cpu") {
    std::vector<JoinedRow> got;
    const auto t = ctx.time_host(
        [&] { got = cpu_join(in.host_r_keys, in.host_r_values, in.host_s_keys, in.host_s_values); });
    ctx.report_time("join", t, rows, "rows");
    ctx.report_value("rows_out", static_cast<double>(got.size()), "rows");
    if (!in.oracle.empty()) {
      // The oracle is this very CPU join at this size: check it against the reference instead.
      sort_by_key(got);
      const bool same = got == reference_join(in.host_r_keys, in.host_r_values, in.host_s_keys, in.host_s_values);
      ctx.note("verified against the single-threaded reference");
      ctx.verify(same, "the CPU join differs from the reference");
      return;
    }
    verify_rows(ctx, in, std::move(got), true);
    return;
  }
  if (p.variant == "h2d_pinned") {
    run_h2d_copy(ctx, in);
    return;
  }
  JoinedRows out;
  harness::Timing t;
  std::vector<std::vector<KernelTime>> kernel_runs;
  const int profiled_runs = profile ? ctx.options().effective_repetitions() : 0;
  // The join's own device memory at its peak (scratch and output, not the input tables), from one
  // more untimed run; `out` from the timed runs is released first so that it is not counted.
  auto report_peak = [&](const std::function<JoinedRows(cudaStream_t)>& join) {
    out = JoinedRows{};
    ctx.report_value("peak_device_bytes", peak_device_bytes(st, [&] { out = join(st); }), "bytes");
  };
  if (p.variant == "bsp" || p.variant == "bsp_atomic") {
    BspOptions options = bsp_options;
    options.atomic_scatter = p.variant == "bsp_atomic";
    t = ctx.time_gpu([&](cudaStream_t s) { out = bsp_join(in.r(), in.s(), s, options); });
    report_peak([&](cudaStream_t s) { return bsp_join(in.r(), in.s(), s, options); });
    BspTrace trace;
    trace.profile_kernels = profile;
    for (int i = 0; i < std::max(1, profiled_runs); ++i) {
      bsp_join(in.r(), in.s(), st, options, &trace);
      if (profile) kernel_runs.push_back(trace.kernel_times);
    }
    report_bucket_skew(ctx, trace);
  } else if (p.variant == "sort_join") {
    t = ctx.time_gpu([&](cudaStream_t s) { out = sort_join(in.r(), in.s(), s); });
    report_peak([&](cudaStream_t s) { return sort_join(in.r(), in.s(), s); });
    for (int i = 0; i < profiled_runs; ++i) {
      kernel_runs.emplace_back();
      sort_join(in.r(), in.s(), st, &kernel_runs.back());
    }
  } else if (p.variant == "sort_join_hmap") {
    t = ctx.time_gpu([&](cudaStream_t s) { out = hmap_sort_join(in.r(), in.s(), spec.key_domain, s); });
    report_peak([&](cudaStream_t s) { return hmap_sort_join(in.r(), in.s(), spec.key_domain, s); });
    for (int i = 0; i < profiled_runs; ++i) {
      kernel_runs.emplace_back();
      hmap_sort_join(in.r(), in.s(), spec.key_domain, st, &kernel_runs.back());
    }
  } else {
    t = ctx.time_gpu([&](cudaStream_t s) { out = hash_join(in.r(), in.s(), s); });
    report_peak([&](cudaStream_t s) { return hash_join(in.r(), in.s(), s); });
    for (int i = 0; i < profiled_runs; ++i) {
      kernel_runs.emplace_back();
      hash_join(in.r(), in.s(), st, &kernel_runs.back());
    }
  }
  ctx.report_time("join", t, rows, "rows");
  ctx.report_value("rows_out", static_cast<double>(out.size), "rows");
  if (profile) report_kernels(ctx, kernel_runs);
  verify_rows(ctx, in, out.to_host(st), p.variant == "hash_join");
}

const Variants kGpuVariants = {"bsp", "sort_join", "hash_join"};
// Measured where the report measures (1M, profile) and at scale (scaling): the values carried
// through the sort (sort_join) against the report's hmap1 / hmap2 lookups on bare keys
// (sort_join_hmap); the report's rejected atomic scatter (bsp_atomic) against its segmented prefix
// sum (bsp); the host-to-device copy of both tables (h2d_pinned) that the report's GPU time is 97%
// of; and the CPU join the report says the GPU join beats.
const Variants kAllVariants = {"bsp", "bsp_atomic", "sort_join", "sort_join_hmap", "hash_join", "h2d_pinned", "cpu"};

// ---- hashlab demo pkpk_join --------------------------------------------------------------------

std::string element(std::uint64_t e) {
  return std::to_string(key_of(e)) + (table_of(e) == kTableR ? "R" : "S") + std::to_string(row_of(e));
}

template <class T, class Show>
void print_row(const char* label, const std::vector<T>& v, Show show, std::size_t group = 0) {
  std::printf("  %-22s", label);
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (group != 0 && i != 0 && i % group == 0) std::printf(" |");
    std::printf(" %s", show(v[i]).c_str());
  }
  std::printf("\n");
}

int run_demo(const RunOptions& options) {
  // Two tables of eight keys; five keys are in both.
  const Keys r_keys = {17, 3, 42, 8, 25, 11, 30, 6};
  const Keys s_keys = {8, 50, 25, 3, 61, 30, 44, 17};
  Keys r_values(8), s_values(8);
  for (std::uint32_t i = 0; i < 8; ++i) {
    r_values[i] = 100 + i;
    s_values[i] = 200 + i;
  }
  Stream stream;  // before the buffers, which free on it
  auto dr = to_device(r_keys, stream), ds = to_device(s_keys, stream);
  auto drv = to_device(r_values, stream), dsv = to_device(s_values, stream);
  BspOptions bsp;
  bsp.tile = TileShape::kTeaching;
  bsp.seed = options.seed;
  BspTrace trace;
  trace.capture_arrays = true;
  const auto rows = bsp_join({dr.data(), drv.data(), 8}, {ds.data(), dsv.data(), 8}, stream, bsp, &trace)
                        .to_host(stream);
  auto num = [](auto x) { return std::to_string(x); };
  const std::size_t tile = tile_items(TileShape::kTeaching);

  std::printf("Dash, \"Parallel Pk-Pk Join Algorithm Using GPU Servers\": the BSP-sort pk-pk join, traced\n\n");
  std::printf("Step 1, Input Data: the primary keys of both tables in one array; each element is\n"
              "key + table + row (written 17R0: key 17, table R, row 0), packed in 64 bits.\n");
  print_row("R keys", r_keys, num);
  print_row("S keys", s_keys, num);
  std::printf("\nStep 2, Data Partitioning: blocks of %zu elements (BLOCK_THREADS x ITEMS_PER_THREAD;\n"
              "4096 in the real runs), p = %u blocks.\n", tile, trace.partitions);
  std::printf("Step 3, Radix Sort: each block sorted by cub::BlockRadixSort on (key, table).\n");
  print_row("blocks after sort", trace.block_sorted, element, tile);
  std::printf("\nStep 5, Evaluate Split values: log2(p) = %u random samples per block (cuRAND),\n"
              "sorted; the p-1 splitters are the equi-spaced samples (i+1)*S/p.\n", trace.samples_per_tile);
  print_row("samples", trace.samples, num, trace.samples_per_tile);
  print_row("sorted samples", trace.sorted_samples, num);
  print_row("splitters", trace.splitters, num);
  std::printf("\nStep 6, Distribution in Blocks: each element's bucket by binary search over the\n"
              "splitters (the number of splitters <= its key).\n");
  print_row("partition ids", trace.partition_ids, num, tile);
  std::printf("\nStep 7, Prefix Sum: counts[bucket][block] (shared-memory atomics), their exclusive\n"
              "prefix sum (cub::DeviceScan::ExclusiveSum) and each element's segmented prefix sum\n"
              "(its rank among its block's elements bound for the same bucket).\n");
  for (std::uint32_t b = 0; b < trace.partitions; ++b) {
    const std::vector<std::uint32_t> c(trace.counts.begin() + b * trace.tiles,
                                       trace.counts.begin() + (b + 1) * trace.tiles);
    const std::vector<std::uint32_t> o(trace.offsets.begin() + b * trace.tiles,
                                       trace.offsets.begin() + (b + 1) * trace.tiles);
    std::printf("  bucket %u: counts per block", b);
    for (auto x : c) std::printf(" %u", x);
    std::printf("   prefix sums");
    for (auto x : o) std::printf(" %u", x);
    std::printf("\n");
  }
  print_row("segmented prefix sum", trace.ranks, num, tile);
  std::printf("\nStep 8, Assigning to Blocks: element -> prefix sum of (its bucket, its block) + its\n"
              "segmented rank. Each bucket now holds one sorted run per source block; a local sort\n"
              "per bucket (cub::DeviceSegmentedRadixSort; the report's text skips it) orders it.\n");
  std::vector<std::uint64_t> bounds(1, 0);
  for (auto size : trace.bucket_sizes) bounds.push_back(bounds.back() + size);
  for (std::uint32_t b = 0; b < trace.partitions; ++b) {
    std::printf("  bucket %u:", b);
    std::printf("  assigned");
    for (auto i = bounds[b]; i < bounds[b + 1]; ++i) std::printf(" %s", element(trace.assigned[i]).c_str());
    std::printf("   after local sort");
    for (auto i = bounds[b]; i < bounds[b + 1]; ++i) std::printf(" %s", element(trace.sorted[i]).c_str());
    std::printf("\n");
  }
  std::printf("  bucket sizes: max %llu, mean %.1f\n", static_cast<unsigned long long>(trace.max_bucket),
              trace.mean_bucket);
  std::printf("\nStep 9, Join Operation: each element compared with its neighbour; equal keys from R\n"
              "and S join; the values come from each table's row (the report's hmap1 / hmap2), and\n"
              "a scan of the match flags compacts the output.\n");
  std::printf("  %-6s %-8s %-8s\n", "key", "value1", "value2");
  for (const auto& row : rows) std::printf("  %-6u %-8u %-8u\n", row.key, row.value1, row.value2);
  const auto expected = reference_join(r_keys, r_values, s_keys, s_values);
  std::printf("  %zu rows; the CPU reference join agrees: %s\n", rows.size(), rows == expected ? "yes" : "NO");

  std::printf("\nWhere to read the code (papers/pkpk_join/):\n"
              "  src/bsp_sort.cu     steps 1-8: block_sort, sample_elements, find_splitters, partition_ids,\n"
              "                      count_splits, segmented_prefix_sum, assign, the per-bucket sort\n"
              "  src/join.cu         step 9: join_after_sort, the compaction scan, write_joined_rows\n"
              "  src/comparators.cu  the full sort join and the hash join (Crystal stand-in)\n"
              "  experiments.cu      the report's profile, scaling and sweeps; README.md maps it all\n");
  return rows == expected ? 0 : 1;
}

const harness::Registrar registrar([](harness::Registry& r) {
  r.add_experiment(make_experiment(
      "pkpk_join", "profile", "NVPROF statistics table (1M x 1M, key mod 10^8) and the Crystal statistics",
      "time per kernel and peak device memory at the report's size: the BSP join (segmented prefix sum, and atomic "
      "scatter), the sort join (rows carried, and the report's bare keys + hmap1/hmap2) and the hash join; the "
      "pinned host-to-device copy of both tables; the CPU join",
      kAllVariants, [](const RunOptions& o, const Variants& v) { return sweep(v, {o.pick_size(kReportRows, kReportRows)}); },
      [](PointContext& ctx) {
        const std::uint64_t n = ctx.point().n;
        run_variant(ctx, {n, n, domain_for(n, n), kReportMatchRate}, {}, true);
      }));

  r.add_experiment(make_experiment(
      "pkpk_join", "scaling", "Future Work 3 (large datasets): 1M x 1M to 100M+ x 100M+",
      "join time and rate vs rows per table (match rate 0.5): BSP (and atomic scatter) vs full sort (and bare "
      "keys + hmaps) vs hash join vs CPU; time per kernel and peak device memory of the GPU joins and the pinned "
      "host-to-device copy of both tables at every size",
      kAllVariants,
      [](const RunOptions& o, const Variants& v) {
        // Beyond 100M as memory allows: 200M x 200M needs ~17 GB of the GPU (quick), 500M x 500M
        // ~44 GB (full; 1G x 1G would not fit 80 GB).
        const auto sizes = o.pick_sizes({1000000, 10000000, 100000000, 200000000},
                                        {1000000, 3000000, 10000000, 30000000, 100000000, 200000000, 500000000});
        const std::uint64_t cpu_max = o.full() ? kCpuMaxRowsFull : kCpuMaxRowsQuick;
        std::vector<Point> points;
        for (auto n : sizes)
          for (const auto& variant : v)
            if (variant != "cpu" || n <= cpu_max) points.push_back({variant, n, "", 0});
        return points;
      },
      [](PointContext& ctx) {
        const std::uint64_t n = ctx.point().n;
        // Profiled too: where the time goes at 100M+ (the report profiles 1M only).
        run_variant(ctx, {n, n, domain_for(n, n), kSweepMatchRate}, {}, /*profile=*/true);
      }));

  r.add_experiment(make_experiment(
      "pkpk_join", "match_rate", "sweep: match rate (the report fixes random keys, ~1%)",
      "join time vs the fraction of S's rows whose key is in R", kGpuVariants,
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, {o.pick_size(10000000, 50000000)}, "match_rate", {0.0, 0.01, 0.25, 0.5, 0.75, 1.0});
      },
      [](PointContext& ctx) {
        const std::uint64_t n = ctx.point().n;
        run_variant(ctx, {n, n, domain_for(n, n), ctx.point().param_value});
      }));

  r.add_experiment(make_experiment(
      "pkpk_join", "key_domain", "sweep: key domain (the report's key mod 10^8)",
      "join time vs the key domain, from dense (just enough keys) to 2^32 - 1", kGpuVariants,
      [](const RunOptions& o, const Variants& v) {
        const std::uint64_t n = o.pick_size(10000000, 50000000);
        // The densest domain holds exactly the keys the tables need (|R| + |S| / 2).
        return sweep(v, {n}, "key_domain",
                     {static_cast<double>(n + n / 2), 4.0 * n, 1e8, 1073741824.0, static_cast<double>(gen::kMaxKeyDomain)});
      },
      [](PointContext& ctx) {
        const std::uint64_t n = ctx.point().n;
        const auto dom = static_cast<std::uint64_t>(ctx.point().param_value);
        run_variant(ctx, {n, n, std::max<std::uint64_t>(dom, n + n / 2), kSweepMatchRate});
      }));

  r.add_experiment(make_experiment(
      "pkpk_join", "unequal_sizes", "sweep: unequal table sizes (the report joins equal sizes)",
      "join time vs |S| / |R| at a fixed |R| + |S| = 2n; half of R's keys find a partner", kGpuVariants,
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, {o.pick_size(10000000, 50000000)}, "size_ratio", {1, 3, 9, 99});
      },
      [](PointContext& ctx) {
        const std::uint64_t total = 2 * ctx.point().n;
        const auto ratio = static_cast<std::uint64_t>(ctx.point().param_value);
        const std::uint64_t r_rows = total / (1 + ratio), s_rows = total - r_rows;
        const double rate = 0.5 * static_cast<double>(r_rows) / static_cast<double>(s_rows);
        run_variant(ctx, {r_rows, s_rows, domain_for(r_rows, s_rows), rate});
      }));

  r.add_experiment(make_experiment(
      "pkpk_join", "partitions", "sweep: p, the number of buckets (p - 1 splitters, log2(p) samples per block)",
      "BSP join time and bucket skew (max / mean bucket) vs p", {"bsp"},
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, {o.pick_size(10000000, 50000000)}, "partitions", {16, 64, 256, 1024, 4096, 8192});
      },
      [](PointContext& ctx) {
        const std::uint64_t n = ctx.point().n;
        BspOptions options;
        options.partitions = static_cast<std::uint32_t>(ctx.point().param_value);
        run_variant(ctx, {n, n, domain_for(n, n), kSweepMatchRate}, options);
      }));

  r.add_demo({"pkpk_join", "two tables of eight keys through the report's nine steps", /*needs_gpu=*/true, run_demo});
});

}  // namespace
}  // namespace hashlab::pkpk
