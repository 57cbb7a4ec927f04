// The CPU oracle and the full verification of the EGA experiments (inputs.cuh).
#include "inputs.cuh"

#include <string>

#include "hashlab/reference/cpu_baselines.hpp"

namespace hashlab::ega::experiments {

constexpr std::uint64_t kReferenceRowsLimit = 50000000;    // above: the parallel CPU group-by is the oracle

reference::GroupByResult oracle(PointContext& ctx, const std::vector<std::uint32_t>& keys,
                                const std::vector<std::uint32_t>& values) {
  if (keys.size() <= kReferenceRowsLimit) return reference::groupby(keys, values, kOp);
  ctx.note("oracle: the multi-threaded CPU group-by (equal to the reference; the reference is slow at this size)");
  return cpu::parallel_groupby(keys, values, kOp);
}

void verify_groups(PointContext& ctx, const reference::GroupByResult& expected, const reference::GroupByResult& got) {
  const std::string diff = reference::compare(expected, got);
  ctx.verify(diff.empty(), diff);
}

}  // namespace hashlab::ega::experiments
