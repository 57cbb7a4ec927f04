// CUB wrappers against std:: equivalents over many sizes (GPU tests).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "hashlab/common/generator.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/common/primitives.hpp"
#include "hashlab/reference/lookup.hpp"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab {
namespace {

using testing::GpuTestWithParam;

class Primitives : public GpuTestWithParam<std::size_t> {
 protected:
  std::size_t n() const { return GetParam(); }
  std::uint64_t seed() const { return testing::test_seed() + n(); }
  testing::LazyStream stream;
};

TEST_P(Primitives, ExclusiveScanMatchesStdInPlace) {
  HASHLAB_TRACE_SEED(seed());
  const auto in = gen::generate_values_host<std::uint32_t>(seed(), 0, 1000, n());
  auto d = to_device(in, stream);
  prim::exclusive_scan(d.data(), d.data(), n(), stream);
  std::vector<std::uint32_t> expected(n());
  std::exclusive_scan(in.begin(), in.end(), expected.begin(), 0u);
  EXPECT_EQ(d.to_host(stream), expected);
}

TEST_P(Primitives, SixtyFourBitExclusiveScanMatchesStd) {
  std::vector<std::uint64_t> in(n());
  for (std::size_t i = 0; i < n(); ++i) in[i] = (i * 2654435761ull) % 5000000000ull;
  auto d = to_device(in, stream);
  prim::exclusive_scan(d.data(), d.data(), n(), stream);
  std::vector<std::uint64_t> expected(n());
  std::exclusive_scan(in.begin(), in.end(), expected.begin(), std::uint64_t{0});
  EXPECT_EQ(d.to_host(stream), expected);
}

TEST_P(Primitives, InclusiveScanAndSumMatchStd) {
  HASHLAB_TRACE_SEED(seed());
  const auto in = gen::generate_values_host<std::uint32_t>(seed(), 0, 0xffffffffu, n());
  auto d = to_device(in, stream);
  DeviceBuffer<std::uint64_t> total(1, stream);
  prim::sum(d.data(), n(), total.data(), stream);
  std::uint64_t expected_sum = 0;
  for (auto v : in) expected_sum += v;
  EXPECT_EQ(read_device_value(total.data(), stream), expected_sum);
  prim::inclusive_scan(d.data(), d.data(), n(), stream);
  std::vector<std::uint32_t> expected(n());
  std::inclusive_scan(in.begin(), in.end(), expected.begin());
  EXPECT_EQ(d.to_host(stream), expected);
}

TEST_P(Primitives, SortPairsIsAStableSortByKey) {
  HASHLAB_TRACE_SEED(seed());
  const auto keys = gen::generate_keys_host(gen::KeySpec::uniform(std::max<std::size_t>(n() / 4, 1)), seed(), n());
  std::vector<std::uint32_t> values(n());
  std::iota(values.begin(), values.end(), 0u);
  auto dk = to_device(keys, stream);
  auto dv = to_device(values, stream);
  prim::sort_pairs(dk.data(), dv.data(), n(), stream);
  const auto expected = reference::sort_pairs(keys, values);
  const auto got_k = dk.to_host(stream), got_v = dv.to_host(stream);
  for (std::size_t i = 0; i < n(); ++i) {
    ASSERT_EQ(got_k[i], expected[i].first) << "at " << i;
    ASSERT_EQ(got_v[i], expected[i].second) << "at " << i;
  }
}

TEST_P(Primitives, SortKeysSortsBothWidths) {
  HASHLAB_TRACE_SEED(seed());
  auto keys = gen::generate_keys_host(gen::KeySpec::unique(), seed(), n());
  auto d = to_device(keys, stream);
  prim::sort_keys(d.data(), n(), stream);
  std::vector<std::uint64_t> wide(n());
  for (std::size_t i = 0; i < n(); ++i) wide[i] = (std::uint64_t{keys[i]} << 32) | (keys[i] ^ 0xabcdu);
  auto dw = to_device(wide, stream);
  prim::sort_keys(dw.data(), n(), stream);
  std::sort(keys.begin(), keys.end());
  std::sort(wide.begin(), wide.end());
  EXPECT_EQ(d.to_host(stream), keys);
  EXPECT_EQ(dw.to_host(stream), wide);
}

TEST_P(Primitives, RunLengthEncodeCountsRunsOfSortedKeys) {
  HASHLAB_TRACE_SEED(seed());
  auto keys = gen::generate_keys_host(gen::KeySpec::uniform(std::max<std::size_t>(n() / 3, 1)), seed(), n());
  std::sort(keys.begin(), keys.end());
  auto d = to_device(keys, stream);
  DeviceBuffer<std::uint32_t> unique(n(), stream), counts(n(), stream), runs(1, stream);
  prim::run_length_encode(d.data(), n(), unique.data(), counts.data(), runs.data(), stream);
  std::vector<std::uint32_t> expected_unique, expected_counts;
  for (std::size_t i = 0; i < n(); ++i) {
    if (i == 0 || keys[i] != keys[i - 1]) {
      expected_unique.push_back(keys[i]);
      expected_counts.push_back(0);
    }
    ++expected_counts.back();
  }
  const std::size_t r = read_device_value(runs.data(), stream);
  ASSERT_EQ(r, expected_unique.size());
  EXPECT_EQ(unique.to_host(stream, r), expected_unique);
  EXPECT_EQ(counts.to_host(stream, r), expected_counts);
}

TEST_P(Primitives, SelectFlaggedKeepsFlaggedItemsInOrder) {
  std::vector<std::uint32_t> in(n());
  std::vector<std::uint8_t> flags(n());
  std::vector<std::uint32_t> expected;
  for (std::size_t i = 0; i < n(); ++i) {
    in[i] = static_cast<std::uint32_t>(i * 3);
    flags[i] = (i % 3 == 1) ? 1 : 0;
    if (flags[i]) expected.push_back(in[i]);
  }
  auto din = to_device(in, stream);
  auto dflags = to_device(flags, stream);
  DeviceBuffer<std::uint32_t> out(n(), stream), count(1, stream);
  prim::select_flagged(din.data(), dflags.data(), n(), out.data(), count.data(), stream);
  const std::size_t c = read_device_value(count.data(), stream);
  ASSERT_EQ(c, expected.size());
  EXPECT_EQ(out.to_host(stream, c), expected);
}

TEST_P(Primitives, LowerBoundMatchesStd) {
  HASHLAB_TRACE_SEED(seed());
  auto sorted = gen::generate_keys_host(gen::KeySpec::uniform(std::max<std::size_t>(n() / 2, 1), 1u << 20), seed(), n());
  std::sort(sorted.begin(), sorted.end());
  const auto queries = gen::generate_keys_host(gen::KeySpec::uniform(1000, 1u << 20), seed() + 1, 2000);
  auto ds = to_device(sorted, stream);
  auto dq = to_device(queries, stream);
  DeviceBuffer<std::uint32_t> out(queries.size(), stream);
  prim::lower_bound(ds.data(), n(), dq.data(), queries.size(), out.data(), stream);
  const auto got = out.to_host(stream);
  for (std::size_t i = 0; i < queries.size(); ++i)
    ASSERT_EQ(got[i], std::lower_bound(sorted.begin(), sorted.end(), queries[i]) - sorted.begin()) << "query " << i;
}

INSTANTIATE_TEST_SUITE_P(Sizes, Primitives,
                         ::testing::Values(0, 1, 2, 31, 1000, 4097, 100003, 1 << 20),
                         [](const auto& info) { return "n" + std::to_string(info.param); });

}  // namespace
}  // namespace hashlab
