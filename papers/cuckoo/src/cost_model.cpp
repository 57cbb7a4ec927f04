// Section 4.5.3's cost model (see cost_model.hpp).
#include "hashlab/cuckoo/cost_model.hpp"

#include <cmath>
#include <limits>

namespace hashlab::cuckoo {

double CostModel::expected_updates(double n, double m) {
  if (n <= 0) return 0;
  if (n >= m) return std::numeric_limits<double>::infinity();
  return -m * std::log1p(-n / m);
}

double CostModel::construction_ms(double n, double m) const {
  return (expected_updates(n, m) * t_uncoalesced_ns + (m + n) * t_coalesced_ns) * 1e-6;
}

double CostModel::construction_rate_gpairs(double n, double m) const {
  const double ms = construction_ms(n, m);
  return ms > 0 ? n / (ms * 1e6) : 0;
}

double hash_update_bytes_per_pair(double updates_per_pair) { return kBytesPerUpdate * updates_per_pair; }

double radix_sort_bytes_per_pair(int passes, bool histogram_per_pass) {
  constexpr double kKey = 4, kPair = 8;
  return passes * 2 * kPair + (histogram_per_pass ? passes : (passes > 0 ? 1 : 0)) * kKey;
}

double pin_bandwidth_gbps(double memory_clock_khz, int bus_width_bits) {
  return 2.0 * memory_clock_khz * 1e3 * (bus_width_bits / 8.0) / 1e9;
}

}  // namespace hashlab::cuckoo
