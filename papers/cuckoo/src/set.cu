// Section 4.4: the cuckoo set (insertion and cleanup) and the compacting hash table (IDs by a
// prefix sum, interleaving, compacted list).
#include "detail.cuh"
#include "hashlab/common/dispatch.hpp"
#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/launch.cuh"
#include "hashlab/common/primitives.hpp"
#include "hashlab/cuckoo/set.hpp"

namespace hashlab::cuckoo {
namespace {

// Section 4.4, sets: as Listing 4.1 with 32-bit slots holding keys only; a thread also stops
// when it exchanged two copies of the same key (one copy is dropped, the other stays).
// kShortCircuit: Listing 4.1's own round robin (CuckooConfig::round_robin).
template <HashKind H, int K, bool kShortCircuit>
__global__ void set_insert(const std::uint32_t* keys, std::size_t n, std::uint32_t* table, HashFunctions f,
                           std::uint32_t max_iterations, std::uint32_t* status) {
  const std::size_t thread_index = global_thread_index();
  if (thread_index >= n) return;
  std::uint32_t key = keys[thread_index];
  if (key == kEmptyKey) {
    atomicOr(status, detail::kStatusReservedKey);
    return;
  }
  std::uint32_t location = hash_slot<H>(f.c[0], key, f.table_size);
  for (std::uint32_t its = 0; its < max_iterations; ++its) {
    const std::uint32_t evicted = atomicExch(&table[location], key);
    if (evicted == kEmptyKey || evicted == key) return;
    key = evicted;
    std::uint32_t loc[K];
    detail::all_locations<H, K>(f, key, loc);
    if constexpr (kShortCircuit) location = next_location_short_circuit<K>(loc, location);
    else location = next_location<K>(loc, location);
  }
  atomicOr(status, detail::kStatusFailed);
}

// Section 4.4, the set's cleanup phase: a key may still sit in several of its slots; keep the
// copy in the slot that comes first in the order h_1, h_2, ... and erase the others. The kept
// copy is never erased, so every other copy sees it whatever the order of the threads.
// With `first_copy`, write 1 for a kept key and 0 for an empty or erased slot (the values the
// compacting table's prefix sum turns into IDs).
template <HashKind H, int K>
__global__ void set_cleanup(std::uint32_t* table, HashFunctions f, std::uint32_t* first_copy) {
  for (const std::size_t s : grid_stride(f.table_size)) {
    const std::uint32_t key = table[s];
    bool keep = key != kEmptyKey;
    if (keep) {
      std::uint32_t loc[K];
      detail::all_locations<H, K>(f, key, loc);
      bool before = true;  // loc[j] comes before slot s in the key's order
#pragma unroll
      for (int j = 0; j < K; ++j) {
        if (loc[j] == s) before = false;
        if (before && keep && static_cast<volatile const std::uint32_t*>(table)[loc[j]] == key) keep = false;
      }
      if (!keep) table[s] = kEmptyKey;
    }
    if (first_copy != nullptr) first_copy[s] = keep ? 1u : 0u;
  }
}

// Section 4.3.2 for a set: is the key in one of its K slots?
template <HashKind H, int K>
__global__ void set_contains(const std::uint32_t* table, HashFunctions f, const std::uint32_t* queries, std::size_t n,
                             std::uint8_t* out) {
  for (const std::size_t i : grid_stride(n)) {
    const std::uint32_t key = queries[i];
    bool found = false;
    if (key != kEmptyKey) {
#pragma unroll
      for (int j = 0; j < K; ++j)
        if (!found && table[hash_slot<H>(f.c[j], key, f.table_size)] == key) found = true;
    }
    out[i] = found ? 1 : 0;
  }
}

// Section 4.4, compacting table: interleave each kept key with its ID (the prefix sum of the
// first-copy values) in a 64-bit slot, and write the key to position ID of the compacted list.
__global__ void interleave_ids(const std::uint32_t* set_slots, const std::uint32_t* ids, std::size_t size,
                               std::uint64_t* slots, std::uint32_t* compacted_keys) {
  for (const std::size_t s : grid_stride(size)) {
    const std::uint32_t key = set_slots[s];
    if (key == kEmptyKey) {
      slots[s] = kEmptyEntry;
    } else {
      slots[s] = make_entry(key, ids[s]);
      compacted_keys[ids[s]] = key;
    }
  }
}

}  // namespace

CuckooSet::CuckooSet(const CuckooConfig& config) : config_(config), rng_(config.seed) { config_.validate(); }

void CuckooSet::build(const std::uint32_t* keys, std::size_t n, cudaStream_t stream) {
  build_with_flags(keys, n, nullptr, stream);
}

void CuckooSet::build_with_flags(const std::uint32_t* keys, std::size_t n, std::uint32_t* first_copy,
                                 cudaStream_t stream) {
  stats_ = detail::build_parameters(config_, n);
  if (slots_.size() != stats_.table_size) slots_ = DeviceBuffer<std::uint32_t>(stats_.table_size, stream);
  if (status_.empty()) status_ = DeviceBuffer<std::uint32_t>(1, stream);
  const unsigned blocks = static_cast<unsigned>(div_up<std::size_t>(n, static_cast<std::size_t>(config_.block_size)));
  auto attempt = [&](const HashFunctions& f) {
    slots_.fill_bytes(0xff, stream);  // every slot kEmptyKey
    status_.fill_bytes(0, stream);
    if (n == 0) return;
    const bool short_circuit = config_.round_robin == RoundRobin::kShortCircuit;
    detail::dispatch(f.kind, f.count, [&](auto kind_c, auto count_c) {
      constexpr HashKind H = decltype(kind_c)::value;
      constexpr int K = decltype(count_c)::value;
      dispatch_bool(short_circuit, [&](auto short_circuit_c) {
        set_insert<H, K, decltype(short_circuit_c)::value><<<blocks, config_.block_size, 0, stream>>>(
            keys, n, slots_.data(), f, stats_.max_iterations, status_.data());
      });
      HASHLAB_CHECK_LAUNCH();
    });
  };
  try {
    stats_.attempts = detail::build_with_restarts("CuckooSet::build", n, stats_.table_size, stats_.max_iterations,
                                                  config_, rng_, functions_, status_.data(), stream, attempt);
  } catch (...) {
    slots_ = DeviceBuffer<std::uint32_t>();  // a failed build leaves no set: contains() refuses
    throw;
  }
  detail::dispatch(functions_.kind, functions_.count, [&](auto kind_c, auto count_c) {
    set_cleanup<decltype(kind_c)::value, decltype(count_c)::value>
        <<<grid_for(stats_.table_size), kDefaultBlock, 0, stream>>>(slots_.data(), functions_, first_copy);
    HASHLAB_CHECK_LAUNCH();
  });
}

void CuckooSet::contains(const std::uint32_t* queries, std::size_t n, std::uint8_t* out, cudaStream_t stream) const {
  if (n == 0) return;
  if (slots_.empty()) throw std::logic_error("CuckooSet::contains before a successful build");
  detail::dispatch(functions_.kind, functions_.count, [&](auto kind_c, auto count_c) {
    set_contains<decltype(kind_c)::value, decltype(count_c)::value>
        <<<grid_for(n), kDefaultBlock, 0, stream>>>(slots_.data(), functions_, queries, n, out);
    HASHLAB_CHECK_LAUNCH();
  });
}

void CompactingHashTable::build(const std::uint32_t* keys, std::size_t n, cudaStream_t stream) {
  const std::uint32_t size = table_size_for(n, set_.config_.space_factor);
  if (ids_.size() != size) ids_ = DeviceBuffer<std::uint32_t>(size, stream);
  if (slots_.size() != size) slots_ = DeviceBuffer<std::uint64_t>(size, stream);
  if (count_.empty()) count_ = DeviceBuffer<std::uint64_t>(1, stream);
  // The set's construction; its cleanup marks the first copy of each key with 1.
  try {
    set_.build_with_flags(keys, n, ids_.data(), stream);
  } catch (...) {
    slots_ = DeviceBuffer<std::uint64_t>();  // a failed build leaves no table: find() refuses
    throw;
  }
  // Section 4.4: "a prefix sum is then performed over the values", giving IDs 0..n-1.
  prim::sum(ids_.data(), size, count_.data(), stream);
  prim::exclusive_scan(ids_.data(), ids_.data(), size, stream);
  const auto unique = static_cast<std::size_t>(read_device_value(count_.data(), stream));
  if (keys_.size() != unique) keys_ = DeviceBuffer<std::uint32_t>(unique, stream);
  interleave_ids<<<grid_for(size), kDefaultBlock, 0, stream>>>(set_.slots(), ids_.data(), size, slots_.data(), keys_.data());
  HASHLAB_CHECK_LAUNCH();
}

void CompactingHashTable::find(const std::uint32_t* queries, std::size_t n, std::uint32_t* ids_out,
                               cudaStream_t stream) const {
  if (n == 0) return;
  if (slots_.empty()) throw std::logic_error("CompactingHashTable::find before a successful build");
  detail::retrieve(slots_.data(), set_.hash_functions(), queries, n, ids_out, stream);
}

}  // namespace hashlab::cuckoo
