// Section 4.4's specializations that start from a set: the cuckoo set (32-bit keys, possibly
// repeated) and the compacting hash table (a unique ID 0..n-1 per distinct key, and the compacted
// list of the keys, so that keys and IDs translate both ways in O(1)).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <random>

#include "hashlab/common/memory.hpp"
#include "hashlab/cuckoo/cuckoo_table.hpp"

namespace hashlab::cuckoo {

/// A set of 32-bit keys: each slot holds a key only. Keys may repeat in the input; after build,
/// the table holds each distinct key exactly once. The table has ceil(space_factor * N) slots
/// for N input keys (N counts the copies: the number of distinct keys is not known in advance).
class CuckooSet {
 public:
  CuckooSet() : CuckooSet(CuckooConfig{}) {}
  explicit CuckooSet(const CuckooConfig& config);

  /// Throws std::invalid_argument for a key equal to kEmptyKey, BuildFailure when every attempt
  /// failed. Synchronises `stream` once per attempt.
  void build(const std::uint32_t* keys, std::size_t n, cudaStream_t stream);
  /// Per query: 1 if the key is in the set, else 0.
  void contains(const std::uint32_t* queries, std::size_t n, std::uint8_t* out, cudaStream_t stream) const;

  const BuildStats& stats() const { return stats_; }
  const HashFunctions& hash_functions() const { return functions_; }
  const std::uint32_t* slots() const { return slots_.data(); }  // kEmptyKey where empty
  std::uint32_t table_size() const { return stats_.table_size; }
  std::size_t bytes() const { return slots_.bytes(); }

 private:
  friend class CompactingHashTable;
  /// The insertion with restarts and the cleanup; with `first_copy` (table_size entries), the
  /// cleanup writes 1 where a slot keeps a key and 0 elsewhere.
  void build_with_flags(const std::uint32_t* keys, std::size_t n, std::uint32_t* first_copy, cudaStream_t stream);
  std::uint32_t* mutable_slots() { return slots_.data(); }

  CuckooConfig config_;
  std::mt19937_64 rng_;
  HashFunctions functions_;
  BuildStats stats_;
  DeviceBuffer<std::uint32_t> slots_;
  DeviceBuffer<std::uint32_t> status_;
};

/// The compacting hash table: a set whose cleanup gives the first copy of each key the value 1, a
/// prefix sum turning those into IDs 0..n-1, the keys interleaved with their IDs in 64-bit slots
/// (queried like the basic table), and the compacted list keys()[ID] = key.
class CompactingHashTable {
 public:
  CompactingHashTable() : CompactingHashTable(CuckooConfig{}) {}
  explicit CompactingHashTable(const CuckooConfig& config) : set_(config) {}

  /// Keys may repeat. Synchronises `stream` (per attempt, and once to learn the number of IDs).
  void build(const std::uint32_t* keys, std::size_t n, cudaStream_t stream);
  /// Per query: the key's ID, or kNotFound.
  void find(const std::uint32_t* queries, std::size_t n, std::uint32_t* ids_out, cudaStream_t stream) const;

  std::size_t unique_keys() const { return keys_.size(); }
  /// The compacted list: the key with ID i at position i (unique_keys() entries).
  const std::uint32_t* keys() const { return keys_.data(); }
  const BuildStats& stats() const { return set_.stats(); }
  std::uint32_t table_size() const { return set_.table_size(); }
  std::size_t bytes() const { return slots_.bytes() + keys_.bytes(); }

 private:
  CuckooSet set_;
  DeviceBuffer<std::uint32_t> ids_;
  DeviceBuffer<std::uint64_t> slots_;
  DeviceBuffer<std::uint32_t> keys_;
  DeviceBuffer<std::uint64_t> count_;
};

}  // namespace hashlab::cuckoo
