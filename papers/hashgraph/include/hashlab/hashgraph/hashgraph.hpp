// HashGraph (Green et al.): a static hash table stored as a CSR graph. The vertices are the hash
// values [0, range), the edges point back to the input: offsets[v] .. offsets[v + 1] is the list
// of entries (key, row of the key in the input) whose key hashes to v (section 3.1).
//
//   HashGraph table(n, hash_range_for(n, 1.0), {Version::kV2}, stream);
//   table.build(d_keys, n, stream);   // offsets() and entries() now hold the CSR
//
// Two builds give the same table up to the order of the entries within a vertex:
//   V1 (section 3.2, Alg. 1): hash, count per vertex with atomics, prefix sum, place.
//   V2 (section 3.3, Alg. 2): bin the input by ranges of vertices first, so that the counting
//      and placing of phase 3 touch one bin's slice of the table at a time (in shared memory).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hashlab/common/hash.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/common/phase_timer.hpp"

namespace hashlab::hashgraph {

constexpr std::uint32_t kDefaultBins = 32768;  // HashGraph 3.3: "a good number of bins is roughly 32k"
constexpr std::uint32_t kMaxBins = 1u << 24;   // more bins than this is V1 with extra passes
constexpr std::uint64_t kMaxKeys = 0xffffffffull;  // rows and offsets are 32-bit

enum class Version { kV1, kV2 };

const char* to_string(Version version);

/// An edge of the HashGraph: a key and its row in the input (what a join reports).
struct Entry {
  std::uint32_t key;
  std::uint32_t index;
};

/// The vertex (hash value) of a key: Murmur3's 32-bit finaliser, reduced to [0, range)
/// (section 2: "Murmur hash ... the remainder is taken").
HASHLAB_HD std::uint32_t vertex_of(std::uint32_t key, std::uint32_t range) {
  return hash::reduce_range(hash::fmix32(key), range);
}

/// The hash range (number of vertices) for n keys at `load_factor` = n / range, HashGraph's
/// meaning of load (section 2): ceil(n / load_factor), at least 1. Throws std::invalid_argument
/// for a load factor that is not positive and finite, or a range beyond 2^32 - 1.
std::uint32_t hash_range_for(std::uint64_t n, double load_factor);

/// How to build: the version, and V2's number of bins (section 3.3, Fig. 4).
struct BuildOptions {
  Version version = Version::kV2;
  std::uint32_t bins = kDefaultBins;
};

/// Throws std::invalid_argument when `bins` is outside [1, kMaxBins].
void validate_bins(std::uint32_t bins);

/// The table on the host (for checks, the demo and small examples).
struct HostGraph {
  std::uint32_t range = 0;
  std::vector<std::uint32_t> offsets;  // range + 1
  std::vector<Entry> entries;          // offsets[range]
};

/// Device memory is allocated stream-ordered on the constructor's stream: use one stream per
/// table (or order the streams yourself) for build, probes and destruction.
class HashGraph {
 public:
  /// Room for up to `capacity` keys hashed into `range` vertices; allocates the table and every
  /// temporary a build needs, so build() allocates nothing. Throws std::invalid_argument for
  /// range 0, capacity > kMaxKeys or bad bins, OutOfDeviceMemory when it does not fit.
  HashGraph(std::uint64_t capacity, std::uint32_t range, BuildOptions options, cudaStream_t stream);

  /// Builds the table from n keys (n <= capacity; any 32-bit key, there is no sentinel).
  /// Asynchronous on `stream`; replaces the previous contents. With `phases`, every step of the
  /// build is marked on it (what sections 3.2 and 3.3 argue about: "the counting loop costs more
  /// than the hashing loop"), with the elements it walks as its items ("keys", "vertices" or
  /// "bins"). V1, the loops of Alg. 1: hash, zero, count, prefix_sum, reset, place. V2, the
  /// phases of Alg. 2: zero_bins, bin_count, bin_prefix_sum, reset_bins, reorganize, then
  /// build_bins (or, in the global-memory fallback, phase3_zero, phase3_count,
  /// phase3_prefix_sum, phase3_reset, phase3_place). An empty build marks none. Without a timer
  /// no event is recorded.
  void build(const std::uint32_t* keys, std::uint64_t n, cudaStream_t stream, PhaseTimer* phases = nullptr);

