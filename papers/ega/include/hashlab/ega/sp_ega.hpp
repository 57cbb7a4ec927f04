// SP-EGA (EGA section 4.1) and its comparator LPHGA, both on the paper's three buffers of
// length L: red and yellow arrays of key/value pairs and a blue array of integers.
//
//   hashlab::ega::SpEga ega(n, stream);                 // L = n: the buffers' length
//   ega.load(d_keys, d_values, n, Aggregation::kSum, stream);   // the input pairs into red
//   hashlab::ega::Groups groups = ega.run(n, Aggregation::kSum, stream);
//   // groups.keys[g], groups.aggregates[g] for g < groups.count (they live in yellow)
//
// A pair is a 32-bit key and a 64-bit aggregate (the sum of 32-bit values needs 64 bits), kept
// as two columns (struct of arrays). The key 0xffffffff (kEmptyKey, sentinels.hpp) marks an empty
// slot and may not appear in the input (std::invalid_argument).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hashlab/common/memory.hpp"
#include "hashlab/common/sentinels.hpp"
#include "hashlab/reference/groupby.hpp"

namespace hashlab::ega {

using reference::Aggregation;

/// Hash seeds: one per use, so that the positions of phase 1, phase 4 and the MP-EGA partition
/// of a key are independent (see the README's "Deviations and choices").
constexpr std::uint32_t kPhase1Seed = 0;
constexpr std::uint32_t kPhase4Seed = 0x5bd1e995u;
constexpr std::uint32_t kPartitionSeed = 0x27d4eb2fu;

/// Aggregations SP-EGA, LPHGA and MP-EGA compute in one pass: sum, count, min, max (a mean is
/// a sum and a count; ask for both).
bool supports(Aggregation op);
/// Throws std::invalid_argument naming the supported aggregations when !supports(op).
void require_supported(Aggregation op);

/// The three buffers of the paper, each of length L: red and yellow hold pairs, blue integers.
struct ThreeBuffers {
  DeviceBuffer<std::uint32_t> red_keys;
  DeviceBuffer<std::uint64_t> red_values;
  DeviceBuffer<std::uint32_t> yellow_keys;
  DeviceBuffer<std::uint64_t> yellow_values;
  DeviceBuffer<std::uint32_t> blue;

  ThreeBuffers() = default;
  ThreeBuffers(std::size_t length, cudaStream_t stream);
  std::size_t length() const { return blue.size(); }
  std::size_t bytes() const {
    return red_keys.bytes() + red_values.bytes() + yellow_keys.bytes() + yellow_values.bytes() + blue.bytes();
  }
  /// Device bytes three buffers of `length` take: 28 bytes per item.
  static std::size_t bytes_for(std::size_t length) { return length * (2 * 4 + 2 * 8 + 4); }
};

/// Groups on the device (a view into the buffers that computed them; valid until the next run).
struct Groups {
  const std::uint32_t* keys = nullptr;
  const std::uint64_t* aggregates = nullptr;
  std::size_t count = 0;

  /// Copies to the host in the references' form, sorted by key (synchronises `stream`).
  reference::GroupByResult to_reference(Aggregation op, cudaStream_t stream) const;
};

/// Fills red with n input pairs: red_keys = keys, red_values = the pair's initial aggregate
/// (the value; 1 for count). Asynchronous on `stream`. Throws when n > the buffers' length.
void load_red(ThreeBuffers& buffers, const std::uint32_t* keys, const std::uint32_t* values, std::size_t n,
              Aggregation op, cudaStream_t stream);

/// SP-EGA's yellow array split (section 4.1.1 leaves the sizes open): part 1 (the partial hash
/// table) and part 2 (its indicator) have L1 items each, part 3 (phase 2's collection array)
/// the rest, L - 2 L1 >= L1 because it must hold every group of part 1.
struct YellowParts {
  std::size_t part1 = 0;  // L1: slots of the partial hash table, yellow[0, L1)
  std::size_t part2_begin = 0;  // the indicator of slot i is yellow_keys[L1 + i]
  std::size_t part3_begin = 0;  // 2 L1: yellow[2 L1, L) collects phase 2's groups
  static YellowParts for_length(std::size_t length);
};

/// The work of one run (4.1.6: "longer probing distances mean more atomic operations"), counted
/// only by run_counted, with separate instantiations of the kernels: the timed run() counts nothing.
struct WorkCounts {
  std::uint64_t table_accesses = 0;  // lookups of a table slot: one per key and warp (the warp-level
                                     // combine's leader); SP-EGA phase 1 counts those inside part 1
  std::uint64_t probe_steps = 0;     // slots inspected beyond a lookup's first (linear probing)
  std::uint64_t atomics = 0;         // atomicCAS attempts and aggregate atomics on the tables
};

/// The phases of SP-EGA (1..5) for a per-phase callback (timing, the demo's trace).
using PhaseHook = std::function<void(int phase, cudaStream_t stream)>;

/// What SP-EGA and LPHGA share: the three buffers of length L, the status words each run reads
/// back, the counters of a counted run, and how a run is called. Each defines its phases.
class ThreeBufferGroupBy {
 public:
  virtual ~ThreeBufferGroupBy() = default;
  ThreeBufferGroupBy(ThreeBufferGroupBy&&) = default;
  ThreeBufferGroupBy& operator=(ThreeBufferGroupBy&&) = default;

