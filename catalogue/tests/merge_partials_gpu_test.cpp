// The pre-aggregation's merge on the device (servers_groupby.hpp, detail::merge_partials_on_device)
// against its host reference, detail::merge_partials, on the same partials: random ones with one
// to three key columns, integer and floating value columns, every base aggregation alone and all
// together; no rows, one row, one group, keys 0, 0xfffffffe and 0xffffffff (the merge sorts, so no
// key is a sentinel). The answers must be identical: the same groups in the same order, each
// column in the same type (a count over floating values int64), floating sums to the bit (the
// device folds a group's rows in the host's order). One GPU, no servers.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "hashlab/catalogue/servers_groupby.hpp"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab::catalogue {
namespace {

using reference::Aggregation;

const std::vector<Aggregation> kBase = {Aggregation::kSum, Aggregation::kMin, Aggregation::kMax, Aggregation::kCount};
const std::vector<Aggregation> kEvery = {Aggregation::kSum, Aggregation::kMin, Aggregation::kMax, Aggregation::kCount,
                                         Aggregation::kMean};

/// Random partials of `rows` rows whose key tuples are drawn from `tuples` random ones (or from
/// `given` tuples when there are any), for value columns of the given kinds (true: integer).
detail::Partials random_partials(std::size_t rows, std::size_t key_columns, std::size_t tuples,
                                 const std::vector<Aggregation>& base, const std::vector<bool>& integer_values,
                                 std::uint64_t seed, const std::vector<std::vector<std::uint32_t>>& given = {}) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<std::uint32_t>> distinct = given;
  if (distinct.empty()) {
    distinct.assign(tuples, std::vector<std::uint32_t>(key_columns));
    for (auto& t : distinct)
      for (auto& k : t) k = static_cast<std::uint32_t>(rng());
  }
  tuples = distinct.size();
  detail::Partials p;
  p.keys.assign(key_columns, {});
  p.is_exact = detail::exact_partials(base, integer_values);
  p.exact.resize(p.is_exact.size());
  p.real.resize(p.is_exact.size());
  std::uniform_real_distribution<double> magnitude(-20, 20);
  for (std::size_t r = 0; r < rows; ++r) {
    const auto& t = distinct[rng() % tuples];
    for (std::size_t c = 0; c < key_columns; ++c) p.keys[c].push_back(t[c]);
    for (std::size_t col = 0; col < p.is_exact.size(); ++col) {
      const Aggregation op = base[col % base.size()];
      if (p.is_exact[col]) {
        // Counts positive; other exact partials of either sign, some near 2^40.
        p.exact[col].push_back(op == Aggregation::kCount ? static_cast<std::int64_t>(1 + rng() % 1000)
                                                         : static_cast<std::int64_t>(rng() % (1ull << 41)) - (1ll << 40));
      } else {
        // Magnitudes from 2^-20 to 2^20: a sum in another order would give other bits.
        p.real[col].push_back(std::ldexp(static_cast<double>(rng() % 1000000) - 500000.0, static_cast<int>(magnitude(rng))));
      }
    }
  }
  return p;
}

class MergePartialsOnDevice : public testing::GpuTest {
 protected:
  testing::LazyStream stream_;

