// MP-EGA's partition-processing phase (EGA section 4.2, Algorithm 3): the merged partitions,
// largest first, to one worker thread per stream, each loading its partition (one copy, the
// gather or piece copies: load_rows) and running SP-EGA on it; a partition larger than a stream's
// buffers goes through the feedback load (4.2.2), and what the GPU's table cannot take is
// aggregated on the CPU and combined. Merge threads copy partitions into the merged layout
// meanwhile (mp_merge_schedule.hpp).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <thread>
#include <vector>

#include "hashlab/common/threads.hpp"
#include "mp_ega_detail.hpp"
#include "mp_merge_schedule.hpp"

namespace hashlab::ega {

using detail::combine_plain;

void MpEga::load_rows(StreamContext& ctx, std::size_t m, bool merged, std::size_t from, std::size_t rows,
                      std::size_t at) {
  auto& b = ctx.ega.buffers();
  if (!merged && config_.merge_copy == MergeCopy::kPieceCopies) {
    // 4.2.5's "T copies": each tile's piece of the partition copied where it lies in the tiles'
    // pinned output, one copy per piece and column.
    std::size_t done = 0;
    for_each_piece(m, false, from, from + rows, [&](const std::uint32_t* keys, const std::uint64_t* values,
                                                    std::size_t count) {
      HASHLAB_CUDA_CHECK(cudaMemcpyAsync(b.red_keys.data() + at + done, keys, count * sizeof(std::uint32_t),
                                         cudaMemcpyHostToDevice, ctx.stream));
      HASHLAB_CUDA_CHECK(cudaMemcpyAsync(b.red_values.data() + at + done, values, count * sizeof(std::uint64_t),
                                         cudaMemcpyHostToDevice, ctx.stream));
      done += count;
    });
    return;
  }
  if (merged) {  // the merged partition is contiguous: one copy
    const std::size_t begin = merged_begin_[m] + from;
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(b.red_keys.data() + at, merged_keys_ + begin,
                                       rows * sizeof(std::uint32_t), cudaMemcpyHostToDevice, ctx.stream));
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(b.red_values.data() + at, merged_values_ + begin,
                                       rows * sizeof(std::uint64_t), cudaMemcpyHostToDevice, ctx.stream));
    return;
  }
  // The pieces' table goes to the start of blue (starts) and yellow (sources): both are free until
  // SP-EGA runs after the gather, and a load of `rows` rows has at most `rows` non-empty pieces.
  ctx.gather_starts.clear();
  ctx.gather_sources.clear();
  std::size_t first_piece_row = 0;
  for_each_piece(m, false, from, from + rows, [&](const std::uint32_t* keys, const std::uint64_t*, std::size_t count) {
    ctx.gather_starts.push_back(static_cast<std::uint32_t>(first_piece_row));
    ctx.gather_sources.push_back(static_cast<std::uint64_t>(keys - tile_keys_));
    first_piece_row += count;
  });
  if (rows == 0) return;
  const auto pieces = static_cast<std::uint32_t>(ctx.gather_starts.size());
  std::uint64_t* sources = b.yellow_values.data();
  // Pageable sources: the calls return once the host vectors are staged, so they may be reused.
  HASHLAB_CUDA_CHECK(cudaMemcpyAsync(b.blue.data(), ctx.gather_starts.data(), pieces * sizeof(std::uint32_t),
                                     cudaMemcpyHostToDevice, ctx.stream));
  HASHLAB_CUDA_CHECK(cudaMemcpyAsync(sources, ctx.gather_sources.data(), pieces * sizeof(std::uint64_t),
                                     cudaMemcpyHostToDevice, ctx.stream));
  detail::gather_pieces_on_gpu(tile_keys_device_, tile_values_device_, b.blue.data(), sources, pieces, rows,
                               b.red_keys.data() + at, b.red_values.data() + at, ctx.stream);
}

/// What the stream workers count, shared by them.
struct MpEga::ProcessCounters {
  std::atomic<std::size_t> next{0};  // the next partition (position in the processing order)
  std::atomic<std::size_t> out_count{0}, oversize{0}, rounds{0}, cpu_rows{0}, gathered{0}, full_tables{0};
  std::atomic<std::size_t> round_rows{0};
  std::atomic<std::size_t> min_round{std::numeric_limits<std::size_t>::max()};

