// The end of main() of a GoogleTest binary run under mpirun, one process per GPU
// (servers_mpi_tests, pkpk_join_mpi_tests): every process runs every test, a test's collectives
// span all processes.
#pragma once

#include <gtest/gtest.h>

#include "hashlab/servers/mpi.hpp"

namespace hashlab::servers {

/// Runs every test on every process of `server`, after ::testing::InitGoogleTest: an exception
/// that escapes a test on one process ends every process (MpiServer::run calls MPI_Abort) instead
/// of leaving the others waiting in a collective of the next test; only process 0 prints the log.
/// The tests' status.
inline int run_all_tests_on_every_server(MpiServer& server) {
  GTEST_FLAG_SET(catch_exceptions, false);
  if (server.communicator().rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  int status = 0;
  server.run([&](Communicator&) { status = RUN_ALL_TESTS(); });
  return status;
}

}  // namespace hashlab::servers
