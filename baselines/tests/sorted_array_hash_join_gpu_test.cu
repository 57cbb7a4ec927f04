// The sorted array and the GPU hash join against the CPU references (GPU tests).
#include <gtest/gtest.h>

#include <algorithm>

#include "hashlab/baselines/hash_join.hpp"
#include "hashlab/baselines/sorted_array.hpp"
#include "hashlab/common/generator.hpp"
#include "hashlab/reference/join.hpp"
#include "hashlab/reference/lookup.hpp"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab {
namespace {

class SortedArrayAndJoin : public testing::GpuTestWithParam<std::size_t> {
 protected:
  std::size_t n() const { return GetParam(); }
  std::uint64_t seed() const { return testing::test_seed() + 7 * n(); }
  testing::LazyStream stream;
};

TEST_P(SortedArrayAndJoin, SortedArrayFindsPresentKeysAndReportsAbsentOnes) {
  HASHLAB_TRACE_SEED(seed());
  const auto keys = gen::generate_keys_host(gen::KeySpec::unique(), seed(), 2 * n());
  const std::vector<std::uint32_t> stored(keys.begin(), keys.begin() + n());
  const auto values = gen::generate_values_host<std::uint32_t>(seed(), 0, 0xfffffffeu, n());
  auto dk = to_device(stored, stream);
  auto dv = to_device(values, stream);
  baseline::SortedArray array;
  array.build(dk.data(), dv.data(), n(), stream);
  auto dq = to_device(keys, stream);
  DeviceBuffer<std::uint32_t> found(keys.size(), stream);
  array.find(dq.data(), keys.size(), found.data(), stream);
  EXPECT_EQ(found.to_host(stream), reference::map_lookup(stored, values, keys));
}

TEST_P(SortedArrayAndJoin, HashJoinCountsAndPairsMatchTheReferenceWithDuplicates) {
  HASHLAB_TRACE_SEED(seed());
  const auto r = gen::generate_keys_host(gen::KeySpec::multiplicity(n(), 3.0, 1u << 20), seed(), n());
  const auto s = gen::generate_keys_host(gen::KeySpec::multiplicity(n() + 5, 2.0, 1u << 20), seed() + 1, n() + 5);
  auto dr = to_device(r, stream);
  auto ds = to_device(s, stream);
  baseline::HashJoin join(0.5);
  join.build(dr.data(), r.size(), stream);
  DeviceBuffer<std::uint64_t> count(1, stream);
  join.count(ds.data(), s.size(), count.data(), stream);
  EXPECT_EQ(read_device_value(count.data(), stream), reference::inner_join_count(r, s));
  const auto out = join.join(ds.data(), s.size(), stream);
  const auto ri = out.r_index.to_host(stream), si = out.s_index.to_host(stream);
  std::vector<reference::JoinPair> got(out.size);
  for (std::size_t i = 0; i < out.size; ++i) got[i] = {ri[i], si[i]};
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, reference::inner_join(r, s));
}

INSTANTIATE_TEST_SUITE_P(Sizes, SortedArrayAndJoin, ::testing::Values(0, 1, 7, 1000, 100003),
                         [](const auto& info) { return "n" + std::to_string(info.param); });

}  // namespace
}  // namespace hashlab
