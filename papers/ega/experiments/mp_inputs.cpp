// The shared input and timing of the MP-EGA experiments (mp_inputs.cuh).
#include "mp_inputs.cuh"

#include <algorithm>
#include <string>

#include "hashlab/reference/cpu_baselines.hpp"

namespace hashlab::ega::experiments {

MpInput& mp_input(PointContext& ctx, std::uint64_t n, const gen::KeySpec& spec) {
  note_oracle(ctx, n);
  return ctx.cached<MpInput>("mp:" + std::to_string(n) + ":" + spec.describe(), [&] {
    ctx.drop_cached("mp:");
    gen::validate(spec, n);
    MpInput in;
    in.keys = PinnedBuffer<std::uint32_t>(n);
    in.values = PinnedBuffer<std::uint32_t>(n);
    {  // generated on the device in slices, so that any size the host holds works
      const std::size_t slice = std::min<std::uint64_t>(n, 1ull << 28);
      DeviceBuffer<std::uint32_t> keys(slice, ctx.stream()), values(slice, ctx.stream());
      for (std::uint64_t first = 0; first < n; first += slice) {
        const std::size_t rows = std::min<std::uint64_t>(slice, n - first);
        // Each slice from its own seed: the dataset is a function of (seed, n), like every input here.
        gen::generate_keys(spec, ctx.seed() + 1000 + first / slice, keys.data(), rows, ctx.stream());
        gen::generate_values<std::uint32_t>(ctx.seed() + 2000 + first / slice, 0, 1000000, values.data(), rows,
                                            ctx.stream());
        HASHLAB_CUDA_CHECK(cudaMemcpyAsync(in.keys.data() + first, keys.data(), rows * 4, cudaMemcpyDeviceToHost, ctx.stream()));
        HASHLAB_CUDA_CHECK(cudaMemcpyAsync(in.values.data() + first, values.data(), rows * 4, cudaMemcpyDeviceToHost, ctx.stream()));
        HASHLAB_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));
      }
    }
    in.host_keys.assign(in.keys.begin(), in.keys.end());
    in.host_values.assign(in.values.begin(), in.values.end());
    in.expected = oracle(in.host_keys, in.host_values);
    return in;
  });
}

std::size_t budget_of(const PointContext& ctx, double ratio) {
  const std::size_t fixed = parse_bytes(ctx.options().option(kBudgetOption));
  if (fixed > 0) return fixed;
  return static_cast<std::size_t>(static_cast<double>(ctx.point().n) * 8 / ratio);
}

void time_mp(PointContext& ctx, MpInput& in, MpEgaConfig config) {
  const std::size_t n = ctx.point().n;
  // A size far below the experiment's own (--n) can leave a budget of data / 8 too small for one
  // tile per stream: an outcome of that size, not a failure of MP-EGA.
  if (config.gpu_memory_budget > 0 && MpEga::tile_rows_for(config.gpu_memory_budget, config.streams) == 0)
    throw harness::SkipPoint("a GPU memory budget of " + std::to_string(config.gpu_memory_budget >> 10) +
                             " KiB (this n's share) cannot hold one tile per stream for " +
                             std::to_string(config.streams) + " streams; larger n can");
  // Device buffers and pinned workspace: allocated before the timing. The workspace (gigabytes
  // of pinned memory at 100M rows, as long to pin as a run takes) is shared by the points of one
  // input; "mp:" lets the next input's build drop it with the input.
  auto& host = ctx.cached<MpEgaHostWorkspace>("mp:workspace:" + std::to_string(n), [] { return MpEgaHostWorkspace{}; });
  MpEga mp(config, n, &host);
  const HostGroups* out = nullptr;
  const auto t = ctx.time_host([&] { out = &mp.run(in.keys.data(), in.values.data(), n, kOp); });
  ctx.report_time("groupby", t, static_cast<double>(n), "rows");
  const auto& st = mp.stats();
  ctx.report_value("budget", static_cast<double>(config.gpu_memory_budget) / (1 << 20), "MiB");
  ctx.report_value("tile_rows", static_cast<double>(st.tile_rows), "rows");
  ctx.report_value("partitions", static_cast<double>(st.partitions), "count");
  ctx.report_value("merged_partitions", static_cast<double>(st.merged_partitions), "count");
  ctx.report_value("tiles", static_cast<double>(st.tiles), "count");
  ctx.report_value("partition_rows", static_cast<double>(st.partition_rows), "rows");  // after the tiles' SP-EGA
  ctx.report_value("oversize_partitions", static_cast<double>(st.oversize_partitions), "count");
  ctx.report_value("feedback_rounds", static_cast<double>(st.feedback_rounds), "count");
  ctx.report_value("feedback_round_rows", static_cast<double>(st.feedback_round_rows), "rows");
  // 4.2.2: every round that leaves rows of its partition loads at least alpha_min L pairs.
  ctx.report_value("feedback_min_round_rows", static_cast<double>(st.feedback_min_round_rows), "rows");
  ctx.report_value("alpha_min_rows", config.alpha_min * static_cast<double>(st.tile_rows), "rows");
  ctx.report_value("full_partitions", static_cast<double>(st.full_partitions), "count");
  if (config.gpu_memory_budget > 0)
    ctx.report_value("data_over_budget", static_cast<double>(n) * 8 / static_cast<double>(config.gpu_memory_budget),
                     "ratio");
  ctx.report_value("cpu_rows", static_cast<double>(st.cpu_rows), "rows");
  ctx.report_value("cpu_tiles", static_cast<double>(st.cpu_tiles), "count");
  ctx.report_value("generate_time", st.generate_ms, "ms");
  ctx.report_value("merge_time", st.merge_ms, "ms");
  ctx.report_value("process_time", st.process_ms, "ms");
  ctx.report_value("gathered_partitions", static_cast<double>(st.gathered_partitions), "count");
  verify_groups(ctx, in.expected, out->to_reference(kOp));
}

MpEgaConfig mp_config(const PointContext& ctx, double ratio) {
  MpEgaConfig c;
  c.gpu_memory_budget = budget_of(ctx, ratio);
  return c;
}

std::uint64_t mp_ablation_n(const RunOptions& o) { return o.pick_size(20000000, 200000000); }

void time_cpu_baseline(PointContext& ctx, MpInput& in) {
  reference::GroupByResult got;
  const auto t = ctx.time_host([&] { got = cpu::parallel_groupby(in.host_keys, in.host_values, kOp); });
  ctx.report_time("groupby", t, static_cast<double>(ctx.point().n), "rows");
  ctx.report_value("threads", cpu::default_threads(), "count");
  verify_groups(ctx, in.expected, got);
}

void run_mp_against_cpu(PointContext& ctx, MpInput& in) {
  if (ctx.point().variant == "cpu") return time_cpu_baseline(ctx, in);
  time_mp(ctx, in, mp_config(ctx, kAblationRatio));
}

}  // namespace hashlab::ega::experiments
