// The collectives and the failure paths of both backends: the local backend with 1 to 4 servers
// sharing GPU 0 (any GPU machine), NCCL with 1 server on any GPU and with 2 to 4 servers where
// the host has that many GPUs (skipped, with the reason, where it has not).
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <numeric>
#include <string>

#include "hashlab/common/memory.hpp"
#include "hashlab/servers/bandwidth.hpp"
#include "hashlab/servers/group.hpp"
#include "hashlab/testing/gpu_test.hpp"
#include "hashlab/servers/testing.hpp"

namespace hashlab::servers {
namespace {

class Collectives : public testing::ServerGroupTest {};

INSTANTIATE_TEST_SUITE_P(Servers, Collectives, testing::every_servers_param(), testing::servers_param_name);

TEST_P(Collectives, EveryServerKnowsItsRankSizeAndDevice) {
  std::vector<int> ranks(static_cast<std::size_t>(p()), -1);
  group_->run([&](Communicator& comm) {
    int device = -1;
    HASHLAB_CUDA_CHECK(cudaGetDevice(&device));
    EXPECT_EQ(device, comm.device());
    EXPECT_EQ(comm.size(), p());
    ranks[static_cast<std::size_t>(comm.rank())] = comm.rank();
  });
  for (int r = 0; r < p(); ++r) EXPECT_EQ(ranks[static_cast<std::size_t>(r)], r);
}

TEST_P(Collectives, AllGatherGivesEveryServerEveryServersBuffer) {
  group_->run([&](Communicator& comm) {
    const std::vector<std::uint32_t> mine = {100u * comm.rank(), 100u * comm.rank() + 1, 100u * comm.rank() + 2};
    auto send = to_device(mine, comm.stream());
    DeviceBuffer<std::uint32_t> recv(3 * static_cast<std::size_t>(comm.size()), comm.stream());
    comm.all_gather(send.data(), recv.data(), 3);
    const auto got = recv.to_host(comm.stream());
    for (int s = 0; s < comm.size(); ++s)
      for (int i = 0; i < 3; ++i) EXPECT_EQ(got[3 * s + i], 100u * s + i) << comm.who();
  });
}

TEST_P(Collectives, AllGatherVTakesUnequalCountsAndEmptyServers) {
  group_->run([&](Communicator& comm) {
    // Server r holds r elements (server 0 none), each r * 1000 + i.
    std::vector<std::uint64_t> mine(static_cast<std::size_t>(comm.rank()));
    for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = 1000u * comm.rank() + i;
    auto send = to_device(mine, comm.stream());
    const std::size_t total = static_cast<std::size_t>(comm.size()) * (comm.size() - 1) / 2;
    DeviceBuffer<std::uint64_t> recv(total, comm.stream());
    const auto counts = comm.all_gather_v(send.data(), mine.size(), recv.data());
    const auto got = recv.to_host(comm.stream());
    std::size_t at = 0;
    for (int s = 0; s < comm.size(); ++s) {
      EXPECT_EQ(counts[static_cast<std::size_t>(s)], static_cast<std::uint64_t>(s));
      for (int i = 0; i < s; ++i) EXPECT_EQ(got[at++], 1000u * s + i) << comm.who();
    }
  });
}

TEST_P(Collectives, AllToAllDeliversEveryBlockToItsServerWithVariableSizes) {
  group_->run([&](Communicator& comm) {
    const int n = comm.size();
    // Server s sends (s + d) % 3 elements to server d (some of them none), valued s * 100 + d * 10 + i.
    std::vector<std::uint64_t> counts(static_cast<std::size_t>(n) * n);
    for (int s = 0; s < n; ++s)
      for (int d = 0; d < n; ++d) counts[static_cast<std::size_t>(s) * n + d] = (s + d) % 3;
    const ExchangePlan plan = ExchangePlan::from_counts(counts, n, comm.rank());
    std::vector<std::uint32_t> send_host(plan.send_total());
    for (int d = 0; d < n; ++d)
      for (std::uint64_t i = 0; i < plan.send_counts[d]; ++i)
        send_host[plan.send_offsets[d] + i] = static_cast<std::uint32_t>(comm.rank() * 100 + d * 10 + i);
    auto send = to_device(send_host, comm.stream());
    DeviceBuffer<std::uint32_t> recv(plan.recv_total(), comm.stream());
    comm.all_to_all(send.data(), plan, recv.data());
    const auto got = recv.to_host(comm.stream());
    for (int s = 0; s < n; ++s)
      for (std::uint64_t i = 0; i < plan.recv_counts[s]; ++i)
        EXPECT_EQ(got[plan.recv_offsets[s] + i], static_cast<std::uint32_t>(s * 100 + comm.rank() * 10 + i))
            << comm.who() << " from server " << s;
  });
}

TEST_P(Collectives, AllToAllManyDeliversEachExchangeAsItsOwnCallWould) {
  // Two exchanges of different element sizes and plans in one call (the join's R and S, a
  // table's columns): each lands where one all_to_all of it alone puts it.
  group_->run([&](Communicator& comm) {
    const int n = comm.size();
    std::vector<std::uint64_t> counts_a(static_cast<std::size_t>(n) * n), counts_b(counts_a.size());
    for (int s = 0; s < n; ++s)
      for (int d = 0; d < n; ++d) {
        counts_a[static_cast<std::size_t>(s) * n + d] = (s + 2 * d) % 4;  // some pairs send nothing
        counts_b[static_cast<std::size_t>(s) * n + d] = 1000 + 10 * s + d;
      }
    const ExchangePlan plan_a = ExchangePlan::from_counts(counts_a, n, comm.rank());
    const ExchangePlan plan_b = ExchangePlan::from_counts(counts_b, n, comm.rank());
    std::vector<std::uint32_t> send_a(plan_a.send_total());
    std::vector<std::uint64_t> send_b(plan_b.send_total());
    for (int d = 0; d < n; ++d) {
      for (std::uint64_t i = 0; i < plan_a.send_counts[d]; ++i)
        send_a[plan_a.send_offsets[d] + i] = static_cast<std::uint32_t>(comm.rank() * 100 + d * 10 + i);
      for (std::uint64_t i = 0; i < plan_b.send_counts[d]; ++i)
        send_b[plan_b.send_offsets[d] + i] = (std::uint64_t(comm.rank()) << 48) | (std::uint64_t(d) << 32) | i;
    }
    auto d_send_a = to_device(send_a, comm.stream());
    auto d_send_b = to_device(send_b, comm.stream());
    DeviceBuffer<std::uint32_t> recv_a(plan_a.recv_total(), comm.stream());
    DeviceBuffer<std::uint64_t> recv_b(plan_b.recv_total(), comm.stream());
    comm.all_to_all_many({{d_send_a.data(), plan_a.scaled(sizeof(std::uint32_t)), recv_a.data()},
                          {d_send_b.data(), plan_b.scaled(sizeof(std::uint64_t)), recv_b.data()}});
    const auto got_a = recv_a.to_host(comm.stream());
    const auto got_b = recv_b.to_host(comm.stream());
    for (int s = 0; s < n; ++s) {
      for (std::uint64_t i = 0; i < plan_a.recv_counts[s]; ++i)
        EXPECT_EQ(got_a[plan_a.recv_offsets[s] + i], static_cast<std::uint32_t>(s * 100 + comm.rank() * 10 + i))
            << comm.who() << " from server " << s;
      for (std::uint64_t i = 0; i < plan_b.recv_counts[s]; ++i)
        ASSERT_EQ(got_b[plan_b.recv_offsets[s] + i], (std::uint64_t(s) << 48) | (std::uint64_t(comm.rank()) << 32) | i)
            << comm.who() << " from server " << s;
    }
  });
}

TEST_P(Collectives, HostValuesAreGatheredAndReduced) {
  group_->run([&](Communicator& comm) {
    const auto all = comm.all_gather_host(static_cast<std::uint64_t>(comm.rank() * 3 + 1));
    for (int s = 0; s < comm.size(); ++s) EXPECT_EQ(all[static_cast<std::size_t>(s)], static_cast<std::uint64_t>(3 * s + 1));
    EXPECT_EQ(comm.all_reduce_max(comm.rank() + 10u), static_cast<std::uint64_t>(comm.size() + 9));
    const std::uint64_t n = comm.size();
    EXPECT_EQ(comm.all_reduce_sum(comm.rank()), n * (n - 1) / 2);
    comm.barrier();
  });
}

TEST_P(Collectives, AGroupRunsManyTimes) {
  std::atomic<int> runs{0};
  for (int i = 0; i < 3; ++i) group_->run([&](Communicator& comm) {
    comm.barrier();
    ++runs;
  });
  EXPECT_EQ(runs.load(), 3 * p());
}

TEST_P(Collectives, BadInputOnOneServerReachesEveryServerAsTheSameError) {
  const int bad = p() - 1;
  std::mutex mutex;
  std::vector<std::string> messages(static_cast<std::size_t>(p()));
  EXPECT_THROW(group_->run([&](Communicator& comm) {
                 const std::exception_ptr error = guarded([&] {
                   if (comm.rank() == bad) throw std::invalid_argument("key 7 appears twice in R");
                 });
                 try {
                   comm.phase_boundary(error, "local join");
                 } catch (const std::invalid_argument& e) {
                   std::lock_guard<std::mutex> lock(mutex);
                   messages[static_cast<std::size_t>(comm.rank())] = e.what();
                   throw;
                 }
               }),
               std::invalid_argument);
  const std::string expected =
      "server " + std::to_string(bad) + " of " + std::to_string(p()) + " (local join): key 7 appears twice in R";
  for (const auto& m : messages) EXPECT_EQ(m, expected);
  EXPECT_FALSE(group_->failed()) << "an error every server shares leaves the group usable";
  std::atomic<int> after{0};
  group_->run([&](Communicator& comm) {
    comm.phase_boundary(nullptr, "next");
    ++after;
  });
  EXPECT_EQ(after.load(), p());
}

TEST_P(Collectives, AServerThatFailsAloneEndsEveryServerNeverAHang) {
  const int bad = p() / 2;
  std::atomic<int> aborted{0};
  try {
    group_->run([&](Communicator& comm) {
      if (comm.rank() == bad) throw std::runtime_error("server failed on its own");
      try {
        // The others wait for the failed server in a collective it never joins.
        DeviceBuffer<int> send(1, comm.stream()), recv(static_cast<std::size_t>(comm.size()), comm.stream());
        send.fill_bytes(0, comm.stream());
        comm.all_gather(send.data(), recv.data(), 1);
        comm.barrier();
      } catch (const GroupAborted& e) {
        EXPECT_NE(std::string(e.what()).find("server failed on its own"), std::string::npos) << e.what();
        ++aborted;
        throw;
      }
    });
    FAIL() << "run() returned although a server failed";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "server failed on its own") << "run() rethrows the failing server's own error";
  }
  EXPECT_EQ(aborted.load(), p() - 1);
  EXPECT_TRUE(group_->failed());
  EXPECT_THROW(group_->run([](Communicator&) {}), std::logic_error);
}

// Plans that disagree are refused before any server copies anything (a copy sized by a plan its
// peer does not share would read or write past a buffer), and every server gets the same error.
// The local backend sees every server's plan; NCCL sees only its own, so with several NCCL servers
// a disagreement is the caller's to avoid (communicator.hpp) and that case is skipped. With one
// server the plan disagrees with itself (it sends itself 2 bytes and expects 1), which both
// backends refuse.
TEST_P(Collectives, PlansThatDisagreeAreAnErrorNotAHang) {
  if (backend() == Backend::kNccl && p() > 1)
    GTEST_SKIP() << "an NCCL server cannot see its peers' plans: a disagreement between servers is the caller's to "
                    "avoid (communicator.hpp)";
  std::mutex mutex;
  std::vector<std::string> messages(static_cast<std::size_t>(p()));
  EXPECT_THROW(group_->run([&](Communicator& comm) {
                 const int n = comm.size();
                 std::vector<std::uint64_t> counts(static_cast<std::size_t>(n) * n, 1);
                 if (n > 1 && comm.rank() == 0) counts[1] = 2;  // server 0 believes it sends 2 to server 1
                 ExchangePlan plan = ExchangePlan::from_counts(counts, n, comm.rank());
                 if (n == 1) plan.send_counts[0] = 2;  // one server: it sends itself 2 and expects 1
                 DeviceBuffer<std::uint8_t> send(plan.send_total(), comm.stream()),
                     recv(plan.recv_total(), comm.stream());
                 send.fill_bytes(1, comm.stream());
                 try {
                   comm.all_to_all(send.data(), plan, recv.data());
                 } catch (const std::logic_error& e) {
                   std::lock_guard<std::mutex> lock(mutex);
                   messages[static_cast<std::size_t>(comm.rank())] = e.what();
                   throw;
                 }
               }),
               std::logic_error);
  EXPECT_TRUE(group_->failed());
  const std::string disagreement = p() > 1 ? "server 0 sends 2 bytes to server 1, which expects 1"
                                           : "sends itself 2 bytes but expects 1";
  for (int r = 0; r < p(); ++r) {
    // Every server finds the disagreement itself, before any copy.
    const std::string& m = messages[static_cast<std::size_t>(r)];
    EXPECT_NE(m.find("server " + std::to_string(r) + " of " + std::to_string(p()) + ": "), std::string::npos) << m;
    EXPECT_NE(m.find(disagreement), std::string::npos) << m;
  }
}

TEST_P(Collectives, AllGatherSizesThatDisagreeAreAnErrorBeforeAnyCopy) {
  if (backend() == Backend::kNccl) GTEST_SKIP() << "an NCCL server cannot see its peers' sizes (communicator.hpp)";
  if (p() < 2) GTEST_SKIP() << "one server's all-gather has no other size to disagree with";
  std::atomic<int> refused{0};
  EXPECT_THROW(group_->run([&](Communicator& comm) {
                 // The last server gathers 8 bytes a server, the others 4.
                 const std::size_t count = comm.rank() == comm.size() - 1 ? 2 : 1;
                 DeviceBuffer<std::uint32_t> send(count, comm.stream()),
                     recv(count * static_cast<std::size_t>(comm.size()), comm.stream());
                 send.fill_bytes(0, comm.stream());
                 try {
                   comm.all_gather(send.data(), recv.data(), count);
                 } catch (const std::logic_error& e) {
                   if (std::string(e.what()).find("all-gather sizes disagree") != std::string::npos) ++refused;
                   throw;
                 }
               }),
               std::logic_error);
  EXPECT_EQ(refused.load(), p()) << "every server refuses the all-gather";
}

TEST_P(Collectives, AllToAllBandwidthIsMeasuredOnWrittenBuffers) {
  const AllToAllTiming t = measure_all_to_all(*group_, std::uint64_t{1} << 20, 3);
  EXPECT_EQ(t.servers, p());
  EXPECT_EQ(t.ms.size(), 3u);
  EXPECT_GT(t.median_ms, 0.0);
  EXPECT_EQ(t.bytes_to_others, (std::uint64_t{1} << 20) / p() * (p() - 1));
}

class ServerGroupErrors : public testing::GpuTest {};

TEST_F(ServerGroupErrors, MoreNcclServersThanGpusIsRefusedWithTheCounts) {
  if (!nccl_built()) GTEST_SKIP() << "this build has no NCCL";
  const int gpus = device_count();
  try {
    ServerGroup group({gpus + 1, Backend::kNccl, {}});
    FAIL() << "a group of " << gpus + 1 << " NCCL servers on " << gpus << " GPUs";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(gpus + 1) + " GPUs asked for, this host has " +
                                         std::to_string(gpus)),
              std::string::npos)
        << e.what();
  }
}

TEST_F(ServerGroupErrors, LocalServersShareTheGpusOfASmallHost) {
  const int gpus = device_count();
  ServerGroup group({gpus + 1, Backend::kLocal, {}});
  EXPECT_TRUE(group.shares_devices());
  EXPECT_EQ(group.devices().back(), 0);
}

TEST(NvlinkMulticast, StaysOffUnlessTheUserSetIt) {
  keep_nvlink_multicast_off();
  const char* value = std::getenv("NCCL_NVLS_ENABLE");
  ASSERT_NE(value, nullptr);
  if (std::string(value) != "0") GTEST_SKIP() << "the environment sets NCCL_NVLS_ENABLE=" << value;
  EXPECT_STREQ(value, "0");
}

}  // namespace
}  // namespace hashlab::servers
