// cuDF-style linear-probing multimap (see hashlab/baselines/linear_probing.hpp).
#include "hashlab/baselines/linear_probing.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "hashlab/baselines/detail/linear_probing_view.cuh"
#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/launch.cuh"
#include "hashlab/common/sentinels.hpp"

namespace hashlab::baseline {
namespace {

using detail::LinearProbingView;

__global__ void insert_kernel(LinearProbingView table, const std::uint32_t* keys, const std::uint32_t* values,
                              std::size_t n, std::size_t first_index, std::uint32_t* sentinel_seen) {
  for (const std::size_t i : grid_stride(n)) {
    const std::uint32_t key = keys[i];
    if (key == kEmptyKey) {
      *sentinel_seen = 1;
      continue;
    }
    table.insert(key, values != nullptr ? values[i] : static_cast<std::uint32_t>(first_index + i));
  }
}

__global__ void find_kernel(LinearProbingView table, const std::uint32_t* queries, std::size_t n,
                            std::uint32_t* values_out) {
  for (const std::size_t i : grid_stride(n)) values_out[i] = table.find_first(queries[i]);
}

__global__ void count_kernel(LinearProbingView table, const std::uint32_t* queries, std::size_t n,
                             std::uint32_t* counts_out) {
  for (const std::size_t i : grid_stride(n)) {
    std::uint32_t count = 0;
    table.for_each_match(queries[i], [&](std::uint32_t) { ++count; });
    counts_out[i] = count;
  }
}

}  // namespace

std::size_t LinearProbingTable::capacity_for(std::size_t n, double load_factor) {
  if (!(load_factor > 0.0 && load_factor <= 1.0))
    throw std::invalid_argument("linear probing: the load factor must lie in (0, 1], got " +
                                std::to_string(load_factor));
  return std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(static_cast<double>(n) / load_factor)));
}

LinearProbingTable::LinearProbingTable(std::size_t capacity, cudaStream_t stream)
    : capacity_(std::max<std::size_t>(capacity, 1)), slots_(capacity_, stream), sentinel_seen_(1, stream) {
  clear(stream);
}

void LinearProbingTable::clear(cudaStream_t stream) {
  slots_.fill_bytes(0xff, stream);
  sentinel_seen_.fill_bytes(0, stream);
  size_ = 0;
}

void LinearProbingTable::insert(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n,
                                cudaStream_t stream) {
  if (size_ + n > capacity_)
    throw std::invalid_argument("linear probing: " + std::to_string(size_ + n) + " entries do not fit in " +
                                std::to_string(capacity_) + " slots");
  if (n == 0) return;
  insert_kernel<<<grid_for(n), kDefaultBlock, 0, stream>>>(LinearProbingView{slots_.data(), capacity_}, keys,
                                                           values, n, size_, sentinel_seen_.data());
  HASHLAB_CHECK_LAUNCH();
  size_ += n;
}

void LinearProbingTable::find(const std::uint32_t* queries, std::size_t n, std::uint32_t* values_out,
                              cudaStream_t stream) const {
  if (n == 0) return;
  find_kernel<<<grid_for(n), kDefaultBlock, 0, stream>>>(
      LinearProbingView{const_cast<unsigned long long*>(slots_.data()), capacity_}, queries, n, values_out);
  HASHLAB_CHECK_LAUNCH();
}

void LinearProbingTable::count(const std::uint32_t* queries, std::size_t n, std::uint32_t* counts_out,
                               cudaStream_t stream) const {
  if (n == 0) return;
  count_kernel<<<grid_for(n), kDefaultBlock, 0, stream>>>(
      LinearProbingView{const_cast<unsigned long long*>(slots_.data()), capacity_}, queries, n, counts_out);
  HASHLAB_CHECK_LAUNCH();
}

void LinearProbingTable::check(cudaStream_t stream) const {
  if (read_device_value(sentinel_seen_.data(), stream) != 0)
    throw std::invalid_argument("linear probing: the input holds the key 0xffffffff, which marks empty slots");
}

}  // namespace hashlab::baseline
