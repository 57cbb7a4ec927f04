// GPU hash join on the linear-probing table (see hashlab/baselines/hash_join.hpp).
#include "hashlab/baselines/hash_join.hpp"

#include "hashlab/baselines/detail/linear_probing_view.cuh"
#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/launch.cuh"
#include "hashlab/common/primitives.hpp"
#include "hashlab/common/reduce.cuh"

namespace hashlab::baseline {
namespace {

using detail::LinearProbingView;

// Per-thread counts summed across the warp, one atomic per warp.
__global__ void count_matches_kernel(LinearProbingView table, const std::uint32_t* s_keys, std::size_t n,
                                     unsigned long long* total) {
  unsigned long long mine = 0;
  for (const std::size_t i : grid_stride(n)) table.for_each_match(s_keys[i], [&](std::uint32_t) { ++mine; });
  atomic_add_warp_sum(total, mine);
}

__global__ void count_per_row_kernel(LinearProbingView table, const std::uint32_t* s_keys, std::size_t n,
                                     std::uint64_t* counts) {
  for (const std::size_t i : grid_stride(n)) {
    std::uint64_t c = 0;
    table.for_each_match(s_keys[i], [&](std::uint32_t) { ++c; });
    counts[i] = c;
  }
}

__global__ void write_pairs_kernel(LinearProbingView table, const std::uint32_t* s_keys, std::size_t n,
                                   const std::uint64_t* offsets, std::uint32_t* r_out, std::uint32_t* s_out) {
  for (const std::size_t i : grid_stride(n)) {
    std::uint64_t at = offsets[i];
    table.for_each_match(s_keys[i], [&](std::uint32_t r_row) {
      r_out[at] = r_row;
      s_out[at] = static_cast<std::uint32_t>(i);
      ++at;
    });
  }
}

}  // namespace

void HashJoin::build(const std::uint32_t* r_keys, std::size_t n, cudaStream_t stream) {
  table_ = std::make_unique<LinearProbingTable>(LinearProbingTable::capacity_for(n, load_factor_), stream);
  table_->insert(r_keys, nullptr, n, stream);
}

void HashJoin::count(const std::uint32_t* s_keys, std::size_t n, std::uint64_t* d_count, cudaStream_t stream) const {
  HASHLAB_CUDA_CHECK(cudaMemsetAsync(d_count, 0, sizeof(std::uint64_t), stream));
  if (n == 0 || !table_) return;
  const LinearProbingView view{const_cast<unsigned long long*>(table_->slots()), table_->capacity()};
  count_matches_kernel<<<grid_for(n), kDefaultBlock, 0, stream>>>(view, s_keys, n,
                                                                  reinterpret_cast<unsigned long long*>(d_count));
  HASHLAB_CHECK_LAUNCH();
}

JoinOutput HashJoin::join(const std::uint32_t* s_keys, std::size_t n, cudaStream_t stream) const {
  JoinOutput out;
  if (n == 0 || !table_) return out;
  const LinearProbingView view{const_cast<unsigned long long*>(table_->slots()), table_->capacity()};
  DeviceBuffer<std::uint64_t> offsets(n + 1, stream);  // 64-bit: outputs may exceed 2^32 pairs
  offsets.fill_bytes(0, stream);  // offsets[n] stays 0 so the scan yields the total there
  count_per_row_kernel<<<grid_for(n), kDefaultBlock, 0, stream>>>(view, s_keys, n, offsets.data());
  HASHLAB_CHECK_LAUNCH();
  prim::exclusive_scan(offsets.data(), offsets.data(), n + 1, stream);
  out.size = read_device_value(offsets.data() + n, stream);
  table_->check(stream);  // R's key 0xffffffff was not stored: refuse rather than drop its rows
  out.r_index = DeviceBuffer<std::uint32_t>(out.size, stream);
  out.s_index = DeviceBuffer<std::uint32_t>(out.size, stream);
  if (out.size > 0) {
    write_pairs_kernel<<<grid_for(n), kDefaultBlock, 0, stream>>>(view, s_keys, n, offsets.data(),
                                                                  out.r_index.data(), out.s_index.data());
    HASHLAB_CHECK_LAUNCH();
  }
  return out;
}

}  // namespace hashlab::baseline