  /// merge_partials_on_device on an upload of `p`, downloaded.
  reference::GroupByResult on_device(const detail::Partials& p, std::size_t value_columns,
                                     const std::vector<Aggregation>& base, const std::vector<Aggregation>& requested) {
    std::vector<DeviceBuffer<std::uint32_t>> keys;
    std::vector<DeviceBuffer<unsigned char>> columns;
    detail::DevicePartials d;
    d.rows = p.rows();
    d.is_exact = p.is_exact;
    for (const auto& k : p.keys) {
      keys.push_back(to_device(k, stream_));
      d.keys.push_back(keys.back().data());
    }
    for (std::size_t col = 0; col < p.is_exact.size(); ++col) {
      std::vector<unsigned char> bytes(d.rows * 8);
      if (d.rows > 0) std::memcpy(bytes.data(), p.is_exact[col] ? static_cast<const void*>(p.exact[col].data())
                                                                : static_cast<const void*>(p.real[col].data()),
                                  d.rows * 8);
      columns.push_back(to_device(bytes, stream_));
      d.columns.push_back(columns.back().data());
      HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream_));  // `bytes` goes
    }
    const DeviceGroupByResult merged = detail::merge_partials_on_device(d, value_columns, base, requested, stream_);
    EXPECT_EQ(merged.groups, merged.keys.empty() ? 0 : merged.keys.front().size());
    return detail::downloaded(merged, stream_);
  }

  /// The device merge gives the host merge's answer, column for column, in the same types.
  void expect_as_on_the_host(const detail::Partials& p, std::size_t value_columns, const std::vector<Aggregation>& base,
                             const std::vector<Aggregation>& requested) {
    const reference::GroupByResult host = detail::merge_partials(p, value_columns, base, requested);
    const reference::GroupByResult device = on_device(p, value_columns, base, requested);
    EXPECT_TRUE(device.sorted_by_key());
    EXPECT_EQ(reference::compare(host, device, 0), "");
    ASSERT_EQ(device.keys.size(), host.keys.size());
    for (std::size_t c = 0; c < host.keys.size(); ++c) EXPECT_EQ(device.keys[c], host.keys[c]) << "key column " << c;
    ASSERT_EQ(device.aggregates.size(), host.aggregates.size());
    for (std::size_t a = 0; a < host.aggregates.size(); ++a) {
      SCOPED_TRACE("output column " + std::to_string(a));
      EXPECT_EQ(device.aggregates[a].op, host.aggregates[a].op);
      EXPECT_EQ(device.aggregates[a].is_exact(), host.aggregates[a].is_exact());
      EXPECT_EQ(device.aggregates[a].exact, host.aggregates[a].exact);
      EXPECT_EQ(device.aggregates[a].real, host.aggregates[a].real);  // to the bit (no NaN here)
    }
  }
};

TEST_F(MergePartialsOnDevice, EqualsTheHostMergeOnRandomPartialsOfOneToThreeKeyColumns) {
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  for (const std::size_t key_columns : {1, 2, 3})
    for (const std::size_t rows : {1000, 40000}) {
      SCOPED_TRACE(std::to_string(key_columns) + " key columns, " + std::to_string(rows) + " rows");
      // An integer and a floating value column, every base aggregation of each.
      const auto p = random_partials(rows, key_columns, rows / 3, kBase, {true, false}, seed + rows + key_columns);
      expect_as_on_the_host(p, 2, kBase, kEvery);
    }
}

TEST_F(MergePartialsOnDevice, EachBaseAggregationAloneOnIntegerAndFloatingValues) {
  const std::uint64_t seed = testing::test_seed() + 1;
  HASHLAB_TRACE_SEED(seed);
  for (const Aggregation a : kEvery) {
    SCOPED_TRACE(reference::to_string(a));
    const std::vector<Aggregation> base = detail::base_aggregations({a});
    for (const bool integer : {true, false}) {
      SCOPED_TRACE(integer ? "integer values" : "floating values");
      const auto p = random_partials(5000, 1, 700, base, {integer}, seed + static_cast<int>(a) * 2 + integer);
      expect_as_on_the_host(p, 1, base, {a});
    }
  }
}

TEST_F(MergePartialsOnDevice, ACountOverFloatingValuesStaysInt64AndAMeanIsADouble) {
  const std::vector<Aggregation> base = detail::base_aggregations({Aggregation::kCount, Aggregation::kMean});
  const auto p = random_partials(3000, 2, 100, base, {false}, testing::test_seed() + 2);
  const reference::GroupByResult device = on_device(p, 1, base, {Aggregation::kCount, Aggregation::kMean});
  ASSERT_EQ(device.aggregates.size(), 2u);
  EXPECT_TRUE(device.aggregates[0].is_exact());
  EXPECT_EQ(device.aggregates[0].exact.size(), device.groups());
  EXPECT_FALSE(device.aggregates[1].is_exact());
  EXPECT_EQ(device.aggregates[1].real.size(), device.groups());
  expect_as_on_the_host(p, 1, base, {Aggregation::kCount, Aggregation::kMean});
}

