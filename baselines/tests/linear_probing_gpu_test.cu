// The cuDF-style linear-probing table against the CPU map and multimap (GPU tests).
#include <gtest/gtest.h>

#include "hashlab/baselines/linear_probing.hpp"
#include "hashlab/common/generator.hpp"
#include "hashlab/reference/lookup.hpp"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab {
namespace {

using baseline::LinearProbingTable;

class LinearProbing : public testing::GpuTestWithParam<std::size_t> {
 protected:
  std::size_t n() const { return GetParam(); }
  std::uint64_t seed() const { return testing::test_seed() + n(); }
  testing::LazyStream stream;
};

TEST_P(LinearProbing, FindsEveryInsertedKeyAndNoAbsentOneAtLoadHalf) {
  HASHLAB_TRACE_SEED(seed());
  const auto keys = gen::generate_keys_host(gen::KeySpec::unique(), seed(), 2 * n());
  const std::vector<std::uint32_t> inserted(keys.begin(), keys.begin() + n());
  const auto values = gen::generate_values_host<std::uint32_t>(seed(), 0, 0xfffffffeu, n());
  LinearProbingTable table(LinearProbingTable::capacity_for(n(), 0.5), stream);
  auto dk = to_device(inserted, stream);
  auto dv = to_device(values, stream);
  table.insert(dk.data(), dv.data(), n(), stream);
  auto dq = to_device(keys, stream);  // first half present, second half absent
  DeviceBuffer<std::uint32_t> found(keys.size(), stream);
  table.find(dq.data(), keys.size(), found.data(), stream);
  EXPECT_EQ(found.to_host(stream), reference::map_lookup(inserted, values, keys));
  table.check(stream);
}

TEST_P(LinearProbing, CountsEveryDuplicateAtFullLoad) {
  HASHLAB_TRACE_SEED(seed());
  const auto keys = gen::generate_keys_host(gen::KeySpec::multiplicity(n(), 4.0), seed(), n());
  LinearProbingTable table(n(), stream);  // load factor 1: every slot used
  auto dk = to_device(keys, stream);
  table.insert(dk.data(), nullptr, n(), stream);
  DeviceBuffer<std::uint32_t> counts(n(), stream);
  table.count(dk.data(), n(), counts.data(), stream);
  const reference::Multimap expected(keys, keys);
  const auto got = counts.to_host(stream);
  for (std::size_t i = 0; i < n(); ++i) ASSERT_EQ(got[i], expected.count(keys[i])) << "row " << i;
}

INSTANTIATE_TEST_SUITE_P(Sizes, LinearProbing, ::testing::Values(0, 1, 7, 1000, 100003, 1000003),
                         [](const auto& info) { return "n" + std::to_string(info.param); });

class LinearProbingErrors : public testing::GpuTest {};

TEST_F(LinearProbingErrors, RefusesMoreEntriesThanSlots) {
  Stream stream;
  LinearProbingTable table(4, stream);
  DeviceBuffer<std::uint32_t> keys(5, stream);
  EXPECT_THROW(table.insert(keys.data(), nullptr, 5, stream), std::invalid_argument);
}

TEST_F(LinearProbingErrors, ReportsTheSentinelKey) {
  Stream stream;
  LinearProbingTable table(8, stream);
  auto keys = to_device(std::vector<std::uint32_t>{1, 0xffffffffu, 3}, stream);
  table.insert(keys.data(), nullptr, 3, stream);
  EXPECT_THROW(table.check(stream), std::invalid_argument);
}

TEST_F(LinearProbingErrors, RejectsLoadFactorsOutsideZeroOne) {
  EXPECT_THROW(LinearProbingTable::capacity_for(10, 0.0), std::invalid_argument);
  EXPECT_THROW(LinearProbingTable::capacity_for(10, 1.5), std::invalid_argument);
}

}  // namespace
}  // namespace hashlab
