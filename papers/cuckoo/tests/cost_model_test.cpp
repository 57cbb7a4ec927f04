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

}  // namespace
}  // namespace hashlab::cuckoo
