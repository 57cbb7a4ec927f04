// The cost model of section 4.5.3: inserting N items into m slots takes about -m ln(1 - N/m)
// random updates (each insertion is a Bernoulli trial that hits an empty slot with probability
// 1 - (k-1)/m), plus reading N input pairs and initialising m slots with unit-stride accesses:
//
//   T_construction = -m ln(1 - N/m) T_uncoalesced + (m + N) T_coalesced
//
// The chapter takes T_uncoalesced = 1.5 ns and T_coalesced = 0.05 ns from its GTX 480 benchmark;
// we take both from `hashlab probe` on the GPU that runs (harness DeviceLimits: one random 8-byte
// atomicExch into a table >= 1 GiB, and 8 bytes at the device-to-device copy rate).
#pragma once

#include <cstdint>

namespace hashlab::cuckoo {

struct CostModel {
  double t_uncoalesced_ns = 1.5;  // cuckoo 4.5.3 (GTX 480)
  double t_coalesced_ns = 0.05;   // cuckoo 4.5.3 (GTX 480)

  /// -m ln(1 - N/m): the expected number of insertion attempts (infinite when N >= m).
  static double expected_updates(double n, double m);
  /// T_construction in milliseconds.
  double construction_ms(double n, double m) const;
  /// N / T_construction in G pairs/s (depends on m/N only).
  double construction_rate_gpairs(double n, double m) const;
  /// The upper bound the chapter compares against: one update per pair, 1 / T_uncoalesced.
  double upper_bound_gpairs() const { return 1.0 / t_uncoalesced_ns; }
};

// Section 4.5.3's bandwidth shares: "a radix sort implementation that achieves 70% of the
// theoretical maximum pin bandwidth, whereas our hash insertions sustain only 6% of this maximum"
// (GTX 480, 177.4 GB/s). The chapter's numbers follow from counting 8-byte accesses:
// 0.67 G updates/s x 16 B = 10.7 GB/s = 6.0%, and 775 M pairs/s x 160 B = 124 GB/s = 70%, with
// 160 B = 8 passes of 4-bit digits x (read the keys for the histogram + read and write keys and
// values) for Merrill's sort [6]. The same accounting applies to the GPU that runs.

/// One update (section 4.5.3: a read and a write of one 8-byte slot, as atomicExch does).
constexpr double kBytesPerUpdate = 16;

/// Random-update traffic of a cuckoo construction per pair: 16 B per atomicExch.
double hash_update_bytes_per_pair(double updates_per_pair);

/// Bytes per (32-bit key, 32-bit value) pair that a least-significant-digit radix sort moves:
/// each of `passes` digit passes reads and writes keys and values (16 B); the digit histograms
/// read the keys (4 B) once per pass (`histogram_per_pass`, Merrill's sort) or once for all
/// passes (CUB's onesweep).
double radix_sort_bytes_per_pair(int passes, bool histogram_per_pass);

/// A GPU's DRAM pin bandwidth in GB/s from its memory clock (kHz, as CUDA reports it) and bus
/// width (bits): two transfers per clock (GTX 480: 1848 MHz, 384 bit: 177.4 GB/s; H100 SXM:
/// 2619 MHz, 5120 bit: 3352 GB/s).
double pin_bandwidth_gbps(double memory_clock_khz, int bus_width_bits);

}  // namespace hashlab::cuckoo
