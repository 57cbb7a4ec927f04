// The catalogue's joins and group-bys across servers on tables in host memory (across_servers.hpp), what
// `hashlab join / groupby --gpus N` run: every answer equals the single-GPU entry's on the same
// columns (int64 and float64 values, as the own-data commands read them), on the local backend's
// 1 to 4 servers sharing the host's GPUs and on NCCL's where the host has the GPUs; the whole
// input is checked first, with the same error as on one GPU; the entries that do not run across
// servers are refused. The lists themselves on the CPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "hashlab/catalogue/catalogue.hpp"
#include "hashlab/catalogue/across_servers.hpp"
#include "hashlab/testing/gpu_test.hpp"
#include "hashlab/servers/testing.hpp"

namespace hashlab::catalogue {
namespace {

using reference::Aggregation;

TEST(AcrossServersLists, EveryAlgorithmAcrossServersIsAGpuEntryOfTheCatalogue) {
  for (const auto& name : groupby_algorithms_across_servers())
    EXPECT_TRUE(groupby_entry(name).needs_gpu) << name;
  // The group-by list is the entries whose across_servers is set (what hashlab list --json says);
  // a join entry's flag agrees with the servers' joins.
  EXPECT_EQ(groupby_algorithms_across_servers(),
            (std::vector<std::string>{"rapids", "sp_ega", "lphga", "sort", "hash"}));
  for (const auto& e : join_entries()) EXPECT_EQ(e.across_servers, join_across_servers(e.name) != nullptr) << e.name;
  for (const auto& spec : joins_across_servers()) {
    EXPECT_EQ(join_entry(spec.entry).name, spec.entry);
    EXPECT_TRUE(join_entry(spec.entry).needs_gpu) << spec.entry;
    EXPECT_FALSE(spec.how.empty());
  }
  ASSERT_NE(join_across_servers("hash"), nullptr) << "a name may leave out _join, as the catalogue's";
  EXPECT_EQ(join_across_servers("hash")->options.partitioning, pkpk::Partitioning::kHash);
  EXPECT_EQ(join_across_servers("bsp")->options.local_join, pkpk::LocalJoin::kBsp);
  EXPECT_EQ(join_across_servers("sort_join")->options.local_join, pkpk::LocalJoin::kSort);
  EXPECT_EQ(join_across_servers("hashgraph"), nullptr);
  EXPECT_EQ(join_across_servers("cpu_join"), nullptr);
}

class AcrossServers : public testing::ServerGroupTest {};

INSTANTIATE_TEST_SUITE_P(Servers, AcrossServers, testing::every_servers_param(), testing::servers_param_name);

/// Keys of `groups` groups and values, as the own-data commands hold them: int64 (below 2^20, so
/// that every entry takes them) and float64.
struct Columns {
  std::vector<std::uint32_t> keys;
  std::vector<std::int64_t> ints;
  std::vector<double> reals;
};
Columns columns(std::size_t rows, std::uint32_t groups, std::uint64_t seed) {
  Columns c;
  std::uint64_t x = seed * 0x9e3779b97f4a7c15ull + 3;
  for (std::size_t i = 0; i < rows; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    c.keys.push_back(static_cast<std::uint32_t>((x >> 9) % groups) * 40503u);
    c.ints.push_back(static_cast<std::int64_t>(x >> 44));
    c.reals.push_back(static_cast<double>(x >> 40) / 1024.0);
  }
  return c;
}

GroupByInput groupby_input(const Columns& c, bool reals) {
  GroupByInput in;
  in.keys = {Column::on_host(c.keys, "key")};
  in.values = {reals ? Column::on_host(c.reals, "value") : Column::on_host(c.ints, "value")};
  in.aggregations = {Aggregation::kSum, Aggregation::kMin, Aggregation::kMax, Aggregation::kCount, Aggregation::kMean};
  return in;
}

reference::GroupByResult single_gpu(const std::string& algorithm, const GroupByInput& in) {
  Stream stream;
  auto g = groupby_entry(algorithm).make(in, {}, stream.get());
  g->prepare(stream.get());
  g->run(stream.get());
  return g->result(stream.get());
}

TEST_P(AcrossServers, EveryGroupByEqualsTheSingleGpuAnswerOnInt64Values) {
  const Columns c = columns(20000, 3000, testing::test_seed());
  const auto in = groupby_input(c, false);
  for (const auto& algorithm : groupby_algorithms_across_servers()) {
    SCOPED_TRACE(algorithm);
    ServersGroupByOptions o;
    o.algorithm = algorithm;
    GroupByAcrossServers g(*group_, in, o);
    g.run();
    g.run();  // runs again on the same shares
    std::vector<ServerGroupByStats> stats;
    const auto got = g.result(&stats);
    EXPECT_EQ(reference::compare(single_gpu(algorithm, in), got), "");
    ASSERT_EQ(stats.size(), static_cast<std::size_t>(p()));
    std::uint64_t rows = 0;
    for (const auto& st : stats) rows += st.rows_in;
    EXPECT_EQ(rows, c.keys.size()) << "every row on one server";
  }
}

TEST_P(AcrossServers, RapidsTakesRealsAndFewGroupsArePreAggregated) {
  const Columns c = columns(30000, 20, testing::test_seed() + 1);
  const auto in = groupby_input(c, true);
  ServersGroupByOptions o;
  o.algorithm = "rapids";
  GroupByAcrossServers g(*group_, in, o);
  std::vector<ServerGroupByStats> stats;
  const auto got = g.result(&stats);
  EXPECT_EQ(reference::compare(single_gpu("rapids", in), got, 1e-9), "");
  EXPECT_TRUE(stats[0].pre_aggregated) << "20 groups of 30,000 rows";
}

TEST_P(AcrossServers, AGroupByAcrossServersChecksTheWholeInputAsOneGpuDoes) {
  Columns c = columns(1000, 50, testing::test_seed() + 2);
  c.ints.back() = std::int64_t{1} << 33;  // the last row, on the last server: beyond SP-EGA's 32-bit values
  const auto in = groupby_input(c, false);
  std::string one_gpu;
  try {
    groupby_entry("sp_ega").check(in, {});
  } catch (const std::invalid_argument& e) {
    one_gpu = e.what();
  }
  ASSERT_FALSE(one_gpu.empty());
  ServersGroupByOptions o;
  o.algorithm = "sp_ega";
  try {
    GroupByAcrossServers g(*group_, in, o);
    FAIL() << "a value beyond 32 bits was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), one_gpu);
  }
  const auto small = groupby_input(columns(10, 2, 1), false);
  for (const char* algorithm : {"cpu", "cpu_stl", "mp_ega"}) {
    o.algorithm = algorithm;
    EXPECT_THROW({ GroupByAcrossServers g(*group_, small, o); }, std::invalid_argument) << algorithm;
  }
  EXPECT_FALSE(group_->failed()) << "refused before any server ran";
}

/// R and S of a Pk-Pk join: distinct keys, half of them matching; row numbers as values.
struct Tables {
  std::vector<std::uint32_t> r_keys, r_values, s_keys, s_values;
  JoinInput input() const {
    return {Column::on_host(r_keys, "r_key"), Column::on_host(r_values, "r_row"),
            Column::on_host(s_keys, "s_key"), Column::on_host(s_values, "s_row")};
  }
};
Tables tables(std::size_t rows, std::uint64_t seed) {
  Tables t;
  for (std::size_t i = 0; i < rows; ++i) {
    t.r_keys.push_back(static_cast<std::uint32_t>((i * 2654435761u + seed) % 0xfffffff0u));
    t.s_keys.push_back(static_cast<std::uint32_t>(((i + rows / 2) * 2654435761u + seed) % 0xfffffff0u));
    t.r_values.push_back(static_cast<std::uint32_t>(i));
    t.s_values.push_back(static_cast<std::uint32_t>(i));
  }
  t.r_keys[0] = 0;  // the smallest key joins too
  t.s_keys[rows / 2] = 0;
  return t;
}

TEST_P(AcrossServers, EveryJoinAcrossServersGivesTheOraclesRows) {
  const Tables t = tables(10000, testing::test_seed());
  const auto in = t.input();
  const auto expected = oracle_join(in);
  ASSERT_GT(expected.size(), 1000u);
  for (const auto& spec : joins_across_servers()) {
    SCOPED_TRACE(spec.entry);
    JoinAcrossServers j(*group_, spec.entry, in, {});
    j.run();
    j.run();
    EXPECT_EQ(compare_rows(expected, j.result()), "");
    std::uint64_t received = 0;
    for (const auto& st : j.stats()) received += st.rows_received;
    EXPECT_EQ(received, 2 * t.r_keys.size()) << "every row of both tables received by one server";
  }
}

TEST_P(AcrossServers, BspsLocalOptionsApplyOnEveryServerAndTraceDoesNot) {
  const Tables t = tables(5000, testing::test_seed() + 1);
  JoinAcrossServers j(*group_, "bsp", t.input(), {{"partitions", "4"}, {"atomic_scatter", "true"}});
  EXPECT_EQ(j.options().local.partitions, 4u);
  EXPECT_TRUE(j.options().local.atomic_scatter);
  j.run();
  EXPECT_EQ(compare_rows(oracle_join(t.input()), j.result()), "");
  EXPECT_THROW({ JoinAcrossServers k(*group_, "bsp", t.input(), {{"trace", "true"}}); }, std::invalid_argument);
}

TEST_P(AcrossServers, ARepeatedKeyOnAnyServerGetsTheSameErrorAsOnOneGpu) {
  Tables t = tables(4000, testing::test_seed() + 2);
  t.s_keys.back() = t.s_keys[1];  // S's row 1 (server 0's) and its last row (the last server's)
  const auto in = t.input();
  std::string one_gpu;
  try {
    join_entry("bsp").check(in, {});
  } catch (const std::invalid_argument& e) {
    one_gpu = e.what();
  }
  ASSERT_NE(one_gpu.find("unique"), std::string::npos) << one_gpu;
  for (const auto& spec : joins_across_servers()) {
    try {
      JoinAcrossServers j(*group_, spec.entry, in, {});
      FAIL() << spec.entry << " took a repeated key";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()), one_gpu) << spec.entry;
    }
  }
  const Tables few = tables(10, 1);
  for (const char* entry : {"hashgraph", "sort_join_hmap", "cpu_join"})
    EXPECT_THROW({ JoinAcrossServers j(*group_, entry, few.input(), {}); }, std::invalid_argument) << entry;
  EXPECT_FALSE(group_->failed());
}

}  // namespace
}  // namespace hashlab::catalogue
