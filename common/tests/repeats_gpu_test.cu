// prim::first_repeat names the same key and rows as cpu::first_repeat (GPU tests).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "hashlab/common/generator.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/common/repeats.hpp"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab {
namespace {

class DeviceFirstRepeat : public testing::GpuTest {
 protected:
  // The device's answer, checked against the host's, and the column left as it was.
  std::optional<Repeat> both(const std::vector<std::uint32_t>& keys) {
    auto d = to_device(keys, stream_);
    const auto got = prim::first_repeat(d.data(), keys.size(), stream_);
    const auto want = cpu::first_repeat(keys.data(), keys.size());
    EXPECT_EQ(got.has_value(), want.has_value());
    if (got && want) {
      EXPECT_EQ(got->key, want->key);
      EXPECT_EQ(got->first_row, want->first_row);
      EXPECT_EQ(got->second_row, want->second_row);
    }
    EXPECT_EQ(d.to_host(stream_), keys) << "the column was changed";
    return got;
  }
  testing::LazyStream stream_;
};

TEST_F(DeviceFirstRepeat, NoneInEmptySingleAndUniqueColumns) {
  EXPECT_FALSE(prim::first_repeat(nullptr, 0, stream_));
  EXPECT_FALSE(both({42}));
  EXPECT_FALSE(both({5, 1, 4294967295u, 0, 9}));
  std::vector<std::uint32_t> unique(1 << 20);
  std::iota(unique.rbegin(), unique.rend(), 3u);
  EXPECT_FALSE(both(unique));
}

TEST_F(DeviceFirstRepeat, TheSmallestRepeatedKeyAndItsFirstTwoRows) {
  const auto r = both({9, 4, 9, 3, 4, 4, 1, 3});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->key, 3u);
  EXPECT_EQ(r->first_row, 3u);
  EXPECT_EQ(r->second_row, 7u);
  const auto top = both({2, 4294967295u, 4294967295u, 8});
  ASSERT_TRUE(top);
  EXPECT_EQ(top->key, 4294967295u);
}

TEST_F(DeviceFirstRepeat, OneRepeatFarApartInALargeColumn) {
  const std::size_t n = (1 << 22) + 17;
  std::vector<std::uint32_t> keys(n);
  std::iota(keys.begin(), keys.end(), 100u);
  keys[n - 3] = keys[12345];
  const auto r = both(keys);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->first_row, 12345u);
  EXPECT_EQ(r->second_row, n - 3);
}

TEST_F(DeviceFirstRepeat, EveryRowTheSameKey) {
  const auto r = both(std::vector<std::uint32_t>(3000000, 77u));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->first_row, 0u);
  EXPECT_EQ(r->second_row, 1u);
}

TEST_F(DeviceFirstRepeat, AgreesWithTheHostOnRandomColumns) {
  for (const std::size_t n : {2u, 33u, 1000u, 65537u, 1u << 20}) {
    for (const std::uint64_t domain : {std::uint64_t{1}, std::uint64_t{7}, std::uint64_t{2 * n},
                                       std::min<std::uint64_t>(std::uint64_t{n} * n, std::uint64_t{1} << 31)}) {
      const std::uint64_t seed = testing::test_seed() + n + domain;
      HASHLAB_TRACE_SEED(seed);
      SCOPED_TRACE("n = " + std::to_string(n) + ", keys from " + std::to_string(domain));
      both(gen::generate_keys_host(gen::KeySpec::uniform(domain), seed, n));
    }
  }
}

}  // namespace
}  // namespace hashlab
