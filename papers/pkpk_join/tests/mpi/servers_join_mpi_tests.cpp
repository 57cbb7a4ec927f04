// The join across servers under mpirun, one process per GPU (the second launch mode):
//   mpirun -np 4 build/papers/pkpk_join/pkpk_join_mpi_tests
// Every process draws the same tables (seeded), joins its share, and checks the gathered rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "hashlab/common/generator.hpp"
#include "hashlab/pkpk_join/servers_join.hpp"
#include "hashlab/servers/mpi.hpp"
#include "hashlab/servers/mpi_testing.hpp"

namespace hashlab::pkpk {
namespace {

using Keys = std::vector<std::uint32_t>;
servers::MpiServer* server = nullptr;
servers::Communicator& comm() { return server->communicator(); }

Keys values_for(const Keys& keys, std::uint32_t table) {
  Keys v(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) v[i] = keys[i] * 2654435761u + table;
  return v;
}

/// This process's share: rows [rank * n / p, (rank + 1) * n / p).
Keys share(const Keys& all) {
  const std::size_t p = static_cast<std::size_t>(comm().size()), d = static_cast<std::size_t>(comm().rank());
  return Keys(all.begin() + all.size() * d / p, all.begin() + all.size() * (d + 1) / p);
}

std::vector<JoinedRow> join_shares(const Keys& r, const Keys& s, const ServersJoinOptions& options,
                                   ServerJoinStats* stats = nullptr) {
  const Keys rk = share(r), sk = share(s), rv = values_for(rk, 0), sv = values_for(sk, 1);
  cudaStream_t st = comm().stream();
  auto drk = to_device(rk, st), drv = to_device(rv, st), dsk = to_device(sk, st), dsv = to_device(sv, st);
  const JoinedRows rows = servers_join(comm(), {drk.data(), drv.data(), rk.size()}, {dsk.data(), dsv.data(), sk.size()},
                                       options, stats);
  return gather_rows(comm(), rows);
}

TEST(MpiServersJoin, EveryJoinGivesTheReferenceRows) {
  Keys r, s;
  gen::generate_pkpk_host({200000, 150000, 100000000, 0.5}, 2026, r, s);
  const auto expected = reference_join(r, values_for(r, 0), s, values_for(s, 1));
  for (const auto& [partitioning, local] :
       {std::pair{Partitioning::kSampledSplitters, LocalJoin::kBsp}, std::pair{Partitioning::kSampledSplitters, LocalJoin::kSort},
        std::pair{Partitioning::kHash, LocalJoin::kHash}}) {
    SCOPED_TRACE(std::string(to_string(partitioning)) + " + local " + to_string(local));
    ServersJoinOptions options;
    options.partitioning = partitioning;
    options.local_join = local;
    ServerJoinStats stats;
    auto got = join_shares(r, s, options, &stats);
    if (local == LocalJoin::kHash) std::sort(got.begin(), got.end());
    ASSERT_EQ(got.size(), expected.size());
    EXPECT_TRUE(std::equal(got.begin(), got.end(), expected.begin()));
    std::uint64_t load = 0;
    for (const auto l : stats.loads) load += l;
    EXPECT_EQ(load, r.size() + s.size());
  }
}

TEST(MpiServersJoin, ARepeatedKeyOnOneServerEndsEveryServerWithTheSameError) {
  Keys r, s;
  gen::generate_pkpk_host({20000, 20000, 100000000, 0.5}, 7, r, s);
  const std::size_t last = r.size() * (comm().size() - 1) / comm().size();  // the last server's first row
  r[last + 1] = r[last];
  try {
    join_shares(r, s, {});
    FAIL() << "a repeated key joined";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("appears more than once in R"), std::string::npos) << e.what();
  }
  comm().clear_boundary_failure();
}

}  // namespace
}  // namespace hashlab::pkpk

int main(int argc, char** argv) {
  hashlab::servers::MpiServer server(&argc, &argv);
  hashlab::pkpk::server = &server;
  ::testing::InitGoogleTest(&argc, argv);
  return hashlab::servers::run_all_tests_on_every_server(server);
}
