// The field's data movement between servers: every row goes to the server its key's hash picks
// (hash partitioning, then one all-to-all of every column at once), as rapidsai/distributed-join
// and Gao & Sakharnykh's join do, and as a group-by across servers needs (all rows of a group on
// one server). A collective: every server of the group calls it with its own rows.
//
//   const std::uint32_t* keys[] = {d_store, d_item};               // the key tuple's columns
//   servers::ShuffledTable mine = servers::shuffle_by_key_hash(comm, {keys, 2}, {{d_amount, 8}}, rows);
//   // mine.keys[c], mine.values[v]: the rows of every server whose tuple hashes to this server
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "hashlab/common/memory.hpp"
#include "hashlab/servers/communicator.hpp"

namespace hashlab::servers {

/// A value column of this server's rows in its device memory: elements of 1, 2, 4 or 8 bytes.
struct ValueColumn {
  const void* data = nullptr;
  std::size_t element_bytes = 4;
};

/// The key columns (uint32) of this server's rows, in its device memory.
struct KeyColumns {
  const std::uint32_t* const* columns = nullptr;
  int count = 0;
};

/// What a server received: its rows' key and value columns (the same element sizes as sent), in
/// the order of the senders (server 0's rows first), and every server's load.
struct ShuffledTable {
  std::vector<DeviceBuffer<std::uint32_t>> keys;
  std::vector<DeviceBuffer<unsigned char>> values;
  std::size_t rows = 0;
  std::vector<std::uint64_t> loads;  // rows each server received, server after server
};

/// The server of a key tuple among `servers`: murmur3's 32-bit finaliser over the columns
/// (h = fmix32(h * 31 + key)), mod servers. The same function runs on the device.
unsigned server_of_key_tuple(const std::uint32_t* keys, int columns, unsigned servers);

/// Hash partitioning and one all-to-all of every column (Communicator::all_to_all_many). Rules of
/// communicator.hpp: bad input, such as no key column or an element size other than 1, 2, 4 or 8,
/// on any server reaches every server as std::invalid_argument at the phase boundary "shuffle".
/// The rows keep their order within each sender.
ShuffledTable shuffle_by_key_hash(Communicator& comm, KeyColumns keys, const std::vector<ValueColumn>& values,
                                  std::size_t rows);

}  // namespace hashlab::servers
