// Hash partitioning and the all-to-all of every column (shuffle.hpp).
#include "hashlab/servers/shuffle.hpp"

#include <string>

#include "hashlab/common/bucket_scatter.cuh"
#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/hash.hpp"

namespace hashlab::servers {
namespace {

constexpr int kMaxKeyColumns = 8;     // the RAPIDS group-by's limit, the most any algorithm takes
constexpr unsigned kMaxServers = kMaxScatterBuckets;  // one bucket of the scatter per server

/// The key columns by value, so that the kernel reads them without a device array of pointers.
struct KeyPointers {
  const std::uint32_t* column[kMaxKeyColumns];
  int count;
};

/// One key of a tuple into its hash (murmur3's finaliser over h * 31 + key).
HASHLAB_HD std::uint32_t tuple_hash_step(std::uint32_t h, std::uint32_t key) { return hash::fmix32(h * 31u + key); }

HASHLAB_HD unsigned tuple_server(const std::uint32_t* tuple_at_column0, int count, unsigned servers) {
  std::uint32_t h = 0;
  for (int c = 0; c < count; ++c) h = tuple_hash_step(h, tuple_at_column0[c]);
  return h % servers;
}

// A row's server: its key tuple's hash (tuple_server's, unrolled over the columns so that the
// pointers and keys stay in registers, not in a local-memory array, and the loads go out together).
struct TupleServerOfRow {
  KeyPointers keys;
  unsigned servers;
  HASHLAB_DEVICE unsigned operator()(std::size_t i) const {
    std::uint32_t key[kMaxKeyColumns];
#pragma unroll
    for (int c = 0; c < kMaxKeyColumns; ++c)
      if (c < keys.count) key[c] = keys.column[c][i];
    std::uint32_t h = 0;
#pragma unroll
    for (int c = 0; c < kMaxKeyColumns; ++c)
      if (c < keys.count) h = tuple_hash_step(h, key[c]);
    return h % servers;
  }
};

constexpr int kColumnsPerPass = 8;  // columns one scatter pass moves

// Columns of 1, 2, 4 or 8-byte elements, each row to its place (a bucket scatter's move). The load
// reads every column's element before the store writes any: a write through one column's pointer
// may alias a later column's input (void pointers), so reads and writes interleaved would wait for
// each read in turn. A row's elements start at zero: left undefined past `count` and where the
// size's branches join, they made ptxas (CUDA 13.0) copy each row's loaded registers, waiting for
// the loads, before the next row's loads went out; a scatter step's rows were read in turn.
struct MoveColumns {
  struct Row {
    std::uint64_t element[kColumnsPerPass];
  };
  const void* in[kColumnsPerPass];
  void* out[kColumnsPerPass];
  unsigned bytes[kColumnsPerPass];
  int count = 0;
  HASHLAB_DEVICE Row load(std::size_t i) const {
    Row row{};
#pragma unroll
    for (int c = 0; c < kColumnsPerPass; ++c)
      if (c < count) switch (bytes[c]) {
          case 1: row.element[c] = static_cast<const std::uint8_t*>(in[c])[i]; break;
          case 2: row.element[c] = static_cast<const std::uint16_t*>(in[c])[i]; break;
          case 4: row.element[c] = static_cast<const std::uint32_t*>(in[c])[i]; break;
          default: row.element[c] = static_cast<const std::uint64_t*>(in[c])[i]; break;
        }
    return row;
  }
  HASHLAB_DEVICE void store(std::uint64_t to, const Row& row) const {
#pragma unroll
    for (int c = 0; c < kColumnsPerPass; ++c)
      if (c < count) switch (bytes[c]) {
          case 1: static_cast<std::uint8_t*>(out[c])[to] = static_cast<std::uint8_t>(row.element[c]); break;
          case 2: static_cast<std::uint16_t*>(out[c])[to] = static_cast<std::uint16_t>(row.element[c]); break;
          case 4: static_cast<std::uint32_t*>(out[c])[to] = static_cast<std::uint32_t>(row.element[c]); break;
          default: static_cast<std::uint64_t*>(out[c])[to] = row.element[c]; break;
        }
  }
};

/// What every server must pass alike: the number of key columns and the value columns' sizes.
struct Shape {
  std::int32_t key_columns = 0;
  std::int32_t value_columns = 0;
  std::uint64_t sizes = 0;  // the value columns' element sizes, 4 bits each (the first 16)
  bool operator==(const Shape& o) const {
    return key_columns == o.key_columns && value_columns == o.value_columns && sizes == o.sizes;
  }
};

}  // namespace

unsigned server_of_key_tuple(const std::uint32_t* keys, int columns, unsigned servers) {
  return tuple_server(keys, columns, servers);
}

ShuffledTable shuffle_by_key_hash(Communicator& comm, KeyColumns keys, const std::vector<ValueColumn>& values,
                                  std::size_t rows) {
  const auto p = static_cast<unsigned>(comm.size());
  cudaStream_t stream = comm.stream();
  Shape shape;
  shape.key_columns = keys.count;
  shape.value_columns = static_cast<std::int32_t>(values.size());
  for (std::size_t v = 0; v < values.size() && v < 16; ++v) shape.sizes |= std::uint64_t{values[v].element_bytes & 0xf} << (4 * v);

  std::vector<std::uint64_t> counts(p, 0);
  std::vector<DeviceBuffer<std::uint32_t>> send_keys;
  std::vector<DeviceBuffer<unsigned char>> send_values;
  std::exception_ptr error = guarded([&] {
    if (keys.count < 1 || keys.count > kMaxKeyColumns)
      throw std::invalid_argument("shuffle_by_key_hash: " + std::to_string(keys.count) + " key columns (1 to " +
                                  std::to_string(kMaxKeyColumns) + ")");
    if (p > kMaxServers)
      throw std::invalid_argument("shuffle_by_key_hash: " + std::to_string(p) + " servers; at most " +
                                  std::to_string(kMaxServers));
    for (const ValueColumn& v : values)
      if (v.element_bytes != 1 && v.element_bytes != 2 && v.element_bytes != 4 && v.element_bytes != 8)
        throw std::invalid_argument("shuffle_by_key_hash: a value column of " + std::to_string(v.element_bytes) +
                                    "-byte elements (1, 2, 4 or 8)");
    if (rows == 0) {
      send_keys.resize(static_cast<std::size_t>(keys.count));
      send_values.resize(values.size());
      return;
    }
    KeyPointers pointers{};
    pointers.count = keys.count;
    for (int c = 0; c < keys.count; ++c) {
      if (keys.columns[c] == nullptr) throw std::invalid_argument("shuffle_by_key_hash: key column " + std::to_string(c) + " is missing");
      pointers.column[c] = keys.columns[c];
    }
    for (const ValueColumn& v : values)
      if (v.data == nullptr) throw std::invalid_argument("shuffle_by_key_hash: a value column is missing");
    // Every column grouped by server, each server's rows in input order: one plan, then the
    // columns moved kColumnsPerPass at a time.
    const TupleServerOfRow server_of_row{pointers, p};
    const BucketScatter plan = plan_bucket_scatter(rows, p, server_of_row, stream);
    MoveColumns move;
    const auto moved = [&] {
      if (move.count > 0) scatter_buckets(plan, server_of_row, move, stream);
      move.count = 0;
    };
    const auto add = [&](const void* in, void* out, std::size_t bytes) {
      move.in[move.count] = in, move.out[move.count] = out, move.bytes[move.count] = static_cast<unsigned>(bytes);
      if (++move.count == kColumnsPerPass) moved();
    };
    for (int c = 0; c < keys.count; ++c) {
      send_keys.emplace_back(rows, stream);
      add(keys.columns[c], send_keys.back().data(), sizeof(std::uint32_t));
    }
    for (const ValueColumn& v : values) {
      send_values.emplace_back(rows * v.element_bytes, stream);
      add(v.data, send_values.back().data(), v.element_bytes);
    }
    moved();
    for (unsigned d = 0; d < p; ++d) counts[d] = plan.offsets[d + 1] - plan.offsets[d];
  });
  comm.phase_boundary(error, "shuffle");
  // Every server must pass the same columns, or the exchanges below would not pair up.
  const std::vector<Shape> shapes = comm.all_gather_host(shape);
  error = guarded([&] {
    for (std::size_t s = 1; s < shapes.size(); ++s)
      if (!(shapes[s] == shapes[0]))
        throw std::invalid_argument("shuffle_by_key_hash: server " + std::to_string(s) + " passes " +
                                  std::to_string(shapes[s].key_columns) + " key and " +
                                  std::to_string(shapes[s].value_columns) + " value columns, server 0 " +
                                  std::to_string(shapes[0].key_columns) + " and " +
                                  std::to_string(shapes[0].value_columns) + " (or value columns of other sizes)");
  });
  comm.phase_boundary(error, "shuffle: columns");

  const std::vector<std::uint64_t> matrix = comm.all_gather_host(counts);
  const ExchangePlan plan = ExchangePlan::from_counts(matrix, comm.size(), comm.rank());
  ShuffledTable out;
  out.rows = plan.recv_total();
  out.loads = server_loads(matrix, comm.size());
  error = guarded([&] {
    for (int c = 0; c < keys.count; ++c) out.keys.emplace_back(out.rows, stream);
    for (const ValueColumn& v : values) out.values.emplace_back(out.rows * v.element_bytes, stream);
  });
  comm.phase_boundary(error, "shuffle: receive buffers");
  std::vector<Communicator::Exchange> exchanges;  // every column in one exchange
  for (int c = 0; c < keys.count; ++c)
    exchanges.push_back({send_keys[static_cast<std::size_t>(c)].data(), plan.scaled(sizeof(std::uint32_t)),
                         out.keys[static_cast<std::size_t>(c)].data()});
  for (std::size_t v = 0; v < values.size(); ++v)
    exchanges.push_back({send_values[v].data(), plan.scaled(values[v].element_bytes), out.values[v].data()});
  comm.all_to_all_many(exchanges);
  return out;
}

}  // namespace hashlab::servers
