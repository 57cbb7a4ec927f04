// The comparators of the BSP join: a full-device sort join (what the BSP steps replace), the same
// with the report's element layout (bare keys, values from key-indexed maps), and the GPU hash
// join of common/ (the report's Crystal stand-in), all producing the same rows.
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "detail.cuh"
#include "hashlab/baselines/hash_join.hpp"
#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/launch.cuh"
#include "hashlab/common/primitives.hpp"

namespace hashlab::pkpk {
namespace {

// Step 1 written out: both key columns in one array of packed (key, table, row) elements.
__global__ void pack_elements(const std::uint32_t* r_keys, std::size_t r_rows, const std::uint32_t* s_keys,
                              std::size_t n, std::uint64_t* out) {
  for (const std::size_t g : grid_stride(n))
    out[g] = g < r_rows ? pack(r_keys[g], kTableR, g) : pack(s_keys[g - r_rows], kTableS, g - r_rows);
}

// The hash join's output pairs (R row, S row) as joined rows: the values are looked up by row,
// as the BSP join does.
__global__ void gather_rows(const std::uint32_t* r_index, const std::uint32_t* s_index, std::size_t m,
                            const std::uint32_t* s_keys, const std::uint32_t* r_values, const std::uint32_t* s_values,
                            std::uint32_t* key, std::uint32_t* value1, std::uint32_t* value2) {
  for (const std::size_t i : grid_stride(m)) {
    key[i] = s_keys[s_index[i]];
    value1[i] = r_values[r_index[i]];
    value2[i] = s_values[s_index[i]];
  }
}

// The report's hmap1 / hmap2: hmap[key] = the value of the row with that key. Domain-sized; only
// the entries of keys present are written, and only keys present in both tables are read. A key
// outside the domain is skipped and flagged (the join then throws).
__global__ void fill_hmap(const std::uint32_t* keys, const std::uint32_t* values, std::size_t rows,
                          std::uint64_t key_domain, std::uint32_t* hmap, unsigned* out_of_domain) {
  for (const std::size_t i : grid_stride(rows)) {
    const std::uint32_t key = keys[i];
    if (key < key_domain) hmap[key] = values[i];
    else atomicOr(out_of_domain, 1u);
  }
}

/// Bare keys: element i joins when its right neighbour holds the same key (with unique keys in
/// each table, one of the two is R's and the other S's).
HASHLAB_DEVICE bool bare_joins_next(const std::uint32_t* sorted, std::size_t n, std::size_t i) {
  return i + 1 < n && sorted[i] == sorted[i + 1];
}

// Report, "Join After Sort" on bare keys: the 0/1 match flags that the scan turns into positions.
__global__ void match_bare_keys(const std::uint32_t* sorted, std::size_t n, std::uint32_t* match) {
  for (const std::size_t i : grid_stride(n))
    match[i] = bare_joins_next(sorted, n, i) ? 1u : 0u;
}

// The compacted rows, values looked up by key as the report's JoinKernel does (hmap1[k], hmap2[k]).
__global__ void write_hmap_rows(const std::uint32_t* sorted, std::size_t n, const std::uint32_t* position,
                                const std::uint32_t* hmap1, const std::uint32_t* hmap2, std::uint32_t* key,
                                std::uint32_t* value1, std::uint32_t* value2) {
  for (const std::size_t i : grid_stride(n)) {
    if (!bare_joins_next(sorted, n, i)) continue;
    const std::uint32_t k = sorted[i];
    const std::uint32_t at = position[i];
    key[at] = k;
    value1[at] = hmap1[k];
    value2[at] = hmap2[k];
  }
}

// Keys are unique in each table, so a Pk-Pk join gives at most min(|R|, |S|) rows; more means a
// key repeats within a table (which these two joins cannot see directly).
void refuse_more_rows_than_a_pk_join_gives(const char* join, std::uint64_t rows, const TableView& r,
                                          const TableView& s) {
  if (rows > std::min(r.rows, s.rows))
    throw std::invalid_argument(std::string(join) + ": " + std::to_string(rows) + " rows from |R| = " +
                                std::to_string(r.rows) + " and |S| = " + std::to_string(s.rows) +
                                ": a key repeats within a table (the Pk-Pk join needs unique keys)");
}

}  // namespace

JoinedRows hmap_sort_join(const TableView& r, const TableView& s, std::uint64_t key_domain, cudaStream_t stream,
                          PhaseTimer* phases) {
  validate(r, s);
  if (key_domain == 0 || key_domain > (std::uint64_t{1} << 32))
    throw std::invalid_argument("hmap_sort_join: the key domain must lie in [1, 2^32], got " +
                                std::to_string(key_domain));
  if (r.rows == 0 || s.rows == 0) return {};  // nothing joins an empty table
  const std::size_t n = r.rows + s.rows;
  DeviceBuffer<std::uint32_t> hmap1(key_domain, stream), hmap2(key_domain, stream);
  DeviceBuffer<unsigned> out_of_domain(1, stream);
  out_of_domain.fill_bytes(0, stream);
  const double rows = static_cast<double>(n);
  timed_phase(phases, "hmaps", stream, rows, "rows", [&] {
    fill_hmap<<<grid_for(r.rows), kDefaultBlock, 0, stream>>>(r.keys, r.values, r.rows, key_domain, hmap1.data(),
                                                              out_of_domain.data());
    HASHLAB_CHECK_LAUNCH();
    fill_hmap<<<grid_for(s.rows), kDefaultBlock, 0, stream>>>(s.keys, s.values, s.rows, key_domain, hmap2.data(),
                                                              out_of_domain.data());
    HASHLAB_CHECK_LAUNCH();
  });
  // Step 1 as the report writes it: both key columns in one array of bare keys.
  DeviceBuffer<std::uint32_t> elements(n, stream), alternate(n, stream);
  timed_phase(phases, "concat", stream, rows, "rows", [&] {
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(elements.data(), r.keys, r.rows * sizeof(std::uint32_t),
                                       cudaMemcpyDeviceToDevice, stream));
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(elements.data() + r.rows, s.keys, s.rows * sizeof(std::uint32_t),
                                       cudaMemcpyDeviceToDevice, stream));
  });
  cub::DoubleBuffer<std::uint32_t> keys(elements.data(), alternate.data());
  timed_phase(phases, "device_radix_sort", stream, rows, "rows", [&] {
    std::size_t bytes = 0;
    HASHLAB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, keys, n, 0, 32, stream));
    DeviceBuffer<unsigned char> temp(bytes, stream);
    HASHLAB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp.data(), bytes, keys, n, 0, 32, stream));
  });
  const std::uint32_t* sorted = keys.Current();
  DeviceBuffer<std::uint32_t> position(n + 1, stream);  // position[n]: the number of rows
  HASHLAB_CUDA_CHECK(cudaMemsetAsync(position.data() + n, 0, sizeof(std::uint32_t), stream));
  timed_phase(phases, "join", stream, rows, "rows", [&] {
    match_bare_keys<<<grid_for(n), kDefaultBlock, 0, stream>>>(sorted, n, position.data());
    HASHLAB_CHECK_LAUNCH();
  });
  timed_phase(phases, "compact_scan", stream, rows, "rows",
              [&] { prim::exclusive_scan(position.data(), position.data(), n + 1, stream); });
  // The one synchronisation: the output is sized exactly, so even repeated keys (which this
  // join does not detect) cannot write past it.
  if (read_device_value(out_of_domain.data(), stream) != 0)
    throw std::invalid_argument("hmap_sort_join: a key lies outside the key domain [0, " + std::to_string(key_domain) +
                                ") of the maps hmap1 / hmap2");
  JoinedRows out;
  out.size = read_device_value(position.data() + n, stream);
  refuse_more_rows_than_a_pk_join_gives("hmap_sort_join", out.size, r, s);
  out.key = DeviceBuffer<std::uint32_t>(out.size, stream);
  out.value1 = DeviceBuffer<std::uint32_t>(out.size, stream);
  out.value2 = DeviceBuffer<std::uint32_t>(out.size, stream);
  timed_phase(phases, "compact_write", stream, rows, "rows", [&] {
    if (out.size == 0) return;
    write_hmap_rows<<<grid_for(n), kDefaultBlock, 0, stream>>>(sorted, n, position.data(), hmap1.data(),
                                                                 hmap2.data(), out.key.data(), out.value1.data(),
                                                                 out.value2.data());
    HASHLAB_CHECK_LAUNCH();
  });
  return out;
}

