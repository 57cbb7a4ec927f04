// Section 4.4's multivalue hash table (Algorithm 1) and the sort-based structures the chapter
// compares the compacting and multivalue tables against (section 4.5.2, Figs. 4.5 and 4.6).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "hashlab/common/memory.hpp"
#include "hashlab/cuckoo/cuckoo_table.hpp"

namespace hashlab::cuckoo {

/// keyInfo[] of section 4.4 (a uint2): where a key's values start in sortedValues[] and how many
/// it has. A query for an absent key gets {kNotFound, 0}.
struct alignas(8) KeyInfo {
  std::uint32_t offset = kNotFound;
  std::uint32_t count = 0;
};

/// Algorithm 1, steps 1-5 (what the hash and the sorted multivalue structures share): the pairs
/// sorted by key, the unique keys in ascending order (ID = position), and keyInfo[] per ID.
struct MultivalueArrays {
  DeviceBuffer<std::uint32_t> sorted_keys;    // scratch: the keys after the radix sort
  DeviceBuffer<std::uint32_t> sorted_values;  // sortedValues[]
  DeviceBuffer<std::uint32_t> unique_keys;    // first `unique` entries used
  DeviceBuffer<std::uint32_t> counts;         // values per unique key, then their offsets
  DeviceBuffer<KeyInfo> key_info;             // keyInfo[]
  DeviceBuffer<std::uint32_t> ids;            // 0 .. unique-1, the basic table's values
  DeviceBuffer<std::uint32_t> d_unique;
  std::size_t unique = 0;

  /// Runs steps 1-5 on n pairs. Synchronises `stream` once (to learn the number of unique keys).
  void build(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, cudaStream_t stream);
  std::size_t bytes() const { return sorted_values.bytes() + unique * (sizeof(KeyInfo) + sizeof(std::uint32_t)); }
};

/// The multivalue hash table: Algorithm 1 (steps 1-5, then step 6: a basic cuckoo table from
/// each unique key to its ID). A query returns the key's KeyInfo; its values are
/// sorted_values()[offset .. offset + count).
class MultivalueHashTable {
 public:
  MultivalueHashTable() : MultivalueHashTable(CuckooConfig{}) {}
  explicit MultivalueHashTable(const CuckooConfig& config) : table_(config) {}

  void build(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, cudaStream_t stream);
  void find(const std::uint32_t* queries, std::size_t n, KeyInfo* out, cudaStream_t stream) const;

  std::size_t unique_keys() const { return arrays_.unique; }
  const std::uint32_t* sorted_values() const { return arrays_.sorted_values.data(); }
  const BuildStats& stats() const { return table_.stats(); }
  std::size_t bytes() const { return arrays_.bytes() + table_.bytes(); }

 private:
  MultivalueArrays arrays_;
  CuckooHashTable table_;
};

/// The sorted multivalue structure of section 4.5.2: Algorithm 1's steps 1-5 only; a query
/// binary-searches the unique keys for the ID instead of querying a hash table.
class SortedMultivalue {
 public:
  void build(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, cudaStream_t stream);
  void find(const std::uint32_t* queries, std::size_t n, KeyInfo* out, cudaStream_t stream) const;

  std::size_t unique_keys() const { return arrays_.unique; }
  const std::uint32_t* sorted_values() const { return arrays_.sorted_values.data(); }
  std::size_t bytes() const { return arrays_.bytes(); }

 private:
  MultivalueArrays arrays_;
};

/// The sort-based compacting structure of section 4.5.2 (Fig. 4.5): the keys radix sorted and
/// compacted to their unique values (ID = position); a query binary-searches for the ID.
class SortedCompacting {
 public:
  void build(const std::uint32_t* keys, std::size_t n, cudaStream_t stream);
  /// Per query: the key's ID, or kNotFound.
  void find(const std::uint32_t* queries, std::size_t n, std::uint32_t* ids_out, cudaStream_t stream) const;

  std::size_t unique_keys() const { return unique_; }
  const std::uint32_t* keys() const { return unique_keys_.data(); }
  std::size_t bytes() const { return unique_ * sizeof(std::uint32_t); }

 private:
  DeviceBuffer<std::uint32_t> sorted_;
  DeviceBuffer<std::uint32_t> unique_keys_;
  DeviceBuffer<std::uint32_t> counts_;
  DeviceBuffer<std::uint32_t> d_unique_;
  std::size_t unique_ = 0;
};

}  // namespace hashlab::cuckoo
