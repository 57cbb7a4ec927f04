// `hashlab demo pkpk_join`: two tables of eight keys through the report's nine steps.
#include <cstdio>
#include <string>
#include <vector>

#include "experiments.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/pkpk_join/pkpk_join.hpp"
#include "inputs.cuh"

namespace hashlab::pkpk::experiments {
namespace {

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
              "  experiments/        the report's profile, scaling and sweeps; README.md maps it all\n");
  return rows == expected ? 0 : 1;
}

}  // namespace

harness::Demo demo() {
  return {"pkpk_join", "two tables of eight keys through the report's nine steps", /*needs_gpu=*/true, run_demo};
}

}  // namespace hashlab::pkpk::experiments
