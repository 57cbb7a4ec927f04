// The first repeated key of a device column (see repeats.hpp): the host's method, step by step.
#include "hashlab/common/repeats.hpp"

#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/launch.cuh"
#include "hashlab/common/memory.hpp"
#include "hashlab/common/primitives.hpp"

namespace hashlab::prim {
namespace {

constexpr unsigned long long kNone = ~0ull;

// *first = the smallest position p > 0 of a sorted array with sorted[p] == sorted[p - 1]: where
// the smallest repeated key repeats. Only the second item of each run of equal keys competes,
// so there is one atomic per repeated key, however long its run.
__global__ void first_repeat_position(const std::uint32_t* sorted, std::size_t n, unsigned long long* first) {
  for (const std::size_t i : grid_stride(n))
    if (i > 0 && sorted[i] == sorted[i - 1] && (i == 1 || sorted[i - 2] != sorted[i]))
      atomicMin(first, static_cast<unsigned long long>(i));
}

// *row = the smallest i with keys[i] == key, other than `skip`. A thread's grid-stride loop
// visits its rows in ascending order, so it stops at its first match: at most one atomic each.
__global__ void first_row_holding(const std::uint32_t* keys, std::size_t n, std::uint32_t key,
                                  unsigned long long skip, unsigned long long* row) {
  for (const std::size_t i : grid_stride(n)) {
    if (keys[i] == key && i != skip) {
      atomicMin(row, static_cast<unsigned long long>(i));
      break;
    }
  }
}

}  // namespace

std::optional<Repeat> first_repeat(const std::uint32_t* keys, std::size_t n, cudaStream_t stream) {
  if (n < 2) return std::nullopt;
  DeviceBuffer<std::uint32_t> sorted(n, stream);
  HASHLAB_CUDA_CHECK(cudaMemcpyAsync(sorted.data(), keys, n * sizeof(std::uint32_t), cudaMemcpyDeviceToDevice, stream));
  sort_keys(sorted.data(), n, stream);
  DeviceBuffer<unsigned long long> found(1, stream);
  found.fill_bytes(0xff, stream);  // kNone
  first_repeat_position<<<grid_for(n), kDefaultBlock, 0, stream>>>(sorted.data(), n, found.data());
  HASHLAB_CHECK_LAUNCH();
  const unsigned long long position = read_device_value(found.data(), stream);
  if (position == kNone) return std::nullopt;
  Repeat r;
  r.key = read_device_value(sorted.data() + position, stream);
  sorted = DeviceBuffer<std::uint32_t>();  // back to the pool before the passes over the column
  const auto row_after = [&](unsigned long long skip) {
    found.fill_bytes(0xff, stream);
    first_row_holding<<<grid_for(n), kDefaultBlock, 0, stream>>>(keys, n, r.key, skip, found.data());
    HASHLAB_CHECK_LAUNCH();
    return static_cast<std::size_t>(read_device_value(found.data(), stream));
  };
  r.first_row = row_after(kNone);
  r.second_row = row_after(r.first_row);
  return r;
}

}  // namespace hashlab::prim
