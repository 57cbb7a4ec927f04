// Crystal's hash join (crystal_join.hpp): its build and probe kernels, after Crystal's
// src/ops/join.cu and crystal/join.cuh (BlockBuildSelectivePHT_2, BlockProbeAndPHT_2).
#include <cub/block/block_load.cuh>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>

#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/launch.cuh"
#include "hashlab/common/reduce.cuh"
#include "hashlab/common/sentinels.hpp"
#include "hashlab/pkpk_join/crystal_join.hpp"

namespace hashlab::pkpk {
namespace {

// The empty slot's key is kEmptyKey (Crystal clears its table to 0, its keys starting at 1; ours
// may be 0).
constexpr int kTileItems = kCrystalBlockThreads * kCrystalItemsPerThread;

/// The table: slot i is one 64-bit word, its key in the low 32 bits and its value in the high 32
/// (Crystal's ht[2 i], ht[2 i + 1], read by its probe as one word).
struct CrystalTable {
  std::uint64_t* slots;
  std::uint32_t num_slots;
  std::uint32_t key_min;

  /// Crystal's HASH(key, num_slots, keys_min) = (key - keys_min) % num_slots: a perfect hash when
  /// the keys lie in [key_min, key_min + num_slots).
  __device__ __forceinline__ std::uint32_t slot_of(std::uint32_t key) const { return (key - key_min) % num_slots; }
  __device__ __forceinline__ std::uint32_t* key_word(std::uint32_t slot) const {
    return reinterpret_cast<std::uint32_t*>(slots + slot);
  }
  __device__ __forceinline__ std::uint32_t* value_word(std::uint32_t slot) const {
    return reinterpret_cast<std::uint32_t*>(slots + slot) + 1;
  }
  /// The probe's lookup: reads the slot as one word; a match when it holds this very key. Crystal
  /// tests only that the slot is not empty, the same test when every probe key lies in R's range
  /// (its data); comparing the key keeps S's keys outside the range from matching.
  __device__ __forceinline__ bool find(std::uint32_t key, std::uint32_t& value) const {
    const std::uint64_t word = slots[slot_of(key)];
    value = static_cast<std::uint32_t>(word >> 32);
    return key != kEmptyKey && static_cast<std::uint32_t>(word) == key;
  }
};

/// The tile of `rows` rows that this block handles: its first row and how many of its 512 exist.
__device__ __forceinline__ int tile_rows(std::size_t rows, std::size_t& tile_offset) {
  tile_offset = blockIdx.x * std::size_t{kTileItems};
  return static_cast<int>(std::min<std::size_t>(kTileItems, rows - tile_offset));
}

/// Crystal's BlockLoad: thread t takes rows t, t + 128, t + 256, t + 384 of the tile (coalesced);
/// a full tile without bound checks.
template <typename T>
__device__ __forceinline__ void load_striped(const T* tile, int valid, T (&items)[kCrystalItemsPerThread]) {
  if (valid == kTileItems) cub::LoadDirectStriped<kCrystalBlockThreads>(static_cast<int>(threadIdx.x), tile, items);
  else cub::LoadDirectStriped<kCrystalBlockThreads>(static_cast<int>(threadIdx.x), tile, items, valid);
}

// Crystal's build_kernel<128, 4> (BlockBuildSelectivePHT_2): each of R's keys claims its slot with
// atomicCAS and stores its value beside. Crystal ignores what the CAS returns (no collision
// handling); we keep that (the value is stored either way) and flag it, so that a premise that
// does not hold is an error, not a wrong answer.
__global__ void __launch_bounds__(kCrystalBlockThreads)
    build_kernel(const std::uint32_t* __restrict__ keys, const std::uint32_t* __restrict__ values, std::size_t rows,
                 CrystalTable table, unsigned* errors) {
  std::size_t offset = 0;
  const int valid = tile_rows(rows, offset);
  std::uint32_t k[kCrystalItemsPerThread], v[kCrystalItemsPerThread];
  load_striped(keys + offset, valid, k);
  load_striped(values + offset, valid, v);
#pragma unroll
  for (int item = 0; item < kCrystalItemsPerThread; ++item) {
    if (static_cast<int>(threadIdx.x) + item * kCrystalBlockThreads >= valid) continue;
    const std::uint32_t slot = table.slot_of(k[item]);
    const std::uint32_t old = atomicCAS(table.key_word(slot), kEmptyKey, k[item]);
    *table.value_word(slot) = v[item];
    if (k[item] == kEmptyKey) atomicOr(errors, kCrystalEmptyKey);
    else if (old != kEmptyKey) atomicOr(errors, kCrystalSlotTaken);
  }
}

// Crystal's probe_kernel<128, 4> (BlockProbeAndPHT_2 and its sum): each of S's keys reads its slot;
// a match adds value2 x value1 to the thread's sum; one block-wide sum, one atomicAdd per block.
__global__ void __launch_bounds__(kCrystalBlockThreads)
    probe_kernel(const std::uint32_t* __restrict__ keys, const std::uint32_t* __restrict__ values, std::size_t rows,
                 CrystalTable table, unsigned long long* answer) {
  std::size_t offset = 0;
  const int valid = tile_rows(rows, offset);
  std::uint32_t k[kCrystalItemsPerThread], v[kCrystalItemsPerThread];
  load_striped(keys + offset, valid, k);
  load_striped(values + offset, valid, v);
  unsigned long long sum = 0;
#pragma unroll
  for (int item = 0; item < kCrystalItemsPerThread; ++item) {
    if (static_cast<int>(threadIdx.x) + item * kCrystalBlockThreads >= valid) continue;
    std::uint32_t joined = 0;
    if (table.find(k[item], joined)) sum += static_cast<unsigned long long>(v[item]) * joined;
  }
  const unsigned long long total = block_sum<kCrystalBlockThreads>(sum);
  if (threadIdx.x == 0) atomicAdd(answer, total);  // as Crystal: every block adds, a zero sum too
}

// Verification only (crystal_join_rows): the probe's lookup, each match written as a row at the
// next position of a counter; past `capacity` only counted.
__global__ void probe_rows_kernel(const std::uint32_t* __restrict__ keys, const std::uint32_t* __restrict__ values,
                                  std::size_t rows, CrystalTable table, unsigned long long* count,
                                  std::size_t capacity, std::uint32_t* out_key, std::uint32_t* out_value1,
                                  std::uint32_t* out_value2) {
  for (const std::size_t i : grid_stride(rows)) {
    std::uint32_t joined = 0;
    if (!table.find(keys[i], joined)) continue;
    const unsigned long long at = atomicAdd(count, 1ull);
    if (at >= capacity) continue;
    out_key[at] = keys[i];
    out_value1[at] = joined;
    out_value2[at] = values[i];
  }
}

unsigned blocks_for(std::size_t rows) { return static_cast<unsigned>((rows + kTileItems - 1) / kTileItems); }

void throw_on_errors(unsigned errors) {
  if (errors & kCrystalEmptyKey)
    throw std::invalid_argument("crystal_join: R holds the key 0xffffffff, which marks an empty slot");
  if (errors & kCrystalSlotTaken)
    throw std::invalid_argument(
        "crystal_join: two of R's keys took one slot (Crystal's table has no collision handling): a key repeats in R "
        "(the Pk-Pk join needs unique keys), or R's keys lie outside the key range the table was sized for");
}

void check_range(const KeyRange& range) {
  if (const std::string why = crystal_premise_violation(range); !why.empty())
    throw std::invalid_argument("crystal_join: " + why);
}

/// The table for R, built: memset and build (marked on `phases`). `errors` must be cleared.
DeviceBuffer<std::uint64_t> build_table(const TableView& r, const KeyRange& range, unsigned* errors,
                                        cudaStream_t stream, PhaseTimer* phases, CrystalTable& table,
                                        const std::function<void()>& clear_more) {
  const std::uint64_t slots = range.keys();
  DeviceBuffer<std::uint64_t> storage(slots, stream);
  table = {storage.data(), static_cast<std::uint32_t>(slots), range.min};
  timed_phase(phases, "memset", stream, static_cast<double>(slots), "slots", [&] {
    storage.fill_bytes(0xff, stream);  // every key word kEmptyKey
    clear_more();
  });
  timed_phase(phases, "build", stream, static_cast<double>(r.rows), "rows", [&] {
    build_kernel<<<blocks_for(r.rows), kCrystalBlockThreads, 0, stream>>>(r.keys, r.values, r.rows, table, errors);
    HASHLAB_CHECK_LAUNCH();
  });
  return storage;
}

}  // namespace

KeyRange key_range(const std::vector<std::uint32_t>& keys) {
  if (keys.empty()) return {};
  const auto [lo, hi] = std::minmax_element(keys.begin(), keys.end());
  return {*lo, *hi};
}

std::string crystal_premise_violation(const KeyRange& range) {
  if (range.max < range.min)
    return "the key range [" + std::to_string(range.min) + ", " + std::to_string(range.max) + "] is empty";
  if (range.keys() <= kCrystalMaxSlots) return "";
  return "R's keys span [" + std::to_string(range.min) + ", " + std::to_string(range.max) + "], " +
         std::to_string(range.keys()) + " keys: Crystal's perfect hash needs one slot per key of the range (its "
         "premise: dense keys), and its int slot index addresses at most 2^31 - 1 slots";
}

std::uint64_t CrystalJoinResult::read(cudaStream_t stream) const {
  if (sum.size() == 0) return 0;  // an empty table: nothing ran
  throw_on_errors(read_device_value(errors.data(), stream));
  return read_device_value(sum.data(), stream);
}

CrystalJoinResult crystal_join(const TableView& r, const TableView& s, const KeyRange& r_range, cudaStream_t stream,
                               PhaseTimer* phases) {
  validate(r, s);
  check_range(r_range);
  if (r.rows == 0 || s.rows == 0) return {};  // nothing joins an empty table: the sum is 0
  CrystalJoinResult out;
  out.sum = DeviceBuffer<unsigned long long>(1, stream);
  out.errors = DeviceBuffer<unsigned>(1, stream);
  CrystalTable table{};
  const DeviceBuffer<std::uint64_t> storage = build_table(r, r_range, out.errors.data(), stream, phases, table, [&] {
    out.sum.fill_bytes(0, stream);  // Crystal's second memset (res)
    out.errors.fill_bytes(0, stream);
  });
  timed_phase(phases, "probe", stream, static_cast<double>(s.rows), "rows", [&] {
    probe_kernel<<<blocks_for(s.rows), kCrystalBlockThreads, 0, stream>>>(s.keys, s.values, s.rows, table,
                                                                          out.sum.data());
    HASHLAB_CHECK_LAUNCH();
  });
  return out;  // the table is freed in stream order, after the probe
}

JoinedRows crystal_join_rows(const TableView& r, const TableView& s, const KeyRange& r_range, cudaStream_t stream) {
  validate(r, s);
  check_range(r_range);
  if (r.rows == 0 || s.rows == 0) return {};
  DeviceBuffer<unsigned> errors(1, stream);
  DeviceBuffer<unsigned long long> count(1, stream);
  CrystalTable table{};
  const DeviceBuffer<std::uint64_t> storage = build_table(r, r_range, errors.data(), stream, nullptr, table, [&] {
    errors.fill_bytes(0, stream);
    count.fill_bytes(0, stream);
  });
  const std::size_t capacity = std::min(r.rows, s.rows);
  JoinedRows out;
  out.key = DeviceBuffer<std::uint32_t>(capacity, stream);
  out.value1 = DeviceBuffer<std::uint32_t>(capacity, stream);
  out.value2 = DeviceBuffer<std::uint32_t>(capacity, stream);
  probe_rows_kernel<<<grid_for(s.rows), kDefaultBlock, 0, stream>>>(s.keys, s.values, s.rows, table, count.data(),
                                                                    capacity, out.key.data(), out.value1.data(),
                                                                    out.value2.data());
  HASHLAB_CHECK_LAUNCH();
  throw_on_errors(read_device_value(errors.data(), stream));
  const std::uint64_t rows = read_device_value(count.data(), stream);
  if (rows > capacity)
    throw std::invalid_argument("crystal_join_rows: " + std::to_string(rows) + " rows from |R| = " +
                                std::to_string(r.rows) + " and |S| = " + std::to_string(s.rows) +
                                ": a key repeats in S (the Pk-Pk join needs unique keys)");
  out.size = rows;
  return out;
}

std::uint64_t crystal_sum(const std::vector<JoinedRow>& rows) {
  std::uint64_t sum = 0;
  for (const JoinedRow& row : rows) sum += std::uint64_t{row.value1} * row.value2;
  return sum;
}

}  // namespace hashlab::pkpk
