// The join across GPU servers (servers_join.hpp) against the CPU reference join: the local backend
// with 1 to 4 servers sharing GPU 0 (any GPU machine), NCCL with 1 server on any GPU and with 2 and
// 4 where the host has the GPUs (skipped, with the reason, where it has not).
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "hashlab/common/generator.hpp"
#include "hashlab/pkpk_join/servers_join.hpp"
#include "hashlab/servers/group.hpp"
#include "hashlab/testing/gpu_test.hpp"
#include "hashlab/servers/testing.hpp"

namespace hashlab::pkpk {
namespace {

using Keys = std::vector<std::uint32_t>;
using servers::Backend;

/// Both tables split among the servers: share d of each column is server d's.
struct Shares {
  std::vector<Keys> r_keys, r_values, s_keys, s_values;
};

/// Values that identify their row and table, so a value from the wrong row shows.
Keys values_for(const Keys& keys, std::uint32_t table) {
  Keys v(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) v[i] = (keys[i] * 2654435761u) ^ (table ? 0xa5a5a5a5u : 0x5a5a5a5au);
  return v;
}

/// Rows [d * n / p, (d + 1) * n / p) of each table go to server d (`weights` skews the split).
Shares split(const Keys& r, const Keys& s, int p, const std::vector<double>& weights = {}) {
  Shares out;
  const Keys rv = values_for(r, 0), sv = values_for(s, 1);
  std::vector<double> w = weights.empty() ? std::vector<double>(p, 1.0) : weights;
  double total = 0;
  for (double x : w) total += x;
  auto cut = [&](const Keys& keys, const Keys& values, std::vector<Keys>& k, std::vector<Keys>& v) {
    double at = 0;
    std::size_t begin = 0;
    for (int d = 0; d < p; ++d) {
      at += w[d];
      const std::size_t end = d + 1 == p ? keys.size() : static_cast<std::size_t>(keys.size() * at / total);
      k.emplace_back(keys.begin() + begin, keys.begin() + end);
      v.emplace_back(values.begin() + begin, values.begin() + end);
      begin = end;
    }
  };
  cut(r, rv, out.r_keys, out.r_values);
  cut(s, sv, out.s_keys, out.s_values);
  return out;
}

std::vector<JoinedRow> expected_rows(const Keys& r, const Keys& s) {
  return reference_join(r, values_for(r, 0), s, values_for(s, 1));
}

struct Outcome {
  std::vector<JoinedRow> rows;                // gathered, server after server
  std::vector<ServerJoinStats> stats;         // per server
  std::vector<std::size_t> rows_per_server;
};

Outcome run_join(servers::ServerGroup& group, const Shares& shares, const ServersJoinOptions& options) {
  Outcome out;
  out.stats.resize(static_cast<std::size_t>(group.size()));
  out.rows_per_server.resize(static_cast<std::size_t>(group.size()));
  std::mutex mutex;
  group.run([&](servers::Communicator& comm) {
    const auto d = static_cast<std::size_t>(comm.rank());
    cudaStream_t st = comm.stream();
    auto rk = to_device(shares.r_keys[d], st), rv = to_device(shares.r_values[d], st);
    auto sk = to_device(shares.s_keys[d], st), sv = to_device(shares.s_values[d], st);
    ServerJoinStats stats;
    const JoinedRows rows = servers_join(comm, {rk.data(), rv.data(), shares.r_keys[d].size()},
                                         {sk.data(), sv.data(), shares.s_keys[d].size()}, options, &stats);
    auto all = gather_rows(comm, rows);
    std::lock_guard<std::mutex> lock(mutex);
    out.stats[d] = stats;
    out.rows_per_server[d] = rows.size;
    if (d == 0) out.rows = std::move(all);
  });
  return out;
}

class ServersJoin : public testing::ServerGroupTest {
 protected:
  /// Generated pk-pk tables (random order, match rate as given).
  static std::pair<Keys, Keys> tables(std::uint64_t r_rows, std::uint64_t s_rows, double match, std::uint64_t seed) {
    Keys r, s;
    gen::generate_pkpk_host({r_rows, s_rows, 100000000, match}, seed, r, s);
    return {r, s};
  }

