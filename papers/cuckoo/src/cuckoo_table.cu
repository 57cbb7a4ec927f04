// The basic cuckoo hash table (section 4.3): construction (Listing 4.1) and retrieval (Listing 4.2).
#include <algorithm>
#include <type_traits>

#include "detail.cuh"
#include "hashlab/common/dispatch.hpp"
#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/launch.cuh"
#include "hashlab/cuckoo/cuckoo_table.hpp"

namespace hashlab::cuckoo {
namespace detail {
namespace {

// Section 4.3.1.2: every attempt starts from a table of empty entries (key 0xffffffff, value 0).
__global__ void fill_empty_kernel(std::uint64_t* slots, std::size_t n) {
  for (const std::size_t i : grid_stride(n)) slots[i] = kEmptyEntry;
}

}  // namespace

void fill_empty(std::uint64_t* slots, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  fill_empty_kernel<<<grid_for(n), kDefaultBlock, 0, stream>>>(slots, n);
  HASHLAB_CHECK_LAUNCH();
}

}  // namespace detail

namespace {

// Listing 4.1 (section 4.3.1.2): one thread per input pair swaps its entry into the table with
// atomicExch, starting at h_1; an evicted entry is re-inserted with its next function, round
// robin; a chain longer than max_iterations sets the failure flag (the host then rebuilds).
// kShortCircuit: Listing 4.1's own round robin instead of the chapter's fix (next_location).
// kCount: chain_lengths[its] counts the threads whose loop made `its` exchanges.
template <HashKind H, int K, bool kCount, bool kShortCircuit>
__global__ void cuckoo_insert(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n,
                              unsigned long long* table, HashFunctions f, std::uint32_t max_iterations,
                              std::uint32_t* status, unsigned long long* chain_lengths) {
  const std::size_t thread_index = global_thread_index();
  if (thread_index >= n) return;
  std::uint32_t key = keys[thread_index];
  if (key == kEmptyKey) {  // would be taken for an empty slot: refuse, never lose it silently
    atomicOr(status, detail::kStatusReservedKey);
    return;
  }
  unsigned long long entry = make_entry(key, values[thread_index]);
  // New items are always inserted using their first hash function.
  std::uint32_t location = hash_slot<H>(f.c[0], key, f.table_size);
  std::uint32_t its = 0;
  bool placed = false;
  while (its < max_iterations) {
    ++its;
    // Insert the item and check for an eviction.
    entry = atomicExch(&table[location], entry);
    key = get_key(entry);
    if (key == kEmptyKey) {
      placed = true;
      break;
    }
    // An item was evicted: re-insert it with the function after the one that put it here.
    std::uint32_t loc[K];
    detail::all_locations<H, K>(f, key, loc);
    if constexpr (kShortCircuit) location = next_location_short_circuit<K>(loc, location);
    else location = next_location<K>(loc, location);
  }
  if (!placed) atomicOr(status, detail::kStatusFailed);  // the eviction chain was too long
  if constexpr (kCount) atomicAdd(&chain_lengths[its], 1ull);  // its in [1, max_iterations]
}

// Listing 4.2 (section 4.3.2): one thread per query checks h_1 .. h_K in order.
template <HashKind H, int K>
__global__ void cuckoo_retrieve(const unsigned long long* table, HashFunctions f, const std::uint32_t* queries,
                                std::size_t n, std::uint32_t* values_out) {
  for (const std::size_t i : grid_stride(n)) values_out[i] = detail::retrieve_one<H, K>(table, f, queries[i]);
}

}  // namespace

CuckooHashTable::CuckooHashTable(const CuckooConfig& config) : config_(config), rng_(config.seed) {
  config_.validate();
}

void CuckooHashTable::build(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, cudaStream_t stream) {
  stats_ = detail::build_parameters(config_, n);
  if (slots_.size() != stats_.table_size) slots_ = DeviceBuffer<std::uint64_t>(stats_.table_size, stream);
  if (status_.empty()) status_ = DeviceBuffer<std::uint32_t>(1, stream);
  if (config_.count_evictions && chain_lengths_.size() != stats_.max_iterations + std::size_t{1})
    chain_lengths_ = DeviceBuffer<unsigned long long>(stats_.max_iterations + std::size_t{1}, stream);
  if (n == 0) {
    functions_ = HashFunctions::draw(config_.hash, config_.num_hash_functions, stats_.table_size, rng_);
    detail::fill_empty(slots_.data(), slots_.size(), stream);
    stats_.attempts = 1;
    return;
  }
  auto* table = reinterpret_cast<unsigned long long*>(slots_.data());
  const unsigned blocks = static_cast<unsigned>(div_up<std::size_t>(n, static_cast<std::size_t>(config_.block_size)));
  // A failed build leaves no table behind, so that find() refuses instead of answering from the
  // failed attempt's slots.
  try {
    stats_.attempts = detail::build_with_restarts(
        "CuckooHashTable::build", n, stats_.table_size, stats_.max_iterations, config_, rng_, functions_,
        status_.data(), stream, [&](const HashFunctions& f) {
          detail::fill_empty(slots_.data(), slots_.size(), stream);
          status_.fill_bytes(0, stream);
          if (config_.count_evictions) chain_lengths_.fill_bytes(0, stream);
          detail::dispatch(f.kind, f.count, [&](auto kind_c, auto count_c) {
            constexpr HashKind H = decltype(kind_c)::value;
            constexpr int K = decltype(count_c)::value;
            const bool short_circuit = config_.round_robin == RoundRobin::kShortCircuit;
            dispatch_bool(config_.count_evictions, [&](auto counted) {
              dispatch_bool(short_circuit, [&](auto short_circuit_c) {
                cuckoo_insert<H, K, decltype(counted)::value, decltype(short_circuit_c)::value>
                    <<<blocks, config_.block_size, 0, stream>>>(keys, values, n, table, f, stats_.max_iterations,
                                                               status_.data(), chain_lengths_.data());
              });
            });
            HASHLAB_CHECK_LAUNCH();
          });
        });
  } catch (...) {
    slots_ = DeviceBuffer<std::uint64_t>();
    throw;
  }
  if (config_.count_evictions) {
    const auto counts = chain_lengths_.to_host(stream);
    stats_.chain_lengths.assign(counts.begin(), counts.end());
    const ChainSummary chains = stats_.chains();
    stats_.exchanges = chains.exchanges;
    stats_.longest_chain = chains.max;
  }
}

void CuckooHashTable::find(const std::uint32_t* queries, std::size_t n, std::uint32_t* values_out,
                           cudaStream_t stream) const {
  if (n == 0) return;
  if (slots_.empty()) throw std::logic_error("CuckooHashTable::find before a successful build");
  detail::retrieve(slots_.data(), functions_, queries, n, values_out, stream);
}

void detail::retrieve(const std::uint64_t* slots, const HashFunctions& f, const std::uint32_t* queries, std::size_t n,
                      std::uint32_t* values_out, cudaStream_t stream) {
  if (n == 0) return;
  const auto* table = reinterpret_cast<const unsigned long long*>(slots);
  dispatch(f.kind, f.count, [&](auto kind_c, auto count_c) {
    cuckoo_retrieve<decltype(kind_c)::value, decltype(count_c)::value>
        <<<grid_for(n), kDefaultBlock, 0, stream>>>(table, f, queries, n, values_out);
    HASHLAB_CHECK_LAUNCH();
  });
}

}  // namespace hashlab::cuckoo
