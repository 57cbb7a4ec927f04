// A GPU hash join (build on R, probe with S) on the linear-probing table: the stand-in for
// Crystal's join in the pk-pk report and for the joins of the cross-paper comparison.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "hashlab/baselines/linear_probing.hpp"
#include "hashlab/common/memory.hpp"

namespace hashlab::baseline {

/// The materialised output of a join: r_index[i], s_index[i] for i < size.
struct JoinOutput {
  DeviceBuffer<std::uint32_t> r_index;
  DeviceBuffer<std::uint32_t> s_index;
  std::size_t size = 0;
};

class HashJoin {
 public:
  /// `load_factor`: R's rows per table slot, in (0, 1].
  explicit HashJoin(double load_factor = 0.5) : load_factor_(load_factor) {}

  /// Builds the table over R's keys; each entry's value is its row index in R.
  void build(const std::uint32_t* r_keys, std::size_t n, cudaStream_t stream);

  /// Writes the number of result pairs to *d_count (asynchronous; keys may repeat in R and S).
  void count(const std::uint32_t* s_keys, std::size_t n, std::uint64_t* d_count, cudaStream_t stream) const;

  /// Every (i, j) with R[i] == S[j]: counts per probe row, a scan, then the writes. Synchronises
  /// once to size the output.
  JoinOutput join(const std::uint32_t* s_keys, std::size_t n, cudaStream_t stream) const;

  std::size_t bytes() const { return table_ ? table_->bytes() : 0; }

 private:
  double load_factor_;
  std::unique_ptr<LinearProbingTable> table_;
};

}  // namespace hashlab::baseline
