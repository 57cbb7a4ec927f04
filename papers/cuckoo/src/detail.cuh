// What the cuckoo kernels share: the compile-time dispatch on (hash kind, number of functions),
// the slot computations of Listing 4.1 / 4.2, and the host loop that restarts a failed build.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <random>
#include <sstream>
#include <stdexcept>
#include <type_traits>

#include "hashlab/common/dispatch.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/cuckoo/cuckoo_table.hpp"
#include "hashlab/cuckoo/hash_functions.hpp"

namespace hashlab::cuckoo::detail {

// Bits of the status word an insertion kernel sets.
constexpr std::uint32_t kStatusFailed = 1;       // a thread reached max_iterations
constexpr std::uint32_t kStatusReservedKey = 2;  // an input key equals kEmptyKey

/// Calls f(std::integral_constant<HashKind, kind>, std::integral_constant<int, count>), so that
/// kernels get both as template arguments (the slots of one key then live in registers).
template <class F>
void dispatch(HashKind kind, int count, F&& f) {
  if (count < kMinHashFunctions || count > kMaxHashFunctions)
    throw std::invalid_argument("cuckoo: number of hash functions must be 2..5");
  dispatch_value<HashKind::kMultiply, HashKind::kXor, HashKind::kMultiplyExact>(kind, [&](auto kind_c) {
    dispatch_value<2, 3, 4, 5>(count, [&](auto count_c) { f(kind_c, count_c); });
  });
}

/// A build's parameters (section 4.3.1.1) for N = n keys: the table size (space factor x N) and
/// the eviction limit (config.max_iterations, or 7 lg N); the counts of a build start at 0.
inline BuildStats build_parameters(const CuckooConfig& config, std::size_t n) {
  BuildStats stats;
  stats.n = n;
  stats.table_size = table_size_for(n, config.space_factor);
  stats.max_iterations = config.max_iterations > 0 ? config.max_iterations : default_max_iterations(n);
  return stats;
}

/// location_1 .. location_K of `key` (Listing 4.1 / 4.2).
template <HashKind H, int K>
__device__ __forceinline__ void all_locations(const HashFunctions& f, std::uint32_t key, std::uint32_t (&loc)[K]) {
#pragma unroll
  for (int i = 0; i < K; ++i) loc[i] = hash_slot<H>(f.c[i], key, f.table_size);
}

/// The host side of section 4.3.1.2's restarts: up to config.max_attempts times, draw new
/// constants into `functions` and run `attempt(functions)` (which must clear the table, reset
/// the status word to 0 and launch the insertion); stop at the first attempt whose status has no
/// failure. Returns the number of attempts. Throws std::invalid_argument on a reserved key and
/// BuildFailure when every attempt failed.
template <class Attempt>
int build_with_restarts(const char* what, std::uint64_t n, std::uint32_t table_size, std::uint32_t max_iterations,
                        const CuckooConfig& config, std::mt19937_64& rng, HashFunctions& functions,
                        const std::uint32_t* d_status, cudaStream_t stream, Attempt&& attempt) {
  for (int a = 1; a <= config.max_attempts; ++a) {
    functions = HashFunctions::draw(config.hash, config.num_hash_functions, table_size, rng);
    attempt(functions);
    const std::uint32_t status = read_device_value(d_status, stream);
    if (status & kStatusReservedKey) {
      std::ostringstream msg;
      msg << what << ": an input key equals 0x" << std::hex << kEmptyKey << std::dec
          << ", the key that marks an empty slot (section 4.3.1.2); it cannot be stored (N = " << n << ")";
      throw std::invalid_argument(msg.str());
    }
    if (!(status & kStatusFailed)) return a;
  }
  std::ostringstream msg;
  msg << what << ": could not build the cuckoo table: N = " << n << ", table size = " << table_size << " slots ("
      << static_cast<double>(table_size) / static_cast<double>(n) << " N), " << config.num_hash_functions
      << " hash functions (" << to_string(config.hash) << "), max_iterations = " << max_iterations << ", "
      << config.max_attempts << " attempts all failed. Use a larger table, more hash functions or a higher "
      << "eviction limit; more than " << config.num_hash_functions
      << " copies of one key can never be placed (keys must be unique).";
  throw BuildFailure(msg.str());
}

/// Listing 4.2 for one key: check h_1 .. h_K in order; the entry's value, or kNotFound.
template <HashKind H, int K>
__device__ __forceinline__ std::uint32_t retrieve_one(const unsigned long long* table, const HashFunctions& f,
                                                      std::uint32_t key) {
  if (key == kEmptyKey) return kNotFound;  // the empty slot's key matches no stored item
#pragma unroll
  for (int j = 0; j < K; ++j) {
    const unsigned long long entry = table[hash_slot<H>(f.c[j], key, f.table_size)];
    if (get_key(entry) == key) return get_value(entry);
  }
  return kNotFound;
}

/// Fills `slots` with kEmptyEntry (each attempt starts from an empty table).
void fill_empty(std::uint64_t* slots, std::size_t n, cudaStream_t stream);

/// Listing 4.2 over n queries of a table of 64-bit entries built with `f`.
void retrieve(const std::uint64_t* slots, const HashFunctions& f, const std::uint32_t* queries, std::size_t n,
              std::uint32_t* values_out, cudaStream_t stream);

}  // namespace hashlab::cuckoo::detail
