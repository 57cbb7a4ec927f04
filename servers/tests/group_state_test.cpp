// The rendezvous and the abort of the servers of one process (src/detail.hpp's GroupState), on
// CPU threads: the barrier holds every server until all arrive, generation after generation, and
// an abort wakes every waiting server with the first reason. No GPU needed.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "../src/detail.hpp"

namespace hashlab::servers::detail {
namespace {

TEST(GroupState, TheBarrierHoldsEveryServerUntilAllArriveRoundAfterRound) {
  constexpr int p = 4, rounds = 50;
  GroupState state(std::vector<int>(p, 0));
  std::atomic<int> arrived{0};
  std::atomic<bool> early{false};
  std::vector<std::thread> servers;
  for (int r = 0; r < p; ++r)
    servers.emplace_back([&] {
      for (int round = 0; round < rounds; ++round) {
        ++arrived;
        state.arrive_and_wait();
        // Past the barrier, every server of this round has arrived.
        if (arrived.load() < (round + 1) * p) early = true;
        state.arrive_and_wait();  // nobody starts the next round before all have checked
      }
    });
  for (auto& t : servers) t.join();
  EXPECT_FALSE(early.load()) << "a server passed the barrier before every server arrived";
  EXPECT_EQ(arrived.load(), p * rounds);
}

TEST(GroupState, AnAbortWakesEveryWaitingServerWithTheFirstReason) {
  constexpr int p = 3;
  GroupState state(std::vector<int>(p, 0));
  std::atomic<int> woke{0};
  std::vector<std::thread> waiting;
  for (int r = 0; r < p - 1; ++r)
    waiting.emplace_back([&] {
      try {
        state.arrive_and_wait();  // the last server never arrives
      } catch (const GroupAborted& e) {
        if (std::string(e.what()).find("server 2 failed") != std::string::npos) ++woke;
      }
    });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  state.abort("server 2 failed");
  state.abort("a later reason");  // the first reason is kept
  for (auto& t : waiting) t.join();
  EXPECT_EQ(woke.load(), p - 1);
  EXPECT_TRUE(state.aborted());
  EXPECT_EQ(state.reason(), "server 2 failed");
  EXPECT_THROW(state.throw_if_aborted(), GroupAborted);
  EXPECT_THROW(state.arrive_and_wait(), GroupAborted) << "an aborted group's barrier never waits";
}

TEST(GroupState, AHealthyGroupDoesNotThrow) {
  GroupState state({0, 1});
  EXPECT_NO_THROW(state.throw_if_aborted());
  EXPECT_EQ(state.size(), 2);
  EXPECT_EQ(state.device_of(1), 1);
}

}  // namespace
}  // namespace hashlab::servers::detail