  /// A feedback round of `batch` rows; `left`: it left rows of its partition (the rounds 4.2.2's
  /// lower bound is about).
  void record_round(std::size_t batch, bool left) {
    ++rounds;
    round_rows += batch;
    if (!left) return;
    std::size_t seen = min_round.load();
    while (batch < seen && !min_round.compare_exchange_weak(seen, batch)) {
    }
  }
};

void MpEga::aggregate_on_cpu(CpuTable& table, const std::uint32_t* keys, const std::uint64_t* values,
                             std::size_t rows, Aggregation op) {
  for (std::size_t i = 0; i < rows; ++i) {
    auto [aggregate, inserted] = table.try_emplace(keys[i], values[i]);
    if (!inserted) aggregate = combine_plain(op, aggregate, values[i]);
  }
}

void MpEga::emit(const CpuTable& table, ProcessCounters& counters) {
  std::size_t at = counters.out_count.fetch_add(table.size());
  table.for_each([&](std::uint32_t key, std::uint64_t value) {
    result_keys_[at] = key;
    result_values_[at] = value;
    ++at;
  });
}

void MpEga::process_partition(StreamContext& ctx, std::size_t m, bool merged, Aggregation op,
                              ProcessCounters& counters) {
  const std::size_t L = tile_rows_;
  const std::size_t rows = merged_begin_[m + 1] - merged_begin_[m];
  const cudaStream_t s = ctx.stream;
  auto& b = ctx.ega.buffers();
  const auto cpu_rows_of = [&](CpuTable& table, std::size_t from) {
    for_each_piece(m, merged, from, rows, [&](const std::uint32_t* k, const std::uint64_t* v, std::size_t c) {
      aggregate_on_cpu(table, k, v, c, op);
    });
  };
  if (rows > L) {
    ++counters.oversize;
    if (config_.oversize == OversizeMode::kCpu) {
      CpuTable table(rows);
      cpu_rows_of(table, 0);
      counters.cpu_rows += rows;
      emit(table, counters);
      return;
    }
  }
  // Feedback load (4.2.2); a partition of at most L rows is the one-round case.
  std::size_t loaded = 0;   // rows of the partition sent to the GPU so far
  std::size_t results = 0;  // groups so far, in yellow[L - results, L)
  const bool free_space = config_.oversize == OversizeMode::kFreeSpaceLoad;
  const auto full = static_cast<std::size_t>(config_.alpha_max * L);
  // alpha_min L rounded up: a round moves at least alpha_min L pairs (room >= L - full >= this).
  const auto least = std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(config_.alpha_min * L)));
  Groups g;
  while (loaded < rows) {
    const std::size_t room = L - results;  // >= 1: a full table ends the loop below
    // At most L rows: one round. Else the feedback rule: fill up to alpha_max L, but never
    // send fewer than alpha_min L pairs (PCIe efficiency); or (the ablation) the free slots.
    std::size_t want = rows;
    if (rows > L) want = free_space ? room : std::max(full > results ? full - results : 0, least);
    const std::size_t batch = std::min({rows - loaded, want, room});
    if (rows > L) counters.record_round(batch, loaded + batch < rows);
    if (results > 0) {  // the groups so far go first into red, the new pairs after them
      HASHLAB_CUDA_CHECK(cudaMemcpyAsync(b.red_keys.data(), g.keys, results * sizeof(std::uint32_t),
                                         cudaMemcpyDeviceToDevice, s));
      HASHLAB_CUDA_CHECK(cudaMemcpyAsync(b.red_values.data(), g.aggregates, results * sizeof(std::uint64_t),
                                         cudaMemcpyDeviceToDevice, s));
    }
    load_rows(ctx, m, merged, loaded, batch, results);
    g = ctx.ega.run(results + batch, op, s);
    results = g.count;
    loaded += batch;
    // The table is "full" (beyond alpha_max L; the ablation: no free slot left): the CPU takes
    // the rest.
    if (free_space ? results >= L : results > full) break;
  }
  if (loaded == rows) {  // the GPU's groups are the partition's: copy them out
    const std::size_t at = counters.out_count.fetch_add(results);
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(result_keys_ + at, g.keys, results * sizeof(std::uint32_t),
                                       cudaMemcpyDeviceToHost, s));
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(result_values_ + at, g.aggregates, results * sizeof(std::uint64_t),
                                       cudaMemcpyDeviceToHost, s));
    HASHLAB_CUDA_CHECK(cudaStreamSynchronize(s));
    return;
  }
  // The GPU's groups and the rows it did not take, combined on the CPU.
  std::vector<std::uint32_t> gpu_keys(results);
  std::vector<std::uint64_t> gpu_values(results);
  HASHLAB_CUDA_CHECK(cudaMemcpyAsync(gpu_keys.data(), g.keys, results * sizeof(std::uint32_t),
                                     cudaMemcpyDeviceToHost, s));
  HASHLAB_CUDA_CHECK(cudaMemcpyAsync(gpu_values.data(), g.aggregates, results * sizeof(std::uint64_t),
                                     cudaMemcpyDeviceToHost, s));
  HASHLAB_CUDA_CHECK(cudaStreamSynchronize(s));
  CpuTable table(results);
  aggregate_on_cpu(table, gpu_keys.data(), gpu_values.data(), results, op);
  cpu_rows_of(table, loaded);
  counters.cpu_rows += rows - loaded;
  ++counters.full_tables;
  emit(table, counters);
}

