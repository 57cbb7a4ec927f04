// Crystal's hash join, the system the report compares its BSP join with ("Comparison with Crystal
// Library"): Shanbhag, Madden and Yu, "A Study of the Fundamental Performance Characteristics of
// GPUs and CPUs for Database Analytics" (SIGMOD 2020), whose Crystal library runs it as
// src/ops/join.cu. Built here after its algorithm (README, "Crystal's join"), in three steps:
//   memset  the table cleared (Crystal's time_memset; nvprof's [CUDA memset])
//   build   build_kernel<128, 4>: one tile of 512 of R's rows per block, loaded striped; each key
//           goes to slot (key - key_min) mod slots, claims it with atomicCAS and stores its value
//   probe   probe_kernel<128, 4>: one tile of S per block, loaded striped; each key reads its slot
//           as one 64-bit word (key, value); a match adds value2 x value1 to the thread's sum, a
//           block sum, and one atomicAdd per block into the answer.
// The table is a perfect hash: one slot per key, no collision handling. Crystal's driver sizes it
// at |R| slots for its own dense keys (1..|R|); here it takes one slot per key of R's key range,
// which is the same table on dense keys and a perfect hash for any distinct keys whose range an
// int slot index addresses (Crystal's premise, crystal_premise_violation).
//
//   const KeyRange range = key_range(host_r_keys);             // once per input, untimed
//   CrystalJoinResult out = crystal_join(r, s, range, stream);  // asynchronous
//   std::uint64_t sum = out.read(stream);                      // sum of value1 x value2, mod 2^64
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "hashlab/common/memory.hpp"
#include "hashlab/common/phase_timer.hpp"
#include "hashlab/pkpk_join/pkpk_join.hpp"

namespace hashlab::pkpk {

/// Crystal's tile: build_kernel<128, 4> and probe_kernel<128, 4> (the report's nvprof rows).
constexpr int kCrystalBlockThreads = 128;
constexpr int kCrystalItemsPerThread = 4;
/// Crystal's slot index is an int: a table of at most this many slots.
constexpr std::uint64_t kCrystalMaxSlots = 0x7fffffff;

/// The keys [min, max] of a table: the build table's range sizes Crystal's table.
struct KeyRange {
  std::uint32_t min = 0;
  std::uint32_t max = 0;
  std::uint64_t keys() const { return std::uint64_t{max} - min + 1; }
};

/// The range of `keys` ({0, 0} when there are none).
KeyRange key_range(const std::vector<std::uint32_t>& keys);

/// Why Crystal's table cannot hold R's keys of `range`, or "" when it can: its perfect hash takes
/// one slot per key of the range (Crystal's premise, dense keys: its driver's 1..|R| need |R|
/// slots), addressed by an int, so a range of more than kCrystalMaxSlots keys does not fit.
std::string crystal_premise_violation(const KeyRange& range);

/// Crystal's answer: the sum over the joined rows of value1 x value2, mod 2^64 (its probe_kernel's
/// res; Crystal multiplies two ints, we two 32-bit values into 64 bits), on the device until read.
struct CrystalJoinResult {
  DeviceBuffer<unsigned long long> sum;  // one word (none when a table was empty)
  DeviceBuffer<unsigned> errors;         // CrystalError bits the build found
  /// The sum (synchronises `stream`). Throws std::invalid_argument when the build found two keys
  /// of R in one slot (a repeated key, or keys outside the range it was given) or R's key
  /// 0xffffffff, which marks an empty slot.
  std::uint64_t read(cudaStream_t stream) const;
};

/// What the build kernel can find wrong with R (Crystal's own build checks nothing).
enum CrystalError : unsigned {
  kCrystalSlotTaken = 1u,  // a key's slot held another key already: a repeated key, or a key outside the range
  kCrystalEmptyKey = 2u,   // R holds 0xffffffff, the empty slot's key
};

/// Crystal's join of R (build) and S (probe): memset, build, probe, asynchronous on `stream`
/// (the table and the answer come from the stream-ordered pool). `r_range` must hold R's keys
/// (key_range of them; a key outside it is found by the build). Throws std::invalid_argument on
/// bad tables (validate) or a range Crystal's table cannot take (crystal_premise_violation).
/// A key repeated in S is summed once per row, as Crystal does. Steps marked on `phases`: memset
/// (the table's slots), build (R's rows), probe (S's rows). An empty table touches no device: the
/// result holds no buffers and reads 0.
CrystalJoinResult crystal_join(const TableView& r, const TableView& s, const KeyRange& r_range, cudaStream_t stream,
                               PhaseTimer* phases = nullptr);

/// For verification: the same memset and build, then a probe that writes every match as a row
/// (key, value1, value2), in no particular order, through the probe's own slot lookup.
/// Synchronises; throws as CrystalJoinResult::read does, and std::invalid_argument when more rows
/// match than min(|R|, |S|) (a key repeated in S).
JoinedRows crystal_join_rows(const TableView& r, const TableView& s, const KeyRange& r_range, cudaStream_t stream);

/// Crystal's answer computed from joined rows (the oracle's): the sum of value1 x value2, mod 2^64.
std::uint64_t crystal_sum(const std::vector<JoinedRow>& rows);

}  // namespace hashlab::pkpk
