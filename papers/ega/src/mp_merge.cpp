// MP-EGA's CPU merge of the tiles' partitions (EGA section 4.2.3): which partitions are merged
// (Algorithm 1: small ones greedily, partition_plan.hpp), where each merged partition lies in the
// merged layout, the pieces (one per tile and partition) it is made of, and the host copy of its
// pieces into that layout. The copies run during the processing phase (mp_merge_schedule.hpp).
#include <cstring>
#include <numeric>
#include <vector>

#include "hashlab/ega/partition_plan.hpp"
#include "mp_ega_detail.hpp"

namespace hashlab::ega {

void MpEga::merge(Aggregation) {
  const std::size_t P = partitions_;
  std::vector<std::uint64_t> sizes(P, 0);
  for (std::size_t j = 0; j < tiles_; ++j)
    for (std::size_t p = 0; p < P; ++p) sizes[p] += tile_offsets_[j][p + 1] - tile_offsets_[j][p];
  stats_.partition_rows = std::accumulate(sizes.begin(), sizes.end(), std::uint64_t{0});

  merged_parts_.clear();
  if (config_.merge_small_partitions) {
    merged_parts_ = greedy_merge(sizes, tile_rows_);
  } else {
    for (std::size_t p = 0; p < P; ++p) merged_parts_.push_back({p});
  }
  // Lay the merged partitions out one after the other, each one's partitions together. The
  // copies into this layout (copy_merged_partition) run in process(), overlapped with the GPU.
  destination_.assign(P, 0);
  merged_begin_.assign(1, 0);
  std::size_t position = 0;
  for (const auto& group : merged_parts_) {
    for (auto p : group) {
      destination_[p] = position;
      position += sizes[p];
    }
    merged_begin_.push_back(position);
  }
  stats_.merged_partitions = merged_parts_.size();
  // Each merged partition's pieces, in the order of its rows: partition by partition, tile by tile.
  const std::size_t L = tile_rows_;
  pieces_.clear();
  piece_begin_.assign(1, 0);
  for (const auto& group : merged_parts_) {
    for (const std::size_t p : group)
      for (std::size_t j = 0; j < tiles_; ++j) {
        const std::size_t rows = tile_offsets_[j][p + 1] - tile_offsets_[j][p];
        if (rows > 0) pieces_.push_back({j * L + tile_offsets_[j][p], rows});
      }
    piece_begin_.push_back(pieces_.size());
  }
}

// Copies merged partition m's rows from every tile's output into merged[begin[m], begin[m + 1]).
void MpEga::copy_merged_partition(std::size_t m) {
  std::size_t at = merged_begin_[m];
  for (std::size_t q = piece_begin_[m]; q < piece_begin_[m + 1]; ++q) {
    const Piece& piece = pieces_[q];
    std::memcpy(merged_keys_ + at, tile_keys_ + piece.first, piece.rows * sizeof(std::uint32_t));
    std::memcpy(merged_values_ + at, tile_values_ + piece.first, piece.rows * sizeof(std::uint64_t));
    at += piece.rows;
  }
}

}  // namespace hashlab::ega