void MpEga::process(Aggregation op, std::chrono::steady_clock::time_point merge_start) {
  const std::size_t count = merged_begin_.size() - 1;
  // Largest first, so that the big ones do not come last and leave the other streams idle.
  std::vector<std::size_t> order(count);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return merged_begin_[a + 1] - merged_begin_[a] > merged_begin_[b + 1] - merged_begin_[b];
  });
  const MergeCopy mode = config_.merge_copy;
  MergeSchedule schedule(mode, count, merge_start);
  // The merge threads: the host threads less one per stream (the stream workers mostly wait on
  // the GPU), at least one.
  const unsigned host = config_.host_threads > 0 ? config_.host_threads : cpu::default_threads();
  const auto stream_threads = static_cast<unsigned>(contexts_.size());
  const unsigned merge_threads = !copies_merged_partitions(mode) ? 0u : static_cast<unsigned>(std::min<std::size_t>(
      std::max(1u, host > stream_threads ? host - stream_threads : 1u), std::max<std::size_t>(count, 1)));

  ProcessCounters counters;
  detail::FirstError error;
  const int device = detail::current_device();
  auto worker = [&](StreamContext& ctx) {
    HASHLAB_CUDA_CHECK(cudaSetDevice(device));
    for (std::size_t i = counters.next++; i < count; i = counters.next++) {
      const std::size_t m = order[i];
      if (merged_begin_[m + 1] == merged_begin_[m]) continue;
      const bool merged = schedule.claim(i);
      if (!merged) ++counters.gathered;
      process_partition(ctx, m, merged, op, counters);
    }
  };
  std::vector<std::thread> mergers;
  for (unsigned t = 0; t < merge_threads; ++t)
    mergers.emplace_back([&] { schedule.merge_worker([&](std::size_t i) { copy_merged_partition(order[i]); }); });
  std::vector<std::thread> threads;
  for (auto& ctx : contexts_)
    threads.emplace_back([&, c = ctx.get()] { error.run([&] { worker(*c); }, [&] { counters.next = count; }); });
  for (auto& th : threads) th.join();
  schedule.stop();  // after an error: the merge threads stop after their current copy
  for (auto& th : mergers) th.join();
  const auto process_end = std::chrono::steady_clock::now();
  const auto merge_end = schedule.merge_end();
  stats_.merge_ms = std::chrono::duration<double, std::milli>(merge_end - merge_start).count();
  stats_.process_ms = std::chrono::duration<double, std::milli>(process_end - std::max(merge_end, merge_start)).count();
  if (error) {
    drain_streams();
    error.rethrow();
  }
  stats_.oversize_partitions = counters.oversize;
  stats_.feedback_rounds = counters.rounds;
  stats_.feedback_round_rows = counters.round_rows;
  stats_.feedback_min_round_rows =
      counters.min_round == std::numeric_limits<std::size_t>::max() ? 0 : counters.min_round.load();
  stats_.full_partitions = counters.full_tables;
  stats_.cpu_rows = counters.cpu_rows;
  stats_.gathered_partitions = counters.gathered;
  result_ = HostGroups{result_keys_, result_values_, counters.out_count};
}

}  // namespace hashlab::ega
