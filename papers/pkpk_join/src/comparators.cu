// The comparators of the BSP join: a full-device sort join (what the BSP steps replace) and the
// GPU hash join of common/ (the report's Crystal stand-in), both producing the same rows.
#include <cub/device/device_radix_sort.cuh>

#include "detail.cuh"
#include "hashlab/baselines/hash_join.hpp"
#include "hashlab/common/launch.cuh"

namespace hashlab::pkpk {
namespace {

// Step 1 written out: both key columns in one array of packed (key, table, row) elements.
__global__ void pack_elements(const std::uint32_t* r_keys, std::size_t r_rows, const std::uint32_t* s_keys,
                              std::size_t n, std::uint64_t* out) {
  for (std::size_t g = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; g < n;
       g += std::size_t{gridDim.x} * blockDim.x)
    out[g] = g < r_rows ? pack(r_keys[g], kTableR, g) : pack(s_keys[g - r_rows], kTableS, g - r_rows);
}

// The hash join's output pairs (R row, S row) as joined rows: the values are looked up by row,
// as the BSP join does.
__global__ void gather_rows(const std::uint32_t* r_index, const std::uint32_t* s_index, std::size_t m,
                            const std::uint32_t* s_keys, const std::uint32_t* r_values, const std::uint32_t* s_values,
                            std::uint32_t* key, std::uint32_t* value1, std::uint32_t* value2) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < m;
       i += std::size_t{gridDim.x} * blockDim.x) {
    key[i] = s_keys[s_index[i]];
    value1[i] = r_values[r_index[i]];
    value2[i] = s_values[s_index[i]];
  }
}

}  // namespace

JoinedRows sort_join(const TableView& r, const TableView& s, cudaStream_t stream, std::vector<KernelTime>* profile) {
  validate(r, s);
  if (r.rows == 0 || s.rows == 0) return {};  // nothing joins an empty table
  const std::size_t n = r.rows + s.rows;
  detail::KernelProfiler profiler(profile != nullptr);
  DeviceBuffer<std::uint64_t> elements(n, stream);
  DeviceBuffer<std::uint64_t> alternate(n, stream);
  cub::DoubleBuffer<std::uint64_t> keys(elements.data(), alternate.data());
  profiler.run("pack", stream, [&] {
    pack_elements<<<grid_for(n), kDefaultBlock, 0, stream>>>(r.keys, r.rows, s.keys, n, elements.data());
    HASHLAB_CHECK_LAUNCH();
  });
  profiler.run("device_radix_sort", stream, [&] {
    std::size_t bytes = 0;
    HASHLAB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, keys, n, kSortBeginBit, kSortEndBit, stream));
    DeviceBuffer<unsigned char> temp(bytes, stream);
    HASHLAB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp.data(), bytes, keys, n, kSortBeginBit, kSortEndBit, stream));
  });
  JoinedRows out = detail::join_sorted(keys.Current(), n, r, s, stream, profiler);
  if (profile != nullptr) *profile = profiler.results();
  return out;
}

JoinedRows hash_join(const TableView& r, const TableView& s, cudaStream_t stream, std::vector<KernelTime>* profile) {
  validate(r, s);
  if (r.rows == 0 || s.rows == 0) return {};  // nothing joins an empty table
  detail::KernelProfiler profiler(profile != nullptr);
  baseline::HashJoin join(0.5);
  profiler.run("build", stream, [&] { join.build(r.keys, r.rows, stream); });
  baseline::JoinOutput pairs;
  profiler.run("probe", stream, [&] { pairs = join.join(s.keys, s.rows, stream); });
  JoinedRows out;
  out.size = pairs.size;
  out.key = DeviceBuffer<std::uint32_t>(pairs.size, stream);
  out.value1 = DeviceBuffer<std::uint32_t>(pairs.size, stream);
  out.value2 = DeviceBuffer<std::uint32_t>(pairs.size, stream);
  profiler.run("gather", stream, [&] {
    if (pairs.size == 0) return;
    gather_rows<<<grid_for(pairs.size), kDefaultBlock, 0, stream>>>(pairs.r_index.data(), pairs.s_index.data(),
                                                                    pairs.size, s.keys, r.values, s.values,
                                                                    out.key.data(), out.value1.data(),
                                                                    out.value2.data());
    HASHLAB_CHECK_LAUNCH();
  });
  if (profile != nullptr) *profile = profiler.results();
  return out;
}

}  // namespace hashlab::pkpk