  std::uint64_t size() const { return size_; }
  std::uint64_t capacity() const { return capacity_; }
  std::uint32_t range() const { return range_; }
  const BuildOptions& options() const { return options_; }
  /// Vertices per bin and bins used by V2 (bins = ceil(range / bin_size) <= options().bins).
  std::uint32_t bin_size() const { return bin_size_; }
  std::uint32_t bins_used() const { return bins_used_; }
  /// Whether V2's phase 3 runs per bin in shared memory (else the global-memory fallback).
  bool shared_memory_phase3() const { return shared_phase3_; }

  const std::uint32_t* offsets() const { return offsets_.data(); }  // range + 1 entries
  const Entry* entries() const { return entries_.data(); }          // size() entries
  /// Bytes of the table itself (offsets and entries at capacity), and of the build's scratch:
  /// V1's hashes and per-vertex counters; V2's bin counters and offsets and its relabeled array
  /// of (key, row) tuples (section 3.3), plus the per-vertex counters of the global fallback. All
  /// are held from construction to destruction, so the build's peak is their sum (CUB's few
  /// kilobytes of scan storage aside).
  std::size_t table_bytes() const { return offsets_.bytes() + entries_.bytes(); }
  std::size_t scratch_bytes() const {
    return hashes_.bytes() + counters_.bytes() + bin_counts_.bytes() + bin_offsets_.bytes() + tuples_.bytes();
  }
  std::size_t peak_bytes() const { return table_bytes() + scratch_bytes(); }

  /// Copies the table to the host (synchronises `stream`).
  HostGraph to_host(cudaStream_t stream) const;
  /// The same into `out`, whose vectors keep their memory when large enough: checks of tables of
  /// one size, one after another, allocate and fault in the host copy once.
  void to_host(HostGraph& out, cudaStream_t stream) const;

 private:
  void build_v1(const std::uint32_t* keys, std::uint64_t n, cudaStream_t stream, PhaseTimer* phases);
  void build_v2(const std::uint32_t* keys, std::uint64_t n, cudaStream_t stream, PhaseTimer* phases);

  std::uint64_t capacity_ = 0;
  std::uint32_t range_ = 0;
  BuildOptions options_;
  std::uint64_t size_ = 0;
  std::uint32_t bin_size_ = 0;
  std::uint32_t bins_used_ = 0;
  bool shared_phase3_ = false;

  DeviceBuffer<std::uint32_t> offsets_;   // range + 1
  DeviceBuffer<Entry> entries_;           // capacity
  DeviceBuffer<std::uint32_t> hashes_;    // V1: the hash of every key (Alg. 1, loop 1)
  DeviceBuffer<std::uint32_t> counters_;  // V1, V2 fallback: per-vertex counters (range + 1)
  DeviceBuffer<std::uint32_t> bin_counts_;   // V2: per-bin counters (bins + 1)
  DeviceBuffer<std::uint32_t> bin_offsets_;  // V2: prefix over the bins (bins + 1)
  DeviceBuffer<Entry> tuples_;               // V2: the input reorganized bin by bin
};

/// Checks a table against the input it was built from, on the host, in O(n + range): offsets
/// start at 0, never decrease and end at n; every entry sits in the list of its key's vertex;
/// entry.key == keys[entry.index]; every row of the input appears exactly once. This is the
/// CPU multimap reference (key -> rows) in array form. Returns "" when correct, else the first
/// problem found.
std::string check_against_input(const HostGraph& graph, const std::vector<std::uint32_t>& keys);

/// The same check, complete, on the device, for a table built from the sequence 0..size()-1,
/// whose answer is known in closed form (key k at row k): the lists tile [0, n) in order, every
/// entry of vertex v is (k, k) with vertex_of(k) == v, and every k < n occurs exactly once. For
/// tables too large to copy to the host (section 4's largest input). Synchronises `stream`;
/// returns "" when correct, else the first problem found.
std::string check_sequence_table(const HashGraph& graph, cudaStream_t stream);

}  // namespace hashlab::hashgraph
