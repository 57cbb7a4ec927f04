// The CPU oracle and the full verification of the EGA experiments (inputs.cuh).
#include "inputs.cuh"

#include <string>

#include "hashlab/reference/cpu_baselines.hpp"

namespace hashlab::ega::experiments {

reference::GroupByResult oracle(const std::vector<std::uint32_t>& keys, const std::vector<std::uint32_t>& values) {
  if (keys.size() <= cpu::kOracleReferenceRows) return reference::groupby(keys, values, kOp);
  return reference::sorted_groupby(keys, values, kOp);
}

void note_oracle(PointContext& ctx, std::size_t rows) {
  if (rows > cpu::kOracleReferenceRows)
    ctx.note("oracle: the sort-based multi-threaded group-by (reference::sorted_groupby, equal to the reference)");
}

void verify_groups(PointContext& ctx, const reference::GroupByResult& expected, const reference::GroupByResult& got) {
  const std::string diff = reference::compare(expected, got);
  ctx.verify(diff.empty(), diff);
}

}  // namespace hashlab::ega::experiments
