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

}  // namespace hashlab::cuckoo
