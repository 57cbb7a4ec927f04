// Hash partitioning and the all-to-all of every column (shuffle.hpp).
#include "hashlab/servers/shuffle.hpp"

#include <cub/device/device_radix_sort.cuh>

#include <string>

#include "hashlab/common/hash.hpp"
#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/launch.cuh"

namespace hashlab::servers {
namespace {

constexpr int kMaxKeyColumns = 8;     // the RAPIDS group-by's limit, the most any algorithm takes
constexpr unsigned kMaxServers = 4096;  // one shared-memory counter per server in route_by_hash

/// The key columns by value, so that the kernel reads them without a device array of pointers.
struct KeyPointers {
  const std::uint32_t* column[kMaxKeyColumns];
  int count;
};

HASHLAB_HD unsigned tuple_server(const std::uint32_t* tuple_at_column0, int count, unsigned servers) {
  std::uint32_t h = 0;
  for (int c = 0; c < count; ++c) h = hash::fmix32(h * 31u + tuple_at_column0[c]);
  return h % servers;
}

// Each row's server (its key tuple's hash) and its own index, and how many rows go to each server
// (a shared-memory count per block, added once per block).
__global__ void route_by_hash(KeyPointers keys, std::size_t rows, unsigned servers, std::uint32_t* server,
                              std::uint32_t* row_index, unsigned long long* counts) {
  extern __shared__ unsigned block_counts[];
  for (unsigned d = threadIdx.x; d < servers; d += blockDim.x) block_counts[d] = 0;
  __syncthreads();
  for (const std::size_t i : grid_stride(rows)) {
    std::uint32_t tuple[kMaxKeyColumns];
    for (int c = 0; c < keys.count; ++c) tuple[c] = keys.column[c][i];
    const unsigned d = tuple_server(tuple, keys.count, servers);
    server[i] = d;
    row_index[i] = static_cast<std::uint32_t>(i);
    atomicAdd(&block_counts[d], 1u);
  }
  __syncthreads();
  for (unsigned d = threadIdx.x; d < servers; d += blockDim.x)
    if (block_counts[d] != 0) atomicAdd(&counts[d], static_cast<unsigned long long>(block_counts[d]));
}

// A column in the rows' new order (grouped by server).
template <class Element>
__global__ void gather_column(const Element* in, const std::uint32_t* order, std::size_t rows, Element* out) {
  for (const std::size_t i : grid_stride(rows))
    out[i] = in[order[i]];
}

void gather(const void* in, std::size_t element_bytes, const std::uint32_t* order, std::size_t rows, void* out,
            cudaStream_t stream) {
  if (rows == 0) return;
  const unsigned grid = grid_for(rows);
  switch (element_bytes) {
    case 1:
      gather_column<<<grid, kDefaultBlock, 0, stream>>>(static_cast<const std::uint8_t*>(in), order, rows,
                                                        static_cast<std::uint8_t*>(out));
      break;
    case 2:
      gather_column<<<grid, kDefaultBlock, 0, stream>>>(static_cast<const std::uint16_t*>(in), order, rows,
                                                        static_cast<std::uint16_t*>(out));
      break;
    case 4:
      gather_column<<<grid, kDefaultBlock, 0, stream>>>(static_cast<const std::uint32_t*>(in), order, rows,
                                                        static_cast<std::uint32_t*>(out));
      break;
    default:
      gather_column<<<grid, kDefaultBlock, 0, stream>>>(static_cast<const std::uint64_t*>(in), order, rows,
                                                        static_cast<std::uint64_t*>(out));
      break;
  }
  HASHLAB_CHECK_LAUNCH();
}

int server_bits(unsigned p) {
  int bits = 1;
  while ((1u << bits) < p) ++bits;
  return bits;
}

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
    if (rows > 0xffffffffull)
      throw std::invalid_argument("shuffle_by_key_hash: " + std::to_string(rows) +
                                  " rows on one server; at most 2^32 - 1 (32-bit row indices)");
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
    DeviceBuffer<std::uint32_t> server(rows, stream), server_alt(rows, stream);
    DeviceBuffer<std::uint32_t> index(rows, stream), index_alt(rows, stream);
    DeviceBuffer<unsigned long long> device_counts(p, stream);
    device_counts.fill_bytes(0, stream);
    route_by_hash<<<grid_for(rows), kDefaultBlock, p * sizeof(unsigned), stream>>>(pointers, rows, p, server.data(),
                                                                                   index.data(), device_counts.data());
    HASHLAB_CHECK_LAUNCH();
    // The rows' order grouped by server: a stable radix sort of the server ids carrying the row indices.
    cub::DoubleBuffer<std::uint32_t> ids(server.data(), server_alt.data());
    cub::DoubleBuffer<std::uint32_t> order(index.data(), index_alt.data());
    std::size_t bytes = 0;
    HASHLAB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, ids, order, static_cast<std::int64_t>(rows), 0,
                                                       server_bits(p), stream));
    DeviceBuffer<unsigned char> temp(bytes, stream);
    HASHLAB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.data(), bytes, ids, order, static_cast<std::int64_t>(rows), 0,
                                                       server_bits(p), stream));
    for (int c = 0; c < keys.count; ++c) {
      send_keys.emplace_back(rows, stream);
      gather(keys.columns[c], sizeof(std::uint32_t), order.Current(), rows, send_keys.back().data(), stream);
    }
    for (const ValueColumn& v : values) {
      send_values.emplace_back(rows * v.element_bytes, stream);
      gather(v.data, v.element_bytes, order.Current(), rows, send_values.back().data(), stream);
    }
    const auto host_counts = device_counts.to_host(stream);
    for (unsigned d = 0; d < p; ++d) counts[d] = host_counts[d];
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
  for (int c = 0; c < keys.count; ++c) comm.all_to_all(send_keys[static_cast<std::size_t>(c)].data(), plan, out.keys[static_cast<std::size_t>(c)].data());
  for (std::size_t v = 0; v < values.size(); ++v)
    comm.all_to_all_bytes(send_values[v].data(), plan.scaled(values[v].element_bytes), out.values[v].data());
  return out;
}

}  // namespace hashlab::servers
