// 4.2.5: merged partitions copied together on the CPU vs gathered on the GPU vs both vs the T copies
// per partition the paper rejects, s streams.
#include "experiments.hpp"
#include "mp_inputs.cuh"

namespace hashlab::ega::experiments {
namespace {

void run_mp_merge_copy(PointContext& ctx) {
  auto config = mp_config(ctx, kAblationRatio);
  for (MergeCopy copy : {MergeCopy::kHost, MergeCopy::kGpuGather, MergeCopy::kHostAndGather, MergeCopy::kPieceCopies})
    if (ctx.point().variant == to_string(copy)) config.merge_copy = copy;
  config.streams = static_cast<int>(ctx.point().param_value);
  time_mp(ctx, mp_input(ctx, ctx.point().n), config);
}

}  // namespace

harness::Experiment mp_merge_copy() {
  // The paper's host copy into contiguous partitions vs our gather of the pieces on the GPU,
  // at s streams.
  const Variants merge_copy_variants = {to_string(MergeCopy::kHost), to_string(MergeCopy::kGpuGather),
                                        to_string(MergeCopy::kHostAndGather), to_string(MergeCopy::kPieceCopies)};
  return make_experiment(
      "ega", "mp_merge_copy",
      "4.2.5 (merge on the CPU before the copy)",
      "host copy vs gather vs both vs T copies per partition: MP-EGA, budget = data / 8, 1M groups; "
      "merged partitions copied together on the CPU (the paper), gathered "
      "from the tiles' pinned output by a kernel, or both at once (ours), or copied piece by piece (T copies per "
      "partition, the alternative the paper rejects); s = 1..4 streams",
      merge_copy_variants,
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, {o.pick_size(kBarRows, 500000000)}, "streams", {1, 2, 3, 4});
      },
      run_mp_merge_copy);
}

}  // namespace hashlab::ega::experiments
