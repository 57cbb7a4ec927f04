// The group-by across servers against the single-GPU answer: every GPU group-by of the catalogue
// on the local backend's 1 to 3 servers sharing GPU 0 (any GPU machine) and on NCCL's 1 and 2
// servers where the host has the GPUs; many groups (the rows are shuffled) and few (the RAPIDS
// estimator chooses the pre-aggregation), forced both ways; the pre-aggregation (its partials merged
// on the device: merge_partials_gpu_test.cpp tests that merge against the host's) for every entry,
// on keys 0 and 0xfffffffe, with a server without rows, and on float64 values with two key columns
// (counts int64); bad input on one server.
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <tuple>

#include "hashlab/catalogue/catalogue.hpp"
#include "hashlab/catalogue/servers_groupby.hpp"
#include "hashlab/servers/group.hpp"
#include "hashlab/testing/gpu_test.hpp"
#include "hashlab/servers/testing.hpp"

namespace hashlab::catalogue {
namespace {

using reference::Aggregation;
using servers::Backend;

const std::vector<Aggregation> kEvery = {Aggregation::kSum, Aggregation::kMin, Aggregation::kMax, Aggregation::kCount,
                                         Aggregation::kMean};

/// The whole input: `rows` rows of `groups` keys (never the empty-slot key), values below 2^20.
struct Whole {
  std::vector<std::uint32_t> keys, values;
  std::vector<std::int32_t> int_values;  // the same values for rapids, which takes int32
};
Whole whole(std::size_t rows, std::uint32_t groups, std::uint64_t seed) {
  Whole w;
  std::uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
  for (std::size_t i = 0; i < rows; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    w.keys.push_back(static_cast<std::uint32_t>((x >> 7) % groups) * 2654435761u % 0xfffffff0u);
    w.values.push_back(static_cast<std::uint32_t>(x >> 44));
    w.int_values.push_back(static_cast<std::int32_t>(x >> 44));
  }
  return w;
}

GroupByInput input_of(const std::string& algorithm, const std::uint32_t* keys, const void* values,
                                 std::size_t rows, bool device) {
  GroupByInput in;
  in.aggregations = kEvery;
  const bool rapids = algorithm == "rapids";
  Column k{"key", DType::kUint32, rows, device ? nullptr : keys, device ? keys : nullptr, {}};
  Column v{"value", rapids ? DType::kInt32 : DType::kUint32, rows,
                      device ? nullptr : values, device ? values : nullptr, {}};
  in.keys = {k};
  in.values = {v};
  return in;
}

class ServersGroupBy : public testing::ServerGroupTest {
 protected:
  /// The servers' groups put together, and each server's statistics.
  std::pair<reference::GroupByResult, std::vector<ServerGroupByStats>> across(const Whole& w, const ServersGroupByOptions& o) {
    std::mutex mutex;
    std::vector<reference::GroupByResult> parts(static_cast<std::size_t>(p()));
    std::vector<ServerGroupByStats> stats(static_cast<std::size_t>(p()));
    group_->run([&](servers::Communicator& comm) {
      const auto d = static_cast<std::size_t>(comm.rank()), n = static_cast<std::size_t>(comm.size());
      const std::size_t begin = w.keys.size() * d / n, end = w.keys.size() * (d + 1) / n;
      // Server 0 hands its share on the host, the others on the device (both are taken).
      const bool device = d != 0;
      std::vector<std::uint32_t> k(w.keys.begin() + begin, w.keys.begin() + end);
      std::vector<std::uint32_t> v(w.values.begin() + begin, w.values.begin() + end);
      std::vector<std::int32_t> iv(w.int_values.begin() + begin, w.int_values.begin() + end);
      auto dk = to_device(k, comm.stream());
      auto dv = to_device(v, comm.stream());
      auto div = to_device(iv, comm.stream());
      const void* values = o.algorithm == "rapids" ? (device ? static_cast<const void*>(div.data()) : iv.data())
                                                   : (device ? static_cast<const void*>(dv.data()) : v.data());
      const auto in = input_of(o.algorithm, device ? dk.data() : k.data(), values, k.size(), device);
      ServerGroupByStats st;
      auto mine = servers_groupby(comm, in, o, &st);
      EXPECT_TRUE(mine.sorted_by_key()) << comm.who();
      std::lock_guard<std::mutex> lock(mutex);
      parts[d] = std::move(mine);
      stats[d] = st;
    });
    reference::GroupByResult all = parts[0];
    for (std::size_t d = 1; d < parts.size(); ++d) all.append(parts[d]);
    all.sort_by_key();
    return {all, stats};
  }

