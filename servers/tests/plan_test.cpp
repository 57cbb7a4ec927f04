// The host side of the exchanges (plan.hpp): no GPU needed.
#include <gtest/gtest.h>

#include <numeric>

#include "hashlab/servers/communicator.hpp"
#include "hashlab/servers/plan.hpp"

namespace hashlab::servers {
namespace {

// counts[s * p + d]: server s sends to server d.
const std::vector<std::uint64_t> kThreeServers = {1, 2, 3,   // server 0 sends 1, 2, 3
                                                  0, 5, 0,   // server 1 keeps its 5
                                                  7, 0, 4};  // server 2

TEST(ExchangePlan, SendSideIsTheServersRowPackedInServerOrder) {
  const ExchangePlan plan = ExchangePlan::from_counts(kThreeServers, 3, 0);
  EXPECT_EQ(plan.send_counts, (std::vector<std::uint64_t>{1, 2, 3}));
  EXPECT_EQ(plan.send_offsets, (std::vector<std::uint64_t>{0, 1, 3}));
  EXPECT_EQ(plan.send_total(), 6u);
}

TEST(ExchangePlan, ReceiveSideIsTheServersColumnPackedInSenderOrder) {
  const ExchangePlan plan = ExchangePlan::from_counts(kThreeServers, 3, 2);
  EXPECT_EQ(plan.recv_counts, (std::vector<std::uint64_t>{3, 0, 4}));
  EXPECT_EQ(plan.recv_offsets, (std::vector<std::uint64_t>{0, 3, 3}));
  EXPECT_EQ(plan.recv_total(), 7u);
}

TEST(ExchangePlan, EverySendMatchesItsReceiver) {
  constexpr int p = 3;
  std::vector<ExchangePlan> plans;
  for (int r = 0; r < p; ++r) plans.push_back(ExchangePlan::from_counts(kThreeServers, p, r));
  for (int s = 0; s < p; ++s)
    for (int d = 0; d < p; ++d) EXPECT_EQ(plans[s].send_counts[d], plans[d].recv_counts[s]) << s << " -> " << d;
}

TEST(ExchangePlan, BroadcastSendsTheSameElementsToEveryServer) {
  const ExchangePlan plan = ExchangePlan::broadcast({4, 0, 2}, 1);
  EXPECT_EQ(plan.send_counts, (std::vector<std::uint64_t>{0, 0, 0}));  // server 1 has nothing to send
  EXPECT_EQ(plan.recv_counts, (std::vector<std::uint64_t>{4, 0, 2}));
  EXPECT_EQ(plan.recv_offsets, (std::vector<std::uint64_t>{0, 4, 4}));
  const ExchangePlan first = ExchangePlan::broadcast({4, 0, 2}, 0);
  EXPECT_EQ(first.send_counts, (std::vector<std::uint64_t>{4, 4, 4}));
  EXPECT_EQ(first.send_offsets, (std::vector<std::uint64_t>{0, 0, 0}));
}

TEST(ExchangePlan, ScaledMultipliesCountsAndOffsets) {
  const ExchangePlan plan = ExchangePlan::from_counts(kThreeServers, 3, 0).scaled(8);
  EXPECT_EQ(plan.send_offsets, (std::vector<std::uint64_t>{0, 8, 24}));
  EXPECT_EQ(plan.recv_counts, (std::vector<std::uint64_t>{8, 0, 56}));
  EXPECT_THROW(plan.scaled(std::uint64_t{1} << 62), std::invalid_argument);
}

TEST(ExchangePlan, RejectsAMatrixOfTheWrongShapeOrARankOutsideTheGroup) {
  EXPECT_THROW(ExchangePlan::from_counts(kThreeServers, 2, 0), std::invalid_argument);
  EXPECT_THROW(ExchangePlan::from_counts(kThreeServers, 3, 3), std::invalid_argument);
  EXPECT_THROW(ExchangePlan::from_counts({}, 0, 0), std::invalid_argument);
  EXPECT_THROW(ExchangePlan::from_counts({~std::uint64_t{0}, 1, 0, 0}, 2, 0), std::invalid_argument);
}

TEST(ServerLoads, AreTheColumnSumsAndTheirBalanceTheFullestOverTheMean) {
  const auto loads = server_loads(kThreeServers, 3);
  EXPECT_EQ(loads, (std::vector<std::uint64_t>{8, 7, 7}));
  const LoadBalance b = load_balance(loads);
  EXPECT_EQ(b.total, 22u);
  EXPECT_EQ(b.fullest, 8u);
  EXPECT_DOUBLE_EQ(b.fullest_over_mean(), 8.0 / (22.0 / 3.0));
  EXPECT_DOUBLE_EQ(load_balance({0, 0}).fullest_over_mean(), 0.0);
  EXPECT_DOUBLE_EQ(load_balance({5, 5, 5, 5}).fullest_over_mean(), 1.0);
}

TEST(AssignDevices, PutsServerROnDeviceR) {
  EXPECT_EQ(assign_devices(4, 4, {}, false), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(assign_devices(2, 8, {}, false), (std::vector<int>{0, 1}));
}

TEST(AssignDevices, SharesGpusOnlyWhenAskedTo) {
  EXPECT_EQ(assign_devices(4, 1, {}, true), (std::vector<int>{0, 0, 0, 0}));
  EXPECT_EQ(assign_devices(3, 2, {}, true), (std::vector<int>{0, 1, 0}));
  try {
    assign_devices(4, 2, {}, false);
    FAIL() << "4 servers on 2 GPUs without sharing";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("4 GPUs asked for, this host has 2"), std::string::npos) << e.what();
  }
}

TEST(AssignDevices, RejectsMissingOrRepeatedDevices) {
  EXPECT_EQ(assign_devices(2, 4, {3, 1}, false), (std::vector<int>{3, 1}));
  EXPECT_THROW(assign_devices(2, 4, {0, 4}, false), std::invalid_argument);
  EXPECT_THROW(assign_devices(2, 4, {1, 1}, false), std::invalid_argument);
  EXPECT_EQ(assign_devices(2, 4, {1, 1}, true), (std::vector<int>{1, 1}));
  EXPECT_THROW(assign_devices(3, 4, {0, 1}, false), std::invalid_argument);
  EXPECT_THROW(assign_devices(0, 4, {}, false), std::invalid_argument);
  EXPECT_THROW(assign_devices(1, 0, {}, true), std::invalid_argument);
}

TEST(ParseServerCount, TakesAPositiveWholeNumberOnly) {
  EXPECT_EQ(parse_server_count("4"), 4);
  for (const char* bad : {"0", "-1", "two", "2.5", "", "4x", "100000"})
    EXPECT_THROW(parse_server_count(bad), std::invalid_argument) << bad;
}

TEST(Backend, ParsesItsTwoNames) {
  EXPECT_EQ(parse_backend("nccl"), Backend::kNccl);
  EXPECT_EQ(parse_backend("local"), Backend::kLocal);
  EXPECT_STREQ(to_string(Backend::kLocal), "local");
  EXPECT_THROW(parse_backend("mpi"), std::invalid_argument);
}

TEST(Guarded, ReturnsWhatTheStepThrew) {
  EXPECT_EQ(guarded([] {}), nullptr);
  const std::exception_ptr e = guarded([] { throw std::invalid_argument("bad"); });
  ASSERT_NE(e, nullptr);
  EXPECT_THROW(std::rethrow_exception(e), std::invalid_argument);
}

}  // namespace
}  // namespace hashlab::servers

