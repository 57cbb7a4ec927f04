// MP-EGA's partition-generating phase (EGA section 4.2.5, Algorithm 2): the input cut into tiles
// of L rows, handed out first come, first served to s GPU streams (copy in, SP-EGA, the three
// partitioning kernels, copy out), each driven by a CPU thread of its own, and to a CPU tile
// driver that partitions its tiles on t threads.
#include <algorithm>
#include <atomic>
#include <functional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "hashlab/common/launch.cuh"
#include "hashlab/common/scatter.hpp"
#include "mp_ega_detail.hpp"

namespace hashlab::ega {

namespace detail {

// 4.2.5, a CPU tile on t threads: common/'s stable bucket scatter (each thread counts its
// slice's pairs per partition in local counters, the counters are scanned partition-major, then
// by thread, into global positions, and each thread writes its pairs there). offsets[p]: start of
// partition p in the tile's output.
void partition_tile_on_cpu(const std::uint32_t* keys, const std::uint32_t* values, std::size_t rows, Aggregation op,
                           std::uint32_t partitions, unsigned threads, std::uint32_t* out_keys,
                           std::uint64_t* out_values, std::vector<std::size_t>& offsets) {
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(rows / 1024, 1)));
  const auto partition = [&](std::size_t i) {
    if (keys[i] == kEmptyKey)
      throw std::invalid_argument("MP-EGA: the input holds the key 0xffffffff, which marks empty slots");
    return partition_of(keys[i], partitions);
  };
  const cpu::Scatter scatter = cpu::scatter_by_bucket(rows, threads, partitions, partition,
                                                      [&](std::size_t i, std::size_t at) {
                                                        out_keys[at] = keys[i];
                                                        out_values[at] = op == Aggregation::kCount ? 1u : values[i];
                                                      });
  offsets = scatter.offsets;
}

}  // namespace detail

void MpEga::generate(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, Aggregation op) {
  const std::size_t L = tile_rows_;
  tiles_ = div_up(n, L);
  stats_.tiles = tiles_;
  tile_sizes_.assign(tiles_, 0);
  tile_offsets_.assign(tiles_, {});
  const auto parts = static_cast<std::uint32_t>(partitions_);
  std::atomic<std::size_t> next_tile{0};
  std::atomic<std::size_t> gpu_tiles{0}, cpu_tiles{0};
  detail::FirstError error;
  const int device = detail::current_device();

  auto gpu_worker = [&](StreamContext& ctx) {
    HASHLAB_CUDA_CHECK(cudaSetDevice(device));
    const cudaStream_t s = ctx.stream;
    auto& b = ctx.ega.buffers();
    for (std::size_t j = next_tile++; j < tiles_; j = next_tile++) {
      const std::size_t first = j * L;
      const std::size_t rows = std::min(L, n - first);
      // Copy in: keys straight into red, values beside them; load_red widens them in place.
      HASHLAB_CUDA_CHECK(cudaMemcpyAsync(b.red_keys.data(), keys + first, rows * sizeof(std::uint32_t),
                                         cudaMemcpyHostToDevice, s));
      HASHLAB_CUDA_CHECK(cudaMemcpyAsync(ctx.tile_values.data(), values + first, rows * sizeof(std::uint32_t),
                                         cudaMemcpyHostToDevice, s));
      load_red(b, b.red_keys.data(), ctx.tile_values.data(), rows, op, s);
      const Groups g = ctx.ega.run(rows, op, s);  // the tile's groups, in yellow
      // The three partitioning kernels; the partitioned pairs go to red (free after SP-EGA), the
      // index within the partition to blue.
      detail::partition_on_gpu(g, parts, ctx.counts, b.blue.data(), b.red_keys.data(), b.red_values.data(), s);
      // Copy out, to tile j's place in the pinned workspace.
      HASHLAB_CUDA_CHECK(cudaMemcpyAsync(tile_keys_ + first, b.red_keys.data(),
                                         g.count * sizeof(std::uint32_t), cudaMemcpyDeviceToHost, s));
      HASHLAB_CUDA_CHECK(cudaMemcpyAsync(tile_values_ + first, b.red_values.data(),
                                         g.count * sizeof(std::uint64_t), cudaMemcpyDeviceToHost, s));
      HASHLAB_CUDA_CHECK(cudaMemcpyAsync(ctx.begins.data(), ctx.counts.data(), parts * sizeof(std::uint32_t),
                                         cudaMemcpyDeviceToHost, s));
      HASHLAB_CUDA_CHECK(cudaStreamSynchronize(s));
      tile_sizes_[j] = g.count;
      tile_offsets_[j].assign(ctx.begins.data(), ctx.begins.data() + parts);
      tile_offsets_[j].push_back(g.count);
      ++gpu_tiles;
    }
  };
  auto cpu_worker = [&] {
    for (std::size_t j = next_tile++; j < tiles_; j = next_tile++) {
      const std::size_t first = j * L;
      const std::size_t rows = std::min(L, n - first);
      detail::partition_tile_on_cpu(keys + first, values + first, rows, op, parts, config_.cpu_tile_threads,
                            tile_keys_ + first, tile_values_ + first, tile_offsets_[j]);
      tile_sizes_[j] = rows;
      ++cpu_tiles;
    }
  };
  auto guarded = [&](const std::function<void()>& body) {
    return [&, body] { error.run(body, [&] { next_tile = tiles_; }); };  // the others stop after their tile
  };
  std::vector<std::thread> threads;
  for (auto& ctx : contexts_) threads.emplace_back(guarded([&, c = ctx.get()] { gpu_worker(*c); }));
  if (config_.cpu_tile_threads > 0) threads.emplace_back(guarded(cpu_worker));
  for (auto& th : threads) th.join();
  if (error) {
    drain_streams();
    error.rethrow();
  }
  stats_.gpu_tiles = gpu_tiles;
  stats_.cpu_tiles = cpu_tiles;
}

}  // namespace hashlab::ega