  /// The single-GPU answer: the same entry on the whole input.
  static reference::GroupByResult single_gpu(const Whole& w, const std::string& algorithm) {
    Stream stream;
    const void* values = algorithm == "rapids" ? static_cast<const void*>(w.int_values.data()) : w.values.data();
    const auto in = input_of(algorithm, w.keys.data(), values, w.keys.size(), false);
    auto g = groupby_entry(algorithm).make(in, {}, stream.get());
    g->prepare(stream.get());
    g->run(stream.get());
    return g->result(stream.get());
  }
};

INSTANTIATE_TEST_SUITE_P(Servers, ServersGroupBy,
                         ::testing::Values(testing::ServersParam{Backend::kLocal, 1}, testing::ServersParam{Backend::kLocal, 2},
                                           testing::ServersParam{Backend::kLocal, 3}, testing::ServersParam{Backend::kNccl, 1},
                                           testing::ServersParam{Backend::kNccl, 2}, testing::ServersParam{Backend::kNccl, 4}),
                         testing::servers_param_name);

TEST_P(ServersGroupBy, EveryGpuGroupByEqualsItsSingleGpuAnswerWithManyGroups) {
  const Whole w = whole(30000, 20000, testing::test_seed());
  for (const char* algorithm : {"sp_ega", "lphga", "sort", "hash", "rapids"}) {
    SCOPED_TRACE(algorithm);
    ServersGroupByOptions o;
    o.algorithm = algorithm;
    const auto [all, stats] = across(w, o);
    EXPECT_EQ(reference::compare(single_gpu(w, algorithm), all), "");
    for (const auto& st : stats) EXPECT_FALSE(st.pre_aggregated) << "about 15,000 groups of 30,000 rows: no pre-aggregation";
    std::uint64_t load = 0;
    for (const auto& st : stats) load += st.rows_received;
    EXPECT_EQ(load, w.keys.size());
  }
}

TEST_P(ServersGroupBy, FewGroupsArePreAggregatedAndGiveTheSameAnswer) {
  const Whole w = whole(50000, 40, testing::test_seed() + 1);
  for (const char* algorithm : {"sp_ega", "sort", "rapids"}) {
    SCOPED_TRACE(algorithm);
    ServersGroupByOptions o;
    o.algorithm = algorithm;
    const auto [all, stats] = across(w, o);
    EXPECT_EQ(reference::compare(single_gpu(w, algorithm), all), "");
    for (const auto& st : stats) {
      EXPECT_TRUE(st.pre_aggregated) << "40 groups: the estimator should choose the pre-aggregation";
      EXPECT_LE(st.rows_sent, 40u) << "a server sends its partial groups, not its rows";
      EXPECT_GT(st.estimated_groups_total, 0.0);
    }
  }
}

TEST_P(ServersGroupBy, ForcingEitherWayGivesTheSameAnswer) {
  const Whole w = whole(20000, 300, testing::test_seed() + 2);
  const auto expected = single_gpu(w, "hash");
  for (const PreAggregation mode : {PreAggregation::kAlways, PreAggregation::kNever}) {
    ServersGroupByOptions o;
    o.algorithm = "hash";
    o.pre_aggregation = mode;
    const auto [all, stats] = across(w, o);
    EXPECT_EQ(reference::compare(expected, all), "") << to_string(mode);
    EXPECT_EQ(stats[0].pre_aggregated, mode == PreAggregation::kAlways);
  }
}

TEST_P(ServersGroupBy, EveryGpuGroupByPreAggregatedEqualsItsSingleGpuAnswerKeysZeroAndLargestToo) {
  // The partials merged on each server's device; keys 0 and 0xfffffffe among them (0xffffffff is
  // the empty-slot key most entries refuse).
  Whole w = whole(20000, 500, testing::test_seed() + 3);
  for (std::size_t i = 0; i < w.keys.size(); i += 97) w.keys[i] = i % 2 == 0 ? 0u : 0xfffffffeu;
  for (const char* algorithm : {"sp_ega", "lphga", "sort", "hash", "rapids"}) {
    SCOPED_TRACE(algorithm);
    ServersGroupByOptions o;
    o.algorithm = algorithm;
    o.pre_aggregation = PreAggregation::kAlways;
    const auto [all, stats] = across(w, o);
    const auto expected = single_gpu(w, algorithm);
    EXPECT_EQ(reference::compare(expected, all), "");
    ASSERT_GE(all.groups(), 2u);
    EXPECT_EQ(all.keys[0].front(), 0u);
    EXPECT_EQ(all.keys[0].back(), 0xfffffffeu);
    std::uint64_t sent = 0;
    for (const auto& st : stats) {
      EXPECT_TRUE(st.pre_aggregated);
      sent += st.rows_sent;
    }
    EXPECT_LE(sent, static_cast<std::uint64_t>(p()) * expected.groups()) << "at most one partial per group and server";
  }
}

TEST_P(ServersGroupBy, AServerWithoutRowsTakesPartInThePreAggregation) {
  const Whole w = whole(2, 2, testing::test_seed() + 4);  // 3 servers: one of them has no row
  ServersGroupByOptions o;
  o.algorithm = "sort";
  o.pre_aggregation = PreAggregation::kAlways;
  const auto [all, stats] = across(w, o);
  EXPECT_EQ(reference::compare(single_gpu(w, "sort"), all), "");
}

TEST_P(ServersGroupBy, FloatingValuesOnTwoKeyColumnsPreAggregatedKeepCountsInt64) {
  // rapids (the entry that takes float64 values and several key columns), forced to pre-aggregate:
  // the partial sums, minima and maxima travel as doubles, the counts as int64.
  const std::size_t rows = 30000;
  std::vector<std::uint32_t> k0, k1;
  std::vector<double> values;
  std::uint64_t x = testing::test_seed() * 0x9e3779b97f4a7c15ull + 5;
  for (std::size_t i = 0; i < rows; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    k0.push_back(static_cast<std::uint32_t>(x % 40) * 7u);  // 40 x 25 tuples: many rows per group
    k1.push_back(i % 50 == 0 ? 0xfffffffeu : static_cast<std::uint32_t>((x >> 20) % 25));
    values.push_back(static_cast<double>(static_cast<std::int64_t>(x >> 40) - (1 << 23)) / 1024.0);
  }
  const auto columns_of = [](const std::uint32_t* a, const std::uint32_t* b, const double* v, std::size_t n,
                             bool device) {
    GroupByInput in;
    in.aggregations = kEvery;
    in.keys = {{"k0", DType::kUint32, n, device ? nullptr : a, device ? a : nullptr, {}},
               {"k1", DType::kUint32, n, device ? nullptr : b, device ? b : nullptr, {}}};
    in.values = {{"v", DType::kFloat64, n, device ? nullptr : v, device ? v : nullptr, {}}};
    return in;
  };
  std::mutex mutex;
  std::vector<reference::GroupByResult> parts(static_cast<std::size_t>(p()));
  group_->run([&](servers::Communicator& comm) {
    const auto d = static_cast<std::size_t>(comm.rank()), n = static_cast<std::size_t>(comm.size());
    const std::size_t begin = rows * d / n, end = rows * (d + 1) / n;
    const std::vector<std::uint32_t> h0(k0.begin() + begin, k0.begin() + end), h1(k1.begin() + begin, k1.begin() + end);
    const std::vector<double> hv(values.begin() + begin, values.begin() + end);
    const auto dk0 = to_device(h0, comm.stream());
    const auto dk1 = to_device(h1, comm.stream());
    const auto dv = to_device(hv, comm.stream());
    ServersGroupByOptions o;
    o.algorithm = "rapids";
    o.pre_aggregation = PreAggregation::kAlways;
    ServerGroupByStats st;
    auto mine = servers_groupby(comm, columns_of(dk0.data(), dk1.data(), dv.data(), end - begin, true), o, &st);
    EXPECT_TRUE(st.pre_aggregated) << comm.who();
    EXPECT_TRUE(mine.sorted_by_key()) << comm.who();
    std::lock_guard<std::mutex> lock(mutex);
    parts[d] = std::move(mine);
  });
  reference::GroupByResult all = parts[0];
  for (std::size_t d = 1; d < parts.size(); ++d) {
    for (std::size_t c = 0; c < all.keys.size(); ++c)
      all.keys[c].insert(all.keys[c].end(), parts[d].keys[c].begin(), parts[d].keys[c].end());
    for (std::size_t a = 0; a < all.aggregates.size(); ++a) {
      all.aggregates[a].exact.insert(all.aggregates[a].exact.end(), parts[d].aggregates[a].exact.begin(),
                                     parts[d].aggregates[a].exact.end());
      all.aggregates[a].real.insert(all.aggregates[a].real.end(), parts[d].aggregates[a].real.begin(),
                                    parts[d].aggregates[a].real.end());
    }
  }
  all.sort_by_key();
  Stream stream;
  auto g = groupby_entry("rapids").make(columns_of(k0.data(), k1.data(), values.data(), rows, false), {}, stream.get());
  g->prepare(stream.get());
  g->run(stream.get());
  // The floating sums add in another order across servers: equal to 1e-9.
  EXPECT_EQ(reference::compare(g->result(stream.get()), all, 1e-9), "");
  ASSERT_EQ(all.aggregates.size(), kEvery.size());
  for (const auto& a : all.aggregates) {
    SCOPED_TRACE(reference::to_string(a.op));
    const bool exact = a.op == Aggregation::kCount;
    EXPECT_EQ(a.is_exact(), exact) << "a count over floating values is int64; sum, min, max, mean are double";
    EXPECT_EQ(exact ? a.exact.size() : a.real.size(), all.groups());
  }
}

TEST_P(ServersGroupBy, BadInputOnOneServerReachesEveryServer) {
  // The last server's share holds the empty-slot key of SP-EGA's table.
  expect_every_server_refuses("(group-by: input)", [&](servers::Communicator& comm) {
    std::vector<std::uint32_t> k = {1, 2, 3}, v = {4, 5, 6};
    if (comm.rank() + 1 == comm.size()) k[1] = 0xffffffffu;
    servers_groupby(comm, input_of("sp_ega", k.data(), v.data(), k.size(), false), ServersGroupByOptions{});
  });
  EXPECT_FALSE(group_->failed());
}

TEST_P(ServersGroupBy, AnInputWithoutRowsIsRefusedOnEveryServerAsOnOneGpu) {
  // Servers without rows take part (above); when none has a row, every server gives the refusal
  // of the single-GPU entry, "key: no rows".
  expect_every_server_refuses("key: no rows", [&](servers::Communicator& comm) {
    servers_groupby(comm, input_of("sort", nullptr, nullptr, 0, false), ServersGroupByOptions{});
  });
  EXPECT_FALSE(group_->failed());
}

TEST_P(ServersGroupBy, ACpuGroupByIsRefusedOnEveryServer) {
  EXPECT_THROW(group_->run([&](servers::Communicator& comm) {
                 std::vector<std::uint32_t> k = {1, 2}, v = {3, 4};
                 ServersGroupByOptions o;
                 o.algorithm = "cpu";
                 servers_groupby(comm, input_of("cpu", k.data(), v.data(), 2, false), o);
               }),
               std::invalid_argument);
}

}  // namespace
}  // namespace hashlab::catalogue