#include "hashlab/servers/shuffle.hpp"

namespace hashlab::servers {
namespace {

TEST(ShuffleServer, SpreadsKeyTuplesEvenlyAndOneServerTakesAll) {
  constexpr unsigned p = 4;
  std::vector<unsigned> counts(p, 0);
  for (std::uint32_t a = 0; a < 400; ++a)
    for (std::uint32_t b = 0; b < 1000; ++b) {
      const std::uint32_t tuple[] = {a, b};
      const unsigned d = server_of_key_tuple(tuple, 2, p);
      ASSERT_LT(d, p);
      ++counts[d];
    }
  for (unsigned d = 0; d < p; ++d) EXPECT_NEAR(counts[d], 100000.0, 2000.0) << "server " << d;
  const std::uint32_t one[] = {42};
  EXPECT_EQ(server_of_key_tuple(one, 1, 1), 0u);
  // The tuple's order matters: (1, 2) and (2, 1) are different groups.
  const std::uint32_t ab[] = {1, 2}, ba[] = {2, 1};
  bool differs = false;
  for (unsigned servers = 2; servers < 64 && !differs; ++servers)
    differs = server_of_key_tuple(ab, 2, servers) != server_of_key_tuple(ba, 2, servers);
  EXPECT_TRUE(differs);
}

}  // namespace
}  // namespace hashlab::servers