TEST_F(MergePartialsOnDevice, NoRowsGiveNoGroupsInTheAnswersShape) {
  const auto p = random_partials(0, 2, 1, kBase, {true, false}, 1);
  const reference::GroupByResult device = on_device(p, 2, kBase, kEvery);
  EXPECT_EQ(device.groups(), 0u);
  EXPECT_EQ(device.keys.size(), 2u);
  EXPECT_EQ(device.aggregates.size(), 10u);
  expect_as_on_the_host(p, 2, kBase, kEvery);
}

TEST_F(MergePartialsOnDevice, OneRowIsOneGroup) {
  const auto p = random_partials(1, 3, 1, kBase, {false, true}, testing::test_seed() + 3);
  expect_as_on_the_host(p, 2, kBase, kEvery);
  EXPECT_EQ(on_device(p, 2, kBase, kEvery).groups(), 1u);
}

TEST_F(MergePartialsOnDevice, AllRowsOfOneKeyTupleFoldIntoOneGroupInTheHostsOrder) {
  // 20,000 floating partials of one group: their sum depends on the order they are added in.
  const auto p = random_partials(20000, 2, 1, kBase, {false, true}, testing::test_seed() + 4);
  expect_as_on_the_host(p, 2, kBase, kEvery);
  EXPECT_EQ(on_device(p, 2, kBase, kEvery).groups(), 1u);
}

TEST_F(MergePartialsOnDevice, KeysZeroAndTheLargestAreKeysLikeAnyOther) {
  const std::vector<std::uint32_t> pool = {0u, 1u, 0x7fffffffu, 0x80000000u, 0xfffffffeu, 0xffffffffu};
  const std::uint64_t seed = testing::test_seed() + 5;
  HASHLAB_TRACE_SEED(seed);
  for (const std::size_t key_columns : {1, 2}) {
    SCOPED_TRACE(std::to_string(key_columns) + " key columns");
    std::vector<std::vector<std::uint32_t>> tuples;  // every tuple of the pool's keys
    for (const std::uint32_t a : pool) {
      if (key_columns == 1) tuples.push_back({a});
      else for (const std::uint32_t b : pool) tuples.push_back({a, b});
    }
    // 4,000 rows over at most 36 tuples: every tuple is drawn (the chance that one is not: below 2^-150).
    const auto p = random_partials(4000, key_columns, 0, kBase, {true, false}, seed + key_columns, tuples);
    expect_as_on_the_host(p, 2, kBase, kEvery);
    EXPECT_EQ(on_device(p, 2, kBase, kEvery).groups(), tuples.size());
  }
}

TEST_F(MergePartialsOnDevice, RetypeConvertsAsTheHostConversionDid) {
  const std::vector<double> reals = {-2.75, 0.0, 3.5, 1e12, -7.0};
  const std::vector<std::int64_t> exacts = {-3, 0, 5, (1ll << 50) + 1, 42};
  DeviceGroupByResult::Aggregate a;
  a.exact = false;
  a.real_values = to_device(reals, stream_);
  detail::retype(a, true, reals.size(), stream_);
  ASSERT_TRUE(a.exact);
  std::vector<std::int64_t> truncated;
  for (const double x : reals) truncated.push_back(static_cast<std::int64_t>(x));
  EXPECT_EQ(a.exact_values.to_host(stream_), truncated);
  DeviceGroupByResult::Aggregate b;
  b.exact = true;
  b.exact_values = to_device(exacts, stream_);
  detail::retype(b, false, exacts.size(), stream_);
  ASSERT_FALSE(b.exact);
  std::vector<double> widened;
  for (const std::int64_t x : exacts) widened.push_back(static_cast<double>(x));
  EXPECT_EQ(b.real_values.to_host(stream_), widened);
  detail::retype(b, false, exacts.size(), stream_);  // already double: unchanged
  EXPECT_EQ(b.real_values.to_host(stream_), widened);
}

}  // namespace
}  // namespace hashlab::catalogue
