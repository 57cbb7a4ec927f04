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

}  // namespace hashlab::cuckoo
