// The rendezvous and the abort of the servers of one process (src/detail.hpp's GroupState), on
// CPU threads: the barrier holds every server until all arrive, generation after generation; an
// abort wakes every waiting server with the first reason; an exchange's check sees every
// server's slot and gives every server the same verdict, and no server leaves an exchange while
// another still reads, aborted or not. No GPU needed.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
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

TEST(GroupState, AnExchangesCheckSeesEverySlotOnceAndEveryServerGetsItsVerdict) {
  constexpr int p = 4, rounds = 20;
  GroupState state(std::vector<int>(p, 0));
  std::atomic<int> checks{0};
  std::mutex mutex;
  std::vector<std::string> verdicts;
  std::vector<std::thread> servers;
  for (int r = 0; r < p; ++r)
    servers.emplace_back([&, r] {
      for (int round = 0; round < rounds; ++round) {
        // Round 7: server 2 posts a size of its own.
        state.slot(r).bytes = round == 7 && r == 2 ? 99 : static_cast<std::size_t>(round);
        const std::string verdict = state.begin_exchange([&](const std::vector<GroupState::Slot>& slots) {
          ++checks;
          std::string sizes;
          for (const auto& s : slots) sizes += std::to_string(s.bytes) + " ";
          return sizes;
        });
        {
          std::lock_guard<std::mutex> lock(mutex);
          verdicts.push_back(std::to_string(round) + ": " + verdict);
        }
        state.end_exchange();
      }
    });
  for (auto& t : servers) t.join();
  EXPECT_EQ(checks.load(), rounds) << "the check runs once an exchange, by the last server to arrive";
  ASSERT_EQ(verdicts.size(), static_cast<std::size_t>(p * rounds));
  for (int round = 0; round < rounds; ++round) {
    const std::string n = std::to_string(round) + " ";
    const std::string expected =
        std::to_string(round) + ": " + (round == 7 ? "7 7 99 7 " : n + n + n + n);
    EXPECT_EQ(std::count(verdicts.begin(), verdicts.end(), expected), p) << "round " << round;
  }
}

TEST(GroupState, NoServerLeavesAnExchangeWhileAnotherStillReadsAbortedOrNot) {
  constexpr int p = 3;
  GroupState state(std::vector<int>(p, 0));
  std::atomic<bool> still_reading{true};
  std::atomic<int> left_early{0};
  std::vector<std::thread> servers;
  for (int r = 0; r < p; ++r)
    servers.emplace_back([&, r] {
      EXPECT_EQ(state.begin_exchange({}), "");
      if (r == 1) {
        // Server 1 fails while it still reads: the group is aborted, and its reads end later.
        state.abort("server 1 failed while copying");
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        still_reading = false;
      }
      state.end_exchange();
      if (still_reading.load()) ++left_early;
    });
  for (auto& t : servers) t.join();
  EXPECT_EQ(left_early.load(), 0) << "a server left the exchange while server 1 still read its buffers";
  EXPECT_THROW(state.begin_exchange({}), GroupAborted) << "an aborted group starts no exchange";
}

TEST(GroupState, AnExchangeThatNeverCompletesIsEndedByAnAbort) {
  constexpr int p = 3;
  GroupState state(std::vector<int>(p, 0));
  std::atomic<int> aborted{0};
  std::atomic<bool> checked{false};
  std::vector<std::thread> waiting;
  for (int r = 0; r < p - 1; ++r)
    waiting.emplace_back([&] {
      try {
        state.begin_exchange([&](const std::vector<GroupState::Slot>&) {
          checked = true;
          return std::string();
        });
      } catch (const GroupAborted&) {
        ++aborted;  // the barrier never completed: nobody reads, nobody calls end_exchange
      }
    });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  state.abort("the last server never came");
  for (auto& t : waiting) t.join();
  EXPECT_EQ(aborted.load(), p - 1);
  EXPECT_FALSE(checked.load()) << "the check runs only once every server's slot is posted";
}

TEST(GroupState, AHealthyGroupDoesNotThrow) {
  GroupState state({0, 1});
  EXPECT_NO_THROW(state.throw_if_aborted());
  EXPECT_EQ(state.size(), 2);
  EXPECT_EQ(state.device_of(1), 1);
}

}  // namespace
}  // namespace hashlab::servers::detail
