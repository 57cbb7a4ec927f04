// The collectives under mpirun, one process per GPU (the second launch mode):
//   mpirun -np 2 build/servers/servers_mpi_tests               # every test on 2 servers
//   mpirun -np 4 build/servers/servers_mpi_tests --fail-on 1   # server 1 fails alone: every process
//                                                              # must end, exit status non-zero
// Every process runs the same tests; a test's collectives span all processes.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "hashlab/common/memory.hpp"
#include "hashlab/servers/bandwidth.hpp"
#include "hashlab/servers/mpi.hpp"
#include "hashlab/servers/mpi_testing.hpp"

namespace hashlab::servers {
namespace {

MpiServer* server = nullptr;

Communicator& comm() { return server->communicator(); }

TEST(MpiServers, AllGatherGivesEveryServerEveryServersBuffer) {
  const std::vector<std::uint32_t> mine = {7u * comm().rank(), 7u * comm().rank() + 1};
  auto send = to_device(mine, comm().stream());
  DeviceBuffer<std::uint32_t> recv(2 * static_cast<std::size_t>(comm().size()), comm().stream());
  comm().all_gather(send.data(), recv.data(), 2);
  const auto got = recv.to_host(comm().stream());
  for (int s = 0; s < comm().size(); ++s) {
    EXPECT_EQ(got[2 * s], 7u * s);
    EXPECT_EQ(got[2 * s + 1], 7u * s + 1);
  }
}

TEST(MpiServers, AllToAllDeliversEveryBlockToItsServer) {
  const int n = comm().size();
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(n) * n);
  for (int s = 0; s < n; ++s)
    for (int d = 0; d < n; ++d) counts[static_cast<std::size_t>(s) * n + d] = (s + 2 * d) % 4;
  const ExchangePlan plan = ExchangePlan::from_counts(counts, n, comm().rank());
  std::vector<std::uint32_t> send_host(plan.send_total());
  for (int d = 0; d < n; ++d)
    for (std::uint64_t i = 0; i < plan.send_counts[d]; ++i)
      send_host[plan.send_offsets[d] + i] = static_cast<std::uint32_t>(comm().rank() * 100 + d * 10 + i);
  auto send = to_device(send_host, comm().stream());
  DeviceBuffer<std::uint32_t> recv(plan.recv_total(), comm().stream());
  comm().all_to_all(send.data(), plan, recv.data());
  const auto got = recv.to_host(comm().stream());
  for (int s = 0; s < n; ++s)
    for (std::uint64_t i = 0; i < plan.recv_counts[s]; ++i)
      EXPECT_EQ(got[plan.recv_offsets[s] + i], static_cast<std::uint32_t>(s * 100 + comm().rank() * 10 + i));
}

TEST(MpiServers, BadInputOnOneServerReachesEveryServerAsTheSameError) {
  const int bad = comm().size() - 1;
  const std::exception_ptr error = guarded([&] {
    if (comm().rank() == bad) throw std::invalid_argument("key 7 appears twice in R");
  });
  try {
    comm().phase_boundary(error, "local join");
    FAIL() << "no error at the boundary";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "server " + std::to_string(bad) + " of " + std::to_string(comm().size()) +
                                         " (local join): key 7 appears twice in R");
  }
  comm().clear_boundary_failure();
  comm().phase_boundary(nullptr, "next");  // the group goes on
}

}  // namespace
}  // namespace hashlab::servers

int main(int argc, char** argv) {
  hashlab::servers::MpiServer server(&argc, &argv);
  hashlab::servers::server = &server;
  int fail_on = -1;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--fail-on") == 0) fail_on = std::atoi(argv[i + 1]);
  if (fail_on >= 0) {
    // A server that fails alone: every process must end (MPI_Abort), none may hang.
    return server.run([&](hashlab::servers::Communicator& comm) {
      if (comm.rank() == fail_on) throw std::runtime_error("server failed on its own (--fail-on)");
      hashlab::DeviceBuffer<int> send(1, comm.stream()), recv(static_cast<std::size_t>(comm.size()), comm.stream());
      send.fill_bytes(0, comm.stream());
      comm.all_gather(send.data(), recv.data(), 1);
    });
  }
  ::testing::InitGoogleTest(&argc, argv);
  return hashlab::servers::run_all_tests_on_every_server(server);
}
