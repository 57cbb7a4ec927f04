// The basic cuckoo hash table of section 4.3: N unique 32-bit keys with 32-bit values, in 64-bit
// slots (key in the upper, value in the lower 32 bits), built by one thread per pair swapping
// itself into its slots with atomicExch (Listing 4.1), queried by checking h_1..h_k in order
// (Listing 4.2).
//
//   CuckooHashTable table;                       // 4 functions, 1.25 N slots, 7 lg N evictions
//   table.build(d_keys, d_values, n, stream);    // restarts with new constants if it must
//   table.find(d_queries, m, d_values_out, stream);   // value, or kNotFound
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "hashlab/common/memory.hpp"
#include "hashlab/cuckoo/hash_functions.hpp"

namespace hashlab::cuckoo {

/// The parameters of section 4.3.1.1 and what the chapter leaves open.
struct CuckooConfig {
  int num_hash_functions = kDefaultHashFunctions;  // 2..5
  double space_factor = kDefaultSpaceFactor;       // tableSize = ceil(space_factor * N), >= 1
  std::uint32_t max_iterations = 0;                // eviction limit per thread; 0: 7 lg N
  int max_attempts = kDefaultMaxAttempts;          // build attempts before giving up
  HashKind hash = HashKind::kMultiply;
  RoundRobin round_robin = RoundRobin::kSkipRepeatedSlots;  // where an evicted item goes next
  int block_size = kDefaultBlockSize;              // construction threads per block (32..1024)
  std::uint64_t seed = 1;                          // seeds the hash constants of every attempt
  bool count_evictions = false;                    // instrument: record every chain's length (untimed use)

  /// Throws std::invalid_argument naming the bad field and its value.
  void validate() const;
  std::string describe() const;
};

/// Eviction chains summarised from their lengths (section 4.2: "the median number of iterations
/// required to insert any item was only one or two"). A thread's chain is the number of
/// atomicExch calls of its Listing 4.1 loop: 1 when its item found its h_1 slot empty.
struct ChainSummary {
  std::uint64_t chains = 0;     // threads counted (N for a successful build)
  std::uint64_t exchanges = 0;  // atomicExch calls in all
  double mean = 0;              // exchanges / chains (the updates per pair of section 4.5.3)
  std::uint32_t median = 0;     // the smallest length that at least half of the chains do not exceed
  std::uint32_t max = 0;        // the longest chain
};

/// The summary of a histogram of chain lengths (histogram[l]: chains of length l).
ChainSummary summarize_chains(const std::vector<std::uint64_t>& histogram);

/// What the last build did.
struct BuildStats {
  std::uint64_t n = 0;
  std::uint32_t table_size = 0;
  std::uint32_t max_iterations = 0;
  int attempts = 0;  // 1 when the first attempt succeeded
  int restarts() const { return attempts > 0 ? attempts - 1 : 0; }
  // With CuckooConfig::count_evictions, over the successful attempt: chain_lengths[l] threads made l exchanges (l = 1 .. max_iterations; a thread whose
  // chain reached the limit counts at max_iterations), and their summary: atomicExch calls in
  // total (N for a table without a single eviction) and the longest chain of one thread.
  std::vector<std::uint64_t> chain_lengths;
  std::uint64_t exchanges = 0;
  std::uint32_t longest_chain = 0;
  ChainSummary chains() const { return summarize_chains(chain_lengths); }
};

/// Thrown when no attempt built the table; what() gives N, table size, functions, attempts.
class BuildFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Device memory is allocated stream-ordered on the first build's stream: use one stream per
/// table (or order the streams yourself) for builds, finds and destruction.
class CuckooHashTable {
 public:
  CuckooHashTable() : CuckooHashTable(CuckooConfig{}) {}
  explicit CuckooHashTable(const CuckooConfig& config);

  /// Builds the table from n pairs (device arrays), replacing what it held. Keys must be unique
  /// (section 4.3); see README for what duplicates do. Throws std::invalid_argument when a key is
  /// kEmptyKey (0xffffffff, the empty slot) and BuildFailure after max_attempts failed attempts.
  /// Synchronises `stream` once per attempt (to read the failure flag).
  void build(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, cudaStream_t stream);

  /// Per query (Listing 4.2): the value stored with the key, or kNotFound. A stored value equal to
  /// kNotFound cannot be told apart from a miss.
  void find(const std::uint32_t* queries, std::size_t n, std::uint32_t* values_out, cudaStream_t stream) const;

  const CuckooConfig& config() const { return config_; }
  const BuildStats& stats() const { return stats_; }
  const HashFunctions& hash_functions() const { return functions_; }
  /// The slots (entry = key << 32 | value; empty = kEmptyKey << 32).
  const std::uint64_t* slots() const { return slots_.data(); }
  std::uint32_t table_size() const { return stats_.table_size; }
  std::size_t bytes() const { return slots_.bytes(); }

 private:
  CuckooConfig config_;
  std::mt19937_64 rng_;
  HashFunctions functions_;
  BuildStats stats_;
  DeviceBuffer<std::uint64_t> slots_;
  DeviceBuffer<std::uint32_t> status_;
  DeviceBuffer<unsigned long long> chain_lengths_;  // count_evictions: threads by chain length
};

constexpr std::uint64_t kEmptyEntry = std::uint64_t{kEmptyKey} << 32;  // key 0xffffffff, value 0

HASHLAB_HD std::uint64_t make_entry(std::uint32_t key, std::uint32_t value) {
  return (std::uint64_t{key} << 32) | value;
}
HASHLAB_HD std::uint32_t get_key(std::uint64_t entry) { return static_cast<std::uint32_t>(entry >> 32); }
HASHLAB_HD std::uint32_t get_value(std::uint64_t entry) { return static_cast<std::uint32_t>(entry & 0xffffffffu); }

}  // namespace hashlab::cuckoo
