// Step 9 (Join Operation) of the report, shared by the BSP join and the full sort join, and the
// host-side joins (validation, the CPU reference and the CPU baseline as joined rows).
#include <algorithm>
#include <stdexcept>
#include <string>
#include <tuple>

#include "detail.cuh"
#include "hashlab/common/host_memory.hpp"
#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/launch.cuh"
#include "hashlab/common/primitives.hpp"
#include "hashlab/common/radix_sort.hpp"
#include "hashlab/common/threads.hpp"
#include "hashlab/reference/cpu_baselines.hpp"
#include "hashlab/reference/join.hpp"

namespace hashlab::pkpk {
namespace detail {
namespace {

constexpr std::uint64_t kNoRepeat = ~std::uint64_t{0};

/// Element i joins when its right neighbour has the same key and comes from the other table
/// (R sorts before S, so i is R's row and i + 1 is S's).
HASHLAB_DEVICE bool joins_next(const std::uint64_t* sorted, std::size_t n, std::size_t i) {
  return i + 1 < n && key_of(sorted[i]) == key_of(sorted[i + 1]) && table_of(sorted[i]) != table_of(sorted[i + 1]);
}

// Report, "Join After Sort": compare each element with its neighbour. Writes a 0/1 match flag
// per element (the scan turns them into output positions) and reports a key that two
// neighbours of one table share (a repeated primary key) as (key << 1 | table), the smallest.
__global__ void join_after_sort(const std::uint64_t* sorted, std::size_t n, std::uint32_t* match,
                                unsigned long long* repeated) {
  for (const std::size_t i : grid_stride(n)) {
    match[i] = joins_next(sorted, n, i) ? 1u : 0u;
    if (i + 1 < n && key_of(sorted[i]) == key_of(sorted[i + 1]) && table_of(sorted[i]) == table_of(sorted[i + 1]))
      atomicMin(repeated, (static_cast<unsigned long long>(key_of(sorted[i])) << 1) | table_of(sorted[i]));
  }
}

// The compaction the report's sparse 3·tid output leaves out: each match writes its row at the
// position the exclusive scan of the flags gave it; the values come from each table's row
// (the report's hmap1 / hmap2, here indexed by the row the element carried through the sort).
__global__ void write_joined_rows(const std::uint64_t* sorted, std::size_t n, const std::uint32_t* position,
                                  const std::uint32_t* r_values, const std::uint32_t* s_values,
                                  std::uint32_t* key, std::uint32_t* value1, std::uint32_t* value2) {
  for (const std::size_t i : grid_stride(n)) {
    if (!joins_next(sorted, n, i)) continue;
    const std::uint32_t at = position[i];
    key[at] = key_of(sorted[i]);
    value1[at] = r_values[row_of(sorted[i])];
    value2[at] = s_values[row_of(sorted[i + 1])];
  }
}

}  // namespace

JoinedRows join_sorted(const std::uint64_t* sorted, std::size_t n, const TableView& r, const TableView& s,
                       cudaStream_t stream, PhaseTimer* phases) {
  JoinedRows out;
  const std::size_t capacity = std::min(r.rows, s.rows);
  out.key = DeviceBuffer<std::uint32_t>(capacity, stream);
  out.value1 = DeviceBuffer<std::uint32_t>(capacity, stream);
  out.value2 = DeviceBuffer<std::uint32_t>(capacity, stream);
  DeviceBuffer<std::uint32_t> position(n + 1, stream);  // position[n]: the number of rows
  DeviceBuffer<unsigned long long> repeated(1, stream);
  repeated.fill_bytes(0xff, stream);
  HASHLAB_CUDA_CHECK(cudaMemsetAsync(position.data() + n, 0, sizeof(std::uint32_t), stream));

  const double rows = static_cast<double>(n);
  timed_phase(phases, "join", stream, rows, "rows", [&] {
    join_after_sort<<<grid_for(n), kDefaultBlock, 0, stream>>>(sorted, n, position.data(), repeated.data());
    HASHLAB_CHECK_LAUNCH();
  });
  timed_phase(phases, "compact_scan", stream, rows, "rows",
              [&] { prim::exclusive_scan(position.data(), position.data(), n + 1, stream); });
  timed_phase(phases, "compact_write", stream, rows, "rows", [&] {
    write_joined_rows<<<grid_for(n), kDefaultBlock, 0, stream>>>(sorted, n, position.data(), r.values, s.values,
                                                                   out.key.data(), out.value1.data(),
                                                                   out.value2.data());
    HASHLAB_CHECK_LAUNCH();
  });

  const unsigned long long repeat = read_device_value(repeated.data(), stream);
  if (repeat != kNoRepeat)
    throw std::invalid_argument("pkpk_join: key " + std::to_string(repeat >> 1) + " appears more than once in " +
                                ((repeat & 1u) ? "S" : "R") + " (a primary-key join needs unique keys in each table)");
  out.size = read_device_value(position.data() + n, stream);
  return out;
}

}  // namespace detail

std::vector<JoinedRow> JoinedRows::to_host(cudaStream_t stream) const {
  const auto k = key.to_host(stream, size);
  const auto v1 = value1.to_host(stream, size);
  const auto v2 = value2.to_host(stream, size);
  std::vector<JoinedRow> rows = cpu::zeroed_vector<JoinedRow>(size);
  // On all cores: the checks bring up to 10^8 rows back.
  cpu::parallel_for(size, cpu::threads_for_items(size), [&](std::size_t i) { rows[i] = {k[i], v1[i], v2[i]}; });
  return rows;
}

void validate(const TableView& r, const TableView& s) {
  for (const auto& [table, name] : {std::pair{&r, "R"}, std::pair{&s, "S"}}) {
    if (table->rows > kMaxRowsPerTable)
      throw std::invalid_argument(std::string("pkpk_join: table ") + name + " has " + std::to_string(table->rows) +
                                  " rows; at most " + std::to_string(kMaxRowsPerTable) +
                                  " fit the 31 row bits of a sorted element");
    if (table->rows > 0 && (table->keys == nullptr || table->values == nullptr))
      throw std::invalid_argument(std::string("pkpk_join: table ") + name + " has no key or value column");
  }
}

std::vector<JoinedRow> reference_join(const std::vector<std::uint32_t>& r_keys, const std::vector<std::uint32_t>& r_values,
                                      const std::vector<std::uint32_t>& s_keys, const std::vector<std::uint32_t>& s_values) {
  std::vector<JoinedRow> rows;
  for (const auto& row : reference::pkpk_join(r_keys, s_keys))
    rows.push_back({row.key, r_values.at(row.r_index), s_values.at(row.s_index)});
  return rows;
}

std::vector<JoinedRow> cpu_join(const std::vector<std::uint32_t>& r_keys, const std::vector<std::uint32_t>& r_values,
                                const std::vector<std::uint32_t>& s_keys, const std::vector<std::uint32_t>& s_values,
                                unsigned threads) {
  const auto pairs = cpu::parallel_join(r_keys, s_keys, threads);
  std::vector<JoinedRow> rows = cpu::zeroed_vector<JoinedRow>(pairs.size());
  // The rows gather from both tables (a cache miss each): on the join's threads too.
  cpu::parallel_for(pairs.size(), threads != 0 ? threads : cpu::threads_for_items(pairs.size()), [&](std::size_t i) {
    rows[i] = {r_keys[pairs[i].r_index], r_values[pairs[i].r_index], s_values[pairs[i].s_index]};
  });
  return rows;
}

std::vector<JoinedRow> sort_merge_join(const std::vector<std::uint32_t>& r_keys,
                                       const std::vector<std::uint32_t>& r_values,
                                       const std::vector<std::uint32_t>& s_keys,
                                       const std::vector<std::uint32_t>& s_values, unsigned threads) {
  for (const auto& [keys, values, name] : {std::tuple{&r_keys, &r_values, "R"}, std::tuple{&s_keys, &s_values, "S"}})
    if (keys->size() != values->size())
      throw std::invalid_argument(std::string("sort_merge_join: table ") + name + " has " +
                                  std::to_string(keys->size()) + " keys but " + std::to_string(values->size()) +
                                  " values");
  if (threads == 0) threads = cpu::threads_for_items(r_keys.size() + s_keys.size());
  auto key_of = [](std::uint64_t word) { return static_cast<std::uint32_t>(word >> 32); };
  // A table as (key, value) words in key order; a key seen twice is refused, as the reference does.
  auto sorted_words = [&](const std::vector<std::uint32_t>& keys, const std::vector<std::uint32_t>& values,
                          const char* name) {
    std::vector<std::uint64_t> words = cpu::zeroed_vector<std::uint64_t>(keys.size());
    cpu::parallel_for(keys.size(), threads,
                      [&](std::size_t i) { words[i] = std::uint64_t{keys[i]} << 32 | values[i]; });
    cpu::radix_sort(words, key_of, threads);
    const std::size_t pairs = words.empty() ? 0 : words.size() - 1;
    const std::size_t repeat =
        cpu::first_index_where(pairs, [&](std::size_t i) { return key_of(words[i]) == key_of(words[i + 1]); }, threads);
    if (repeat < pairs)
      throw std::invalid_argument("pkpk_join: key " + std::to_string(key_of(words[repeat])) + " appears twice in " +
                                  name + " (a primary-key join needs unique keys in each table)");
    return words;
  };
  const std::vector<std::uint64_t> r = sorted_words(r_keys, r_values, "R");
  const std::vector<std::uint64_t> s = sorted_words(s_keys, s_values, "S");
  // The merge on all cores: thread t takes R's words [chunk_begin(t), chunk_begin(t + 1)) and S's
  // from the first key not below its first; it counts its matches, then writes them at its offset.
  auto s_from = [&](std::size_t r_index) {  // S's first word whose key is not below R's word r_index
    if (r_index >= r.size()) return s.size();
    return static_cast<std::size_t>(std::lower_bound(s.begin(), s.end(), key_of(r[r_index]),
                                                     [&](std::uint64_t w, std::uint32_t k) { return key_of(w) < k; }) -
                                    s.begin());
  };
  auto merge = [&](unsigned t, auto&& emit) {
    std::size_t i = cpu::chunk_begin(t, threads, r.size());
    const std::size_t i_end = cpu::chunk_begin(t + 1, threads, r.size());
    std::size_t j = s_from(i);
    const std::size_t j_end = s_from(i_end);
    while (i < i_end && j < j_end) {
      if (key_of(r[i]) < key_of(s[j])) {
        ++i;
      } else if (key_of(s[j]) < key_of(r[i])) {
        ++j;
      } else {
        emit(JoinedRow{key_of(r[i]), static_cast<std::uint32_t>(r[i]), static_cast<std::uint32_t>(s[j])});
        ++i;
        ++j;
      }
    }
  };
  std::vector<std::size_t> offset(threads + 1, 0);
  cpu::run_threads(threads, [&](unsigned t) { merge(t, [&](const JoinedRow&) { ++offset[t + 1]; }); });
  for (unsigned t = 0; t < threads; ++t) offset[t + 1] += offset[t];
  std::vector<JoinedRow> rows = cpu::zeroed_vector<JoinedRow>(offset[threads]);
  cpu::run_threads(threads, [&](unsigned t) {
    std::size_t at = offset[t];
    merge(t, [&](const JoinedRow& row) { rows[at++] = row; });
  });
  return rows;
}

std::vector<JoinedRow> oracle_join(const std::vector<std::uint32_t>& r_keys, const std::vector<std::uint32_t>& r_values,
                                   const std::vector<std::uint32_t>& s_keys, const std::vector<std::uint32_t>& s_values,
                                   std::string* note) {
  const bool small = std::max(r_keys.size(), s_keys.size()) <= cpu::kOracleReferenceRows;
  if (note != nullptr) *note = small ? "" : "oracle: the sort-merge join on all cores (sort_merge_join)";
  if (small) return reference_join(r_keys, r_values, s_keys, s_values);
  return sort_merge_join(r_keys, r_values, s_keys, s_values);
}

}  // namespace hashlab::pkpk
