// Section 4.5.3's cost model (CPU tests).
#include <gtest/gtest.h>

#include <cmath>

#include "hashlab/cuckoo/cost_model.hpp"

namespace hashlab::cuckoo {
namespace {

TEST(CostModel, TwoUpdatesPerItemAtOneAndAQuarterN) {
  // "only 2N attempts are needed if running in space m = 1.25N" (-1.25 ln 0.2 = 2.01).
  EXPECT_NEAR(CostModel::expected_updates(1e6, 1.25e6) / 1e6, 2.012, 0.001);
  EXPECT_EQ(CostModel::expected_updates(0, 10), 0);
  EXPECT_TRUE(std::isinf(CostModel::expected_updates(10, 10)));
}

TEST(CostModel, RateDependsOnTheSpaceFactorOnly) {
  const CostModel m;
  EXPECT_NEAR(m.construction_rate_gpairs(1e6, 1.5e6), m.construction_rate_gpairs(3e7, 4.5e7), 1e-9);
}

TEST(CostModel, ChaptersGtx480NumbersGiveItsFigure47Shape) {
  // Fig. 4.7 right: best (78% of the 1/T_unc bound) near 4.5 N, half the bound near 1.3 N.
  const CostModel gtx480;  // 1.5 ns, 0.05 ns
  const double bound = gtx480.upper_bound_gpairs();
  double best = 0, best_factor = 0;
  for (double f = 1.05; f <= 8.0; f += 0.05) {
    const double r = gtx480.construction_rate_gpairs(1e6, f * 1e6);
    if (r > best) best = r, best_factor = f;
  }
  EXPECT_NEAR(best / bound, 0.78, 0.02);
  EXPECT_NEAR(best_factor, 4.5, 0.6);
  EXPECT_NEAR(gtx480.construction_rate_gpairs(1e6, 1.3e6) / bound, 0.5, 0.05);
}

TEST(CostModel, ConstructionTimeAddsRandomAndStreamingParts) {
  const CostModel m{2.0, 0.1};
  const double n = 1e6, slots = 2e6;
  EXPECT_NEAR(m.construction_ms(n, slots), (-slots * std::log(0.5) * 2.0 + 3e6 * 0.1) * 1e-6, 1e-12);
}

TEST(BandwidthShares, ChaptersAccountingGivesItsSixAndSeventyPercent) {
  // Section 4.5.3 on the GTX 480: hash insertions at 0.67 G updates/s sustain 6% of the pin
  // bandwidth, Merrill's radix sort at 775 M pairs/s (8 passes of 4-bit digits) 70%.
  const double pin = pin_bandwidth_gbps(1848000, 384);
  EXPECT_NEAR(pin, 177.4, 0.1);
  EXPECT_NEAR(0.67 * kBytesPerUpdate / pin, 0.06, 0.002);
  EXPECT_DOUBLE_EQ(radix_sort_bytes_per_pair(8, true), 160);
  EXPECT_NEAR(0.775 * radix_sort_bytes_per_pair(8, true) / pin, 0.70, 0.005);
  // At 1.25N a construction makes about 2 updates per pair: half the update rate in pairs.
  EXPECT_DOUBLE_EQ(hash_update_bytes_per_pair(2.0), 32);
}

TEST(BandwidthShares, OnesweepReadsTheKeysOnceForAllDigits) {
  // CUB's onesweep (8-bit digits: 4 passes over 32-bit keys): 4 B histogram + 4 x 16 B.
  EXPECT_DOUBLE_EQ(radix_sort_bytes_per_pair(4, false), 68);
  EXPECT_DOUBLE_EQ(radix_sort_bytes_per_pair(0, false), 0);
  EXPECT_NEAR(pin_bandwidth_gbps(2619000, 5120), 3352.3, 0.1);  // H100 SXM5 80GB
}

}  // namespace
}  // namespace hashlab::cuckoo