  /// The input pairs into red (see load_red).
  void load(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, Aggregation op,
            cudaStream_t stream) {
    load_red(buffers_, keys, values, n, op, stream);
  }

  /// Runs the phases on the first n pairs of red (n <= L). `after_phase(p, stream)` (optional) is
  /// called on the host after each phase p has been enqueued. Reads the group count back
  /// (synchronises `stream`). Throws std::invalid_argument when the input holds the empty key.
  Groups run(std::size_t n, Aggregation op, cudaStream_t stream, const PhaseHook& after_phase = {});

  /// run, with the kernels that count their work (probe steps, atomics) into `counts`: for the
  /// experiments' probe-distance rows, never timed. The same result as run.
  Groups run_counted(std::size_t n, Aggregation op, cudaStream_t stream, WorkCounts& counts);

  /// load + run.
  Groups aggregate(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, Aggregation op,
                   cudaStream_t stream) {
    load(keys, values, n, op, stream);
    return run(n, op, stream);
  }

  ThreeBuffers& buffers() { return buffers_; }
  const ThreeBuffers& buffers() const { return buffers_; }
  std::size_t length() const { return buffers_.length(); }
  std::size_t bytes() const { return buffers_.bytes() + status_.bytes(); }

 protected:
  /// Buffers of `length` items (L); `name` ("SP-EGA", "LPHGA") names the algorithm in errors.
  ThreeBufferGroupBy(std::size_t length, cudaStream_t stream, const char* name);

  /// The algorithm's phases on the first n pairs of red (n <= L, checked by run), counting its
  /// work into `work` when it is not null (run_counted).
  virtual Groups run_phases(std::size_t n, Aggregation op, cudaStream_t stream, const PhaseHook& after_phase,
                            unsigned long long* work) = 0;
  /// The status words after the phases (synchronises `stream`): std::invalid_argument when the
  /// input held the empty key, std::runtime_error when `table` overflowed.
  std::vector<std::uint32_t> finish(cudaStream_t stream, const std::string& table) const;

  const char* name_;
  ThreeBuffers buffers_;
  DeviceBuffer<std::uint32_t> status_;     // the run's status words (ega_device.cuh's Status), zeroed by each run
  DeviceBuffer<unsigned long long> work_;  // run_counted's counters (allocated by its first call)
};

/// SP-EGA: the five phases of section 4.1 on three buffers of length L. run calls `after_phase`
/// after each phase 1..5; the groups lie in yellow[L - groups, L).
class SpEga : public ThreeBufferGroupBy {
 public:
  /// Buffers of `length` items (L); at most `length` input pairs per run.
  SpEga(std::size_t length, cudaStream_t stream) : ThreeBufferGroupBy(length, stream, "SP-EGA") {}

  YellowParts parts() const { return YellowParts::for_length(length()); }

  /// What the last run's phases found (read back by run): groups of the partial hash table
  /// (phase 2), unhashed pairs (phase 3), groups of the linear-probing table (phase 5).
  struct PhaseCounts {
    std::size_t partial_table_groups = 0;
    std::size_t unhashed_pairs = 0;
    std::size_t probe_table_groups = 0;
  };
  const PhaseCounts& last_counts() const { return counts_; }

 private:
  Groups run_phases(std::size_t n, Aggregation op, cudaStream_t stream, const PhaseHook& after_phase,
                    unsigned long long* work) override;

  PhaseCounts counts_;
};

/// LPHGA, the paper's hash-based comparator: linear-probing hash group-by with the same three
/// buffers. red holds the input, yellow is the hash table (L slots), blue its indicator; the
/// groups are collected into red[0, groups). run calls `after_phase` after 1: hash aggregate,
/// 2: scan of the indicator, 3: collect.
class Lphga : public ThreeBufferGroupBy {
 public:
  Lphga(std::size_t length, cudaStream_t stream) : ThreeBufferGroupBy(length, stream, "LPHGA") {}

 private:
  Groups run_phases(std::size_t n, Aggregation op, cudaStream_t stream, const PhaseHook& after_phase,
                    unsigned long long* work) override;
};

/// Slots L for `groups` groups at `load_factor` (= groups / L), which must lie in (0, 1):
/// ceil(groups / load_factor). Throws std::invalid_argument otherwise.
std::size_t length_for(std::size_t groups, double load_factor);

}  // namespace hashlab::ega
