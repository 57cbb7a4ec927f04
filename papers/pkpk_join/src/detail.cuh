// Shared between the BSP join and its sort-join comparator: the report's step 9 (the adjacent
// compare) with the compaction of its output.
#pragma once

#include "hashlab/common/phase_timer.hpp"
#include "hashlab/pkpk_join/pkpk_join.hpp"

namespace hashlab::pkpk::detail {

/// Step 9 on a globally sorted array of packed elements: compare each element with its
/// neighbour, compact the matches with a scan into (key, value1, value2) rows. Synchronises
/// once; throws std::invalid_argument naming a key that appears twice in one table. Marks its
/// steps (join, compact_scan, compact_write) on `phases` when there is one.
JoinedRows join_sorted(const std::uint64_t* sorted, std::size_t n, const TableView& r, const TableView& s,
                       cudaStream_t stream, PhaseTimer* phases);

}  // namespace hashlab::pkpk::detail
