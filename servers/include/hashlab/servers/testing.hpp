// Test support for suites that run on a server group (servers/, pkpk_join's servers_join,
// gpu_servers' group-by): the parameter (backend, servers), its name in a test's name, and a
// fixture whose tests share one group per parameter.
//
// Creating an NCCL communicator takes seconds: at revision 23aa942 on an H200, under a parallel
// ctest, a test with one NCCL server took 8 to 11 s and the same test on the local backend 2 to
// 3 s. A group is a long-lived object by design (experiments keep one for all their points,
// `AGroupRunsManyTimes` tests it), so a suite's tests share it: it is created by the first test
// of each parameter and again only after a test ended it (a server that fails alone aborts its
// group: ServerGroup::failed()); the suite's groups end with the suite (TearDownTestSuite). So
// every test starts on a healthy group, as before, and an NCCL group is created about once per
// suite instead of once per test.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>

#include "hashlab/servers/group.hpp"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab::testing {

/// A suite's parameter: the backend and the number of servers.
using ServersParam = std::tuple<servers::Backend, int>;

/// "local3", "nccl1": the parameter in a test's name.
inline std::string servers_param_name(const ::testing::TestParamInfo<ServersParam>& info) {
  return std::string(servers::to_string(std::get<0>(info.param))) + std::to_string(std::get<1>(info.param));
}

/// The parameters every server suite runs: the local backend with 1 to 4 servers sharing the
/// host's GPUs (any GPU machine), NCCL with 1 server (any GPU) and with 2 and 4 (a host with
/// that many GPUs; skipped, with the reason, elsewhere).
inline auto every_servers_param() {
  using servers::Backend;
  return ::testing::Values(ServersParam{Backend::kLocal, 1}, ServersParam{Backend::kLocal, 2},
                           ServersParam{Backend::kLocal, 3}, ServersParam{Backend::kLocal, 4},
                           ServersParam{Backend::kNccl, 1}, ServersParam{Backend::kNccl, 2},
                           ServersParam{Backend::kNccl, 4});
}

/// Fixture of a suite whose tests run on a group of the parameter's backend and size: skips, with
/// the reason, without a GPU, in a build without NCCL and on a host with fewer GPUs than NCCL
/// servers; `group_` is the suite's shared group for this parameter.
class ServerGroupTest : public GpuTestWithParam<ServersParam> {
 public:
  static void TearDownTestSuite() { groups().clear(); }

 protected:
  void SetUp() override {
    GpuTestWithParam<ServersParam>::SetUp();
    if (IsSkipped()) return;
    const auto [backend, p] = GetParam();
    if (backend == servers::Backend::kNccl && !servers::nccl_built()) GTEST_SKIP() << "this build has no NCCL";
    if (backend == servers::Backend::kNccl && p > servers::device_count())
      GTEST_SKIP() << "needs " << p << " GPUs for " << p << " NCCL servers; this host has "
                   << servers::device_count();
    auto& group = groups()[GetParam()];
    if (group && group->failed()) group.reset();  // ended by an earlier test: a new one
    if (!group) group = std::make_unique<servers::ServerGroup>(servers::GroupOptions{p, backend, {}});
    group_ = group.get();
  }

  /// Runs `work` on every server and expects each server to throw std::invalid_argument whose
  /// message holds `words`: bad input on one server reaches every server with the same error.
  template <class Work>
  void expect_every_server_refuses(const std::string& words, Work&& work) {
    std::mutex mutex;
    int threw = 0;
    EXPECT_THROW(group_->run([&](servers::Communicator& comm) {
                   try {
                     work(comm);
                   } catch (const std::invalid_argument& e) {
                     EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
                     std::lock_guard<std::mutex> lock(mutex);
                     ++threw;
                     throw;
                   }
                 }),
                 std::invalid_argument);
    EXPECT_EQ(threw, p());
  }

  servers::Backend backend() const { return std::get<0>(GetParam()); }
  int p() const { return std::get<1>(GetParam()); }

  servers::ServerGroup* group_ = nullptr;

 private:
  static std::map<ServersParam, std::unique_ptr<servers::ServerGroup>>& groups() {
    static std::map<ServersParam, std::unique_ptr<servers::ServerGroup>> shared;
    return shared;
  }
};

}  // namespace hashlab::testing
