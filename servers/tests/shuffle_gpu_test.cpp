// Hash partitioning and the exchange of every column (shuffle.hpp): every row reaches the server
// its key tuple's hash picks, whole (keys and values of 4 and 8 bytes together), none lost or
// repeated; bad input on one server reaches every server. The local backend at p = 1 to 4 on one
// GPU, NCCL at 1, 2 and 4 where the host has the GPUs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

#include "hashlab/servers/group.hpp"
#include "hashlab/servers/shuffle.hpp"
#include "hashlab/testing/gpu_test.hpp"
#include "hashlab/servers/testing.hpp"

namespace hashlab::servers {
namespace {

/// One row as the test tracks it: two key columns, an 8-byte and a 4-byte value.
using Row = std::tuple<std::uint32_t, std::uint32_t, std::uint64_t, std::uint32_t>;

class Shuffle : public testing::ServerGroupTest {};

INSTANTIATE_TEST_SUITE_P(Servers, Shuffle, testing::every_servers_param(), testing::servers_param_name);

/// Server r's rows: 1000 * (r + 1) of them (server 0 fewest), keys repeating across servers.
std::vector<Row> rows_of(int r) {
  std::vector<Row> rows;
  for (std::uint32_t i = 0; i < 1000u * static_cast<std::uint32_t>(r + 1); ++i)
    rows.emplace_back(i % 97, (i * 7 + static_cast<std::uint32_t>(r)) % 13,
                      (std::uint64_t{static_cast<std::uint32_t>(r)} << 40) | i, i ^ 0xabcdu);
  return rows;
}

TEST_P(Shuffle, EveryRowReachesItsKeysServerWhole) {
  std::mutex mutex;
  std::vector<Row> sent, received;
  std::vector<std::vector<std::uint64_t>> loads(static_cast<std::size_t>(p()));
  group_->run([&](Communicator& comm) {
    const std::vector<Row> mine = rows_of(comm.rank());
    std::vector<std::uint32_t> k0, k1, v32;
    std::vector<std::uint64_t> v64;
    for (const auto& [a, b, c, d] : mine) {
      k0.push_back(a);
      k1.push_back(b);
      v64.push_back(c);
      v32.push_back(d);
    }
    cudaStream_t st = comm.stream();
    auto dk0 = to_device(k0, st), dk1 = to_device(k1, st), dv32 = to_device(v32, st);
    auto dv64 = to_device(v64, st);
    const std::uint32_t* keys[] = {dk0.data(), dk1.data()};
    const ShuffledTable got = shuffle_by_key_hash(comm, {keys, 2}, {{dv64.data(), 8}, {dv32.data(), 4}}, mine.size());
    const auto r0 = got.keys[0].to_host(st), r1 = got.keys[1].to_host(st);
    const auto b64 = got.values[0].to_host(st), b32 = got.values[1].to_host(st);
    ASSERT_EQ(b64.size(), got.rows * 8);
    std::vector<Row> here;
    for (std::size_t i = 0; i < got.rows; ++i) {
      std::uint64_t c;
      std::uint32_t d;
      std::memcpy(&c, b64.data() + 8 * i, 8);
      std::memcpy(&d, b32.data() + 4 * i, 4);
      const std::uint32_t tuple[] = {r0[i], r1[i]};
      EXPECT_EQ(server_of_key_tuple(tuple, 2, static_cast<unsigned>(comm.size())), static_cast<unsigned>(comm.rank()))
          << "a row on the wrong server";
      here.emplace_back(r0[i], r1[i], c, d);
    }
    std::lock_guard<std::mutex> lock(mutex);
    sent.insert(sent.end(), mine.begin(), mine.end());
    received.insert(received.end(), here.begin(), here.end());
    loads[static_cast<std::size_t>(comm.rank())] = got.loads;
    EXPECT_EQ(got.loads[static_cast<std::size_t>(comm.rank())], got.rows);
  });
  std::sort(sent.begin(), sent.end());
  std::sort(received.begin(), received.end());
  EXPECT_EQ(received, sent) << "every row arrives once, its columns together";
  for (const auto& l : loads) EXPECT_EQ(l, loads[0]) << "every server knows every load";
}

TEST_P(Shuffle, ManyColumnsOfEverySizeArriveWholeAndInTheirSendersOrder) {
  // 3 key columns and 9 value columns of 1, 2, 4 and 8 bytes: more columns than one scatter pass
  // moves. Each row carries its sender and index (v_id), so the receiver checks every column of it
  // and that rows arrive sender after sender, each sender's in its order.
  constexpr int kValues = 9;
  const std::size_t sizes[kValues] = {8, 1, 2, 4, 8, 4, 2, 1, 8};
  const auto rows_of = [](int r) { return std::size_t{3000} + 500 * static_cast<std::size_t>(r); };
  const auto key = [](int c, int r, std::uint64_t i) {
    return static_cast<std::uint32_t>(c == 0 ? i % 101 : c == 1 ? (i * 3 + static_cast<std::uint64_t>(r)) % 7 : i % 5);
  };
  const auto value = [](int v, int r, std::uint64_t i) {  // column v's value of row i of server r, as 8 bytes
    return v == 0 ? (std::uint64_t{static_cast<std::uint32_t>(r)} << 40) | i : (i * 2654435761u) ^ (std::uint64_t(v) << 50);
  };
  std::mutex mutex;
  std::uint64_t received_total = 0;
  group_->run([&](Communicator& comm) {
    const int r = comm.rank();
    const std::size_t n = rows_of(r);
    cudaStream_t st = comm.stream();
    std::vector<DeviceBuffer<std::uint32_t>> dkeys;
    std::vector<DeviceBuffer<unsigned char>> dvalues;
    for (int c = 0; c < 3; ++c) {
      std::vector<std::uint32_t> k(n);
      for (std::size_t i = 0; i < n; ++i) k[i] = key(c, r, i);
      dkeys.push_back(to_device(k, st));
    }
    std::vector<ValueColumn> columns;
    for (int v = 0; v < kValues; ++v) {
      std::vector<unsigned char> bytes(n * sizes[v]);
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t x = value(v, r, i);
        std::memcpy(bytes.data() + i * sizes[v], &x, sizes[v]);  // little-endian: the low bytes
      }
      dvalues.push_back(to_device(bytes, st));
      columns.push_back({dvalues.back().data(), sizes[v]});
    }
    const std::uint32_t* keys[] = {dkeys[0].data(), dkeys[1].data(), dkeys[2].data()};
    const ShuffledTable got = shuffle_by_key_hash(comm, {keys, 3}, columns, n);
    std::vector<std::vector<std::uint32_t>> k;
    for (const auto& c : got.keys) k.push_back(c.to_host(st));
    std::vector<std::vector<unsigned char>> v;
    for (const auto& c : got.values) v.push_back(c.to_host(st));
    std::pair<std::uint64_t, std::uint64_t> previous{0, 0};
    for (std::size_t j = 0; j < got.rows; ++j) {
      std::uint64_t id = 0;
      std::memcpy(&id, v[0].data() + 8 * j, 8);
      const int from = static_cast<int>(id >> 40);
      const std::uint64_t i = id & ((std::uint64_t{1} << 40) - 1);
      ASSERT_LT(from, comm.size());
      ASSERT_LT(i, rows_of(from));
      if (j > 0) {
        ASSERT_LT(previous, std::make_pair(std::uint64_t(from), i)) << "row " << j << " out of its sender's order";
      }
      previous = {std::uint64_t(from), i};
      const std::uint32_t tuple[] = {k[0][j], k[1][j], k[2][j]};
      for (int c = 0; c < 3; ++c) ASSERT_EQ(k[static_cast<std::size_t>(c)][j], key(c, from, i)) << "key column " << c;
      ASSERT_EQ(server_of_key_tuple(tuple, 3, static_cast<unsigned>(comm.size())), static_cast<unsigned>(r));
      for (int c = 1; c < kValues; ++c) {
        std::uint64_t x = 0, want = value(c, from, i);
        std::memcpy(&x, v[static_cast<std::size_t>(c)].data() + sizes[c] * j, sizes[c]);
        if (sizes[c] < 8) want &= (std::uint64_t{1} << (8 * sizes[c])) - 1;
        ASSERT_EQ(x, want) << "value column " << c << " of row " << i << " of server " << from;
      }
    }
    std::lock_guard<std::mutex> lock(mutex);
    received_total += got.rows;
  });
  std::uint64_t sent_total = 0;
  for (int r = 0; r < p(); ++r) sent_total += rows_of(r);
  EXPECT_EQ(received_total, sent_total);
}

TEST_P(Shuffle, AServerWithoutRowsTakesPart) {
  group_->run([&](Communicator& comm) {
    const std::vector<std::uint32_t> k = comm.rank() == 0 ? std::vector<std::uint32_t>{} : std::vector<std::uint32_t>{1, 2, 3};
    auto dk = to_device(k, comm.stream());
    const std::uint32_t* keys[] = {dk.data()};
    const ShuffledTable got = shuffle_by_key_hash(comm, {keys, 1}, {}, k.size());
    std::uint64_t total = 0;
    for (const auto l : got.loads) total += l;
    EXPECT_EQ(total, 3u * static_cast<std::uint64_t>(comm.size() - 1));
  });
}

TEST_P(Shuffle, BadInputOnOneServerReachesEveryServer) {
  expect_every_server_refuses("3-byte elements", [&](Communicator& comm) {
    const std::vector<std::uint32_t> k = {1, 2, 3};
    auto dk = to_device(k, comm.stream());
    auto dv = to_device(k, comm.stream());
    const std::uint32_t* keys[] = {dk.data()};
    // The last server's value column has 3-byte elements.
    const std::size_t bytes = comm.rank() + 1 == comm.size() ? 3 : 4;
    shuffle_by_key_hash(comm, {keys, 1}, {{dv.data(), bytes}}, k.size());
  });
  EXPECT_FALSE(group_->failed());
}

TEST_P(Shuffle, ServersThatPassDifferentColumnsAreRefusedAlike) {
  if (p() < 2) GTEST_SKIP() << "needs two servers";
  EXPECT_THROW(group_->run([&](Communicator& comm) {
                 const std::vector<std::uint32_t> k = {1, 2, 3};
                 auto dk = to_device(k, comm.stream());
                 const std::uint32_t* keys[] = {dk.data(), dk.data()};
                 shuffle_by_key_hash(comm, {keys, comm.rank() == 0 ? 2 : 1}, {}, k.size());
               }),
               std::invalid_argument);
  EXPECT_FALSE(group_->failed());
}

}  // namespace
}  // namespace hashlab::servers