  /// Every partitioning and local join gives the reference's rows; sampled splitters give them
  /// sorted server after server.
  void expect_every_join_matches(const Keys& r, const Keys& s, const Shares& shares) {
    const auto expected = expected_rows(r, s);
    for (const auto& [partitioning, local] :
         {std::pair{Partitioning::kSampledSplitters, LocalJoin::kBsp}, std::pair{Partitioning::kSampledSplitters, LocalJoin::kSort},
          std::pair{Partitioning::kHash, LocalJoin::kHash}, std::pair{Partitioning::kHash, LocalJoin::kBsp}}) {
      SCOPED_TRACE(std::string(to_string(partitioning)) + " + local " + to_string(local));
      ServersJoinOptions options;
      options.partitioning = partitioning;
      options.local_join = local;
      Outcome got = run_join(*group_, shares, options);
      if (partitioning == Partitioning::kHash || local == LocalJoin::kHash)
        std::sort(got.rows.begin(), got.rows.end());
      ASSERT_EQ(got.rows.size(), expected.size());
      EXPECT_TRUE(std::equal(got.rows.begin(), got.rows.end(), expected.begin()));
      std::uint64_t load = 0;
      for (const auto& st : got.stats) load += st.rows_received;
      EXPECT_EQ(load, r.size() + s.size()) << "every row is received by exactly one server";
      for (std::size_t d = 0; d < got.stats.size(); ++d) {
        EXPECT_EQ(got.stats[d].rows_received, got.stats[0].loads[d]);
        EXPECT_EQ(got.stats[d].loads, got.stats[0].loads) << "every server knows every load";
      }
    }
  }
};

INSTANTIATE_TEST_SUITE_P(Servers, ServersJoin, testing::every_servers_param(), testing::servers_param_name);

TEST_P(ServersJoin, EveryJoinGivesTheReferenceRows) {
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const auto [r, s] = tables(30000, 20000, 0.5, seed);
  expect_every_join_matches(r, s, split(r, s, p()));
}

TEST_P(ServersJoin, UnevenSharesAndEmptyServersGiveTheReferenceRows) {
  const std::uint64_t seed = testing::test_seed() + 1;
  HASHLAB_TRACE_SEED(seed);
  const auto [r, s] = tables(9000, 13000, 0.3, seed);
  std::vector<double> weights(static_cast<std::size_t>(p()), 0.0);
  weights[0] = 5;  // server 0 holds most rows, the last few none (when p > 2)
  if (p() > 1) weights[1] = 1;
  expect_every_join_matches(r, s, split(r, s, p(), weights));
}

TEST_P(ServersJoin, TablesSmallerThanTheGroupAndEmptyTablesJoin) {
  expect_every_join_matches({5}, {5}, split({5}, {5}, p()));
  expect_every_join_matches({}, {}, split({}, {}, p()));
  expect_every_join_matches({1, 2, 3}, {}, split({1, 2, 3}, {}, p()));
}

TEST_P(ServersJoin, KeysZeroAndTheLargestJoin) {
  const Keys r = {0u, 0xffffffffu, 17u, 4000000000u}, s = {0xffffffffu, 0u, 4000000000u, 99u};
  const auto expected = expected_rows(r, s);
  ServersJoinOptions options;  // sampled splitters, local BSP (the hash join cannot hold 0xffffffff)
  Outcome got = run_join(*group_, split(r, s, p()), options);
  ASSERT_EQ(got.rows.size(), expected.size());
  EXPECT_TRUE(std::equal(got.rows.begin(), got.rows.end(), expected.begin()));
}

TEST_P(ServersJoin, SplittersAreSortedAndEveryServerHoldsItsKeyRange) {
  const auto [r, s] = tables(40000, 40000, 0.5, testing::test_seed() + 2);
  const Outcome got = run_join(*group_, split(r, s, p()), {});
  const auto& splitters = got.stats[0].splitters;
  ASSERT_EQ(splitters.size(), static_cast<std::size_t>(p() - 1));
  EXPECT_TRUE(std::is_sorted(splitters.begin(), splitters.end()));
  for (const auto& st : got.stats) EXPECT_EQ(st.splitters, splitters) << "every server chose the same splitters";
  // Server d's rows lie in [splitter d - 1, splitter d): the gathered rows, server after server.
  std::size_t at = 0;
  for (int d = 0; d < p(); ++d) {
    for (std::size_t i = 0; i < got.rows_per_server[d]; ++i, ++at) {
      if (d > 0) EXPECT_GE(got.rows[at].key, splitters[d - 1]) << "server " << d;
      if (d + 1 < p()) EXPECT_LT(got.rows[at].key, splitters[d]) << "server " << d;
    }
  }
}

TEST_P(ServersJoin, TheReportsSamplesPerTileBalanceUniformKeys) {
  // 2^18 rows per table: each server samples log2(p) keys per tile of 4096 of its rows
  // (S = 2^19 / 4096 * log2(p) samples over all servers, 256 to 1024 here); the fullest server's
  // share then has a standard deviation of about 5% of N/p, so 1.25 N/p is more than 4 of them.
  const auto [r, s] = tables(1u << 18, 1u << 18, 0.5, testing::test_seed() + 3);
  const Outcome got = run_join(*group_, split(r, s, p()), {});
  const servers::LoadBalance balance = servers::load_balance(got.stats[0].loads);
  EXPECT_EQ(balance.total, r.size() + s.size());
  EXPECT_LE(balance.fullest_over_mean(), 1.25) << "fullest " << balance.fullest << " of mean " << balance.mean;
  std::uint64_t samples = 0;
  for (const auto& st : got.stats) samples += st.samples;
  EXPECT_EQ(got.stats[0].samples_total, samples);
  EXPECT_EQ(samples, sampling_plan(r.size() / p() + s.size() / p(), p(), 0).samples * p())
      << "log2(p) samples per tile of 4096 on every server (equal shares here)";
}

TEST_P(ServersJoin, ARepeatedKeyOnOneServerEndsEveryServerWithTheSameError) {
  auto [r, s] = tables(5000, 5000, 0.5, testing::test_seed() + 4);
  Shares shares = split(r, s, p());
  // The last server's R holds one of its keys twice.
  auto& last = shares.r_keys.back();
  ASSERT_GE(last.size(), 2u);
  last[1] = last[0];
  for (const LocalJoin local : {LocalJoin::kBsp, LocalJoin::kSort}) {
    ServersJoinOptions options;
    options.local_join = local;
    try {
      run_join(*group_, shares, options);
      FAIL() << "a repeated key joined";
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("key " + std::to_string(last[0]) + " appears more than once in R"), std::string::npos) << what;
      EXPECT_NE(what.find("(local join)"), std::string::npos) << what;
    }
    EXPECT_FALSE(group_->failed()) << "every server threw the same error at the boundary";
  }
}

TEST_P(ServersJoin, AKeyRepeatedAcrossTwoServersIsFoundByTheServerThatReceivesBoth) {
  if (p() < 2) GTEST_SKIP() << "needs two servers";
  auto [r, s] = tables(4000, 4000, 0.5, testing::test_seed() + 5);
  Shares shares = split(r, s, p());
  shares.s_keys[1][0] = shares.s_keys[0][0];  // one key of S on servers 0 and 1
  EXPECT_THROW(run_join(*group_, shares, {}), std::invalid_argument);
  EXPECT_FALSE(group_->failed());
  const auto good = tables(3000, 3000, 0.5, 7);
  expect_every_join_matches(good.first, good.second, split(good.first, good.second, p()));
}

TEST_P(ServersJoin, BadInputOnOneServerReachesEveryServer) {
  const auto [r, s] = tables(2000, 2000, 0.5, 9);
  const Shares shares = split(r, s, p());
  expect_every_server_refuses("no key or value column", [&](servers::Communicator& comm) {
    const auto d = static_cast<std::size_t>(comm.rank());
    auto rk = to_device(shares.r_keys[d], comm.stream()), rv = to_device(shares.r_values[d], comm.stream());
    auto sk = to_device(shares.s_keys[d], comm.stream()), sv = to_device(shares.s_values[d], comm.stream());
    // The last server's S has rows but no value column.
    const TableView s_view = {sk.data(), comm.rank() + 1 == comm.size() ? nullptr : sv.data(),
                              shares.s_keys[d].size() + (comm.rank() + 1 == comm.size() ? 1 : 0)};
    servers_join(comm, {rk.data(), rv.data(), shares.r_keys[d].size()}, s_view);
  });
}

TEST_P(ServersJoin, AServerThatFailsAloneEndsEveryServer) {
  const auto [r, s] = tables(2000, 2000, 0.5, 11);
  const Shares shares = split(r, s, p());
  const int bad = p() - 1;
  EXPECT_THROW(group_->run([&](servers::Communicator& comm) {
                 const auto d = static_cast<std::size_t>(comm.rank());
                 if (comm.rank() == bad) throw std::runtime_error("server lost its GPU");  // before any collective
                 auto rk = to_device(shares.r_keys[d], comm.stream()), rv = to_device(shares.r_values[d], comm.stream());
                 auto sk = to_device(shares.s_keys[d], comm.stream()), sv = to_device(shares.s_values[d], comm.stream());
                 EXPECT_THROW(servers_join(comm, {rk.data(), rv.data(), shares.r_keys[d].size()},
                                           {sk.data(), sv.data(), shares.s_keys[d].size()}),
                              servers::GroupAborted);
               }),
               std::runtime_error);
  EXPECT_TRUE(group_->failed());
}

}  // namespace
}  // namespace hashlab::pkpk
