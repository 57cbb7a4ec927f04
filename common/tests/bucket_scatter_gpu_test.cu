// bucket_scatter.cuh: the GPU's stable bucket scatter gives the CPU pass's answer (scatter.hpp,
// cpu::scatter_by_bucket): the same offsets and every row at the same place, each bucket's rows in
// input order, for bucket counts from 1 to kMaxScatterBuckets, row counts around the tile and the
// block, and buckets that are skewed, empty or all alike.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "hashlab/common/bucket_scatter.cuh"
#include "hashlab/common/scatter.hpp"
#include "hashlab/testing/gpu_test.hpp"
#include "bucket_layouts.hpp"

namespace hashlab {
namespace {

using testing::GpuTestWithParam;

struct BucketOfRow {
  const std::uint32_t* bucket;
  __device__ unsigned operator()(std::size_t i) const { return bucket[i]; }
};

struct MoveRow {
  const std::uint32_t* in;
  std::uint32_t* out;
  __device__ std::uint32_t load(std::size_t i) const { return in[i]; }
  __device__ void store(std::uint64_t to, std::uint32_t v) const { out[to] = v; }
};

using testing::buckets_of;
using testing::Layout;

/// Runs of 1000 rows (kRunsOfBuckets).
constexpr std::size_t kRun = 1000;

using Param = std::tuple<std::size_t, unsigned, Layout>;

class BucketScatterGpu : public GpuTestWithParam<Param> {
 protected:
  testing::LazyStream stream;
};

TEST_P(BucketScatterGpu, EqualsTheCpuScatter) {
  const auto [n, buckets, layout] = GetParam();
  const std::vector<std::uint32_t> bucket = buckets_of(n, buckets, layout, testing::test_seed() + n + buckets, kRun);
  std::vector<std::uint32_t> rows(n);
  for (std::size_t i = 0; i < n; ++i) rows[i] = static_cast<std::uint32_t>(i * 2654435761u);

  std::vector<std::uint32_t> expected(n, 0);
  const cpu::Scatter cpu = cpu::scatter_by_bucket(
      n, 3, buckets, [&](std::size_t i) { return bucket[i]; }, [&](std::size_t i, std::size_t to) { expected[to] = rows[i]; });

  const auto d_bucket = to_device(bucket, stream);
  const auto d_rows = to_device(rows, stream);
  auto d_out = to_device(std::vector<std::uint32_t>(n, 0xdeadbeefu), stream);
  const BucketOfRow bucket_of{d_bucket.data()};
  const BucketScatter plan = plan_bucket_scatter(n, buckets, bucket_of, stream);
  scatter_buckets(plan, bucket_of, MoveRow{d_rows.data(), d_out.data()}, stream);

  ASSERT_EQ(plan.offsets.size(), cpu.offsets.size());
  for (std::size_t b = 0; b < cpu.offsets.size(); ++b) EXPECT_EQ(plan.offsets[b], cpu.offsets[b]) << "bucket " << b;
  EXPECT_EQ(d_out.to_host(stream), expected);
}

TEST_P(BucketScatterGpu, ASecondMoveWithThePlanPlacesTheRowsAlike) {
  // The servers move each column group with its own pass over one plan.
  const auto [n, buckets, layout] = GetParam();
  const std::vector<std::uint32_t> bucket = buckets_of(n, buckets, layout, testing::test_seed() + 7, kRun);
  std::vector<std::uint32_t> a(n), b(n);
  for (std::size_t i = 0; i < n; ++i) a[i] = static_cast<std::uint32_t>(i), b[i] = static_cast<std::uint32_t>(~i);
  const auto d_bucket = to_device(bucket, stream);
  const auto d_a = to_device(a, stream), d_b = to_device(b, stream);
  DeviceBuffer<std::uint32_t> out_a(n, stream), out_b(n, stream);
  const BucketOfRow bucket_of{d_bucket.data()};
  const BucketScatter plan = plan_bucket_scatter(n, buckets, bucket_of, stream);
  scatter_buckets(plan, bucket_of, MoveRow{d_a.data(), out_a.data()}, stream);
  scatter_buckets(plan, bucket_of, MoveRow{d_b.data(), out_b.data()}, stream);
  const auto got_a = out_a.to_host(stream), got_b = out_b.to_host(stream);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got_b[i], ~got_a[i]) << "row " << i;
  for (std::size_t i = 1; i < n; ++i)  // each bucket's rows in input order (a holds the row numbers)
    if (bucket[got_a[i]] == bucket[got_a[i - 1]]) ASSERT_LT(got_a[i - 1], got_a[i]) << "row " << i;
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, BucketScatterGpu,
    ::testing::Combine(::testing::Values(std::size_t{0}, std::size_t{1}, std::size_t{255}, std::size_t{257},
                                         std::size_t{4095}, std::size_t{4097}, std::size_t{100003}),
                       ::testing::Values(1u, 2u, 3u, 4u, 33u, kMaxScatterBuckets),
                       ::testing::Values(Layout::kRandom, Layout::kOneBucket, Layout::kLastBucketOnly, Layout::kSkewed,
                                         Layout::kRunsOfBuckets)),
    [](const auto& info) {
      return "n" + std::to_string(std::get<0>(info.param)) + "_b" + std::to_string(std::get<1>(info.param)) + "_" +
             to_string(std::get<2>(info.param));
    });

// Enough rows that the tiles grow past kMinScatterTile (buckets * tiles capped): many steps per tile.
class BucketScatterGpuLarge : public testing::GpuTest {
 protected:
  testing::LazyStream stream;
};

TEST_F(BucketScatterGpuLarge, ManyBucketsAndTilesLargerThanTheMinimum) {
  const std::size_t n = (std::size_t{1} << 23) + 5;  // 2^23 / 4096 tiles of 4096 rows would not hold it
  const unsigned buckets = kMaxScatterBuckets;
  const std::vector<std::uint32_t> bucket = buckets_of(n, buckets, Layout::kRandom, testing::test_seed(), kRun);
  std::vector<std::uint32_t> rows(n), expected(n);
  for (std::size_t i = 0; i < n; ++i) rows[i] = static_cast<std::uint32_t>(i);
  const cpu::Scatter cpu = cpu::scatter_by_bucket(
      n, 4, buckets, [&](std::size_t i) { return bucket[i]; }, [&](std::size_t i, std::size_t to) { expected[to] = rows[i]; });
  const auto d_bucket = to_device(bucket, stream);
  const auto d_rows = to_device(rows, stream);
  DeviceBuffer<std::uint32_t> out(n, stream);
  const BucketOfRow bucket_of{d_bucket.data()};
  const BucketScatter plan = plan_bucket_scatter(n, buckets, bucket_of, stream);
  EXPECT_GT(plan.tile, std::size_t{4096});
  scatter_buckets(plan, bucket_of, MoveRow{d_rows.data(), out.data()}, stream);
  EXPECT_EQ(plan.offsets, std::vector<std::uint64_t>(cpu.offsets.begin(), cpu.offsets.end()));
  EXPECT_EQ(out.to_host(stream), expected);
}

TEST(BucketScatter, RefusesBucketCountsOutsideItsRange) {
  // Checked before any device work: runs without a GPU.
  const BucketOfRow none{nullptr};
  EXPECT_THROW(plan_bucket_scatter(10, 0, none, nullptr), std::invalid_argument);
  EXPECT_THROW(plan_bucket_scatter(10, kMaxScatterBuckets + 1, none, nullptr), std::invalid_argument);
}

}  // namespace
}  // namespace hashlab