JoinedRows sort_join(const TableView& r, const TableView& s, cudaStream_t stream, PhaseTimer* phases) {
  validate(r, s);
  if (r.rows == 0 || s.rows == 0) return {};  // nothing joins an empty table
  const std::size_t n = r.rows + s.rows;
  DeviceBuffer<std::uint64_t> elements(n, stream);
  DeviceBuffer<std::uint64_t> alternate(n, stream);
  cub::DoubleBuffer<std::uint64_t> keys(elements.data(), alternate.data());
  const double rows = static_cast<double>(n);
  timed_phase(phases, "pack", stream, rows, "rows", [&] {
    pack_elements<<<grid_for(n), kDefaultBlock, 0, stream>>>(r.keys, r.rows, s.keys, n, elements.data());
    HASHLAB_CHECK_LAUNCH();
  });
  timed_phase(phases, "device_radix_sort", stream, rows, "rows", [&] {
    std::size_t bytes = 0;
    HASHLAB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, keys, n, kSortBeginBit, kSortEndBit, stream));
    DeviceBuffer<unsigned char> temp(bytes, stream);
    HASHLAB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp.data(), bytes, keys, n, kSortBeginBit, kSortEndBit, stream));
  });
  return detail::join_sorted(keys.Current(), n, r, s, stream, phases);
}

JoinedRows hash_join(const TableView& r, const TableView& s, cudaStream_t stream, PhaseTimer* phases) {
  validate(r, s);
  if (r.rows == 0 || s.rows == 0) return {};  // nothing joins an empty table
  baseline::HashJoin join(0.5);
  // Each step's rate counts the rows it reads: R's to build, S's to probe, the output's to gather.
  timed_phase(phases, "build", stream, static_cast<double>(r.rows), "rows",
              [&] { join.build(r.keys, r.rows, stream); });
  baseline::JoinOutput pairs;
  timed_phase(phases, "probe", stream, static_cast<double>(s.rows), "rows",
              [&] { pairs = join.join(s.keys, s.rows, stream); });
  refuse_more_rows_than_a_pk_join_gives("hash_join", pairs.size, r, s);
  JoinedRows out;
  out.size = pairs.size;
  out.key = DeviceBuffer<std::uint32_t>(pairs.size, stream);
  out.value1 = DeviceBuffer<std::uint32_t>(pairs.size, stream);
  out.value2 = DeviceBuffer<std::uint32_t>(pairs.size, stream);
  timed_phase(phases, "gather", stream, static_cast<double>(pairs.size), "rows", [&] {
    if (pairs.size == 0) return;
    gather_rows<<<grid_for(pairs.size), kDefaultBlock, 0, stream>>>(pairs.r_index.data(), pairs.s_index.data(),
                                                                    pairs.size, s.keys, r.values, s.values,
                                                                    out.key.data(), out.value1.data(),
                                                                    out.value2.data());
    HASHLAB_CHECK_LAUNCH();
  });
  return out;
}

}  // namespace hashlab::pkpk
