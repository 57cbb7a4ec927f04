// Shared between the BSP join and its sort-join comparator: the report's step 9 (the adjacent
// compare) with the compaction of its output.
#pragma once

#include "hashlab/common/phase_timer.hpp"
#include "hashlab/common/search.hpp"
#include "hashlab/pkpk_join/pkpk_join.hpp"

namespace hashlab::pkpk::detail {

/// Step 9 on a globally sorted array of packed elements: compare each element with its
/// neighbour, compact the matches with a scan into (key, value1, value2) rows. Synchronises
/// once; throws std::invalid_argument naming a key that appears twice in one table. Marks its
/// steps (join, compact_scan, compact_write) on `phases` when there is one.
JoinedRows join_sorted(const std::uint64_t* sorted, std::size_t n, const TableView& r, const TableView& s,
                       cudaStream_t stream, PhaseTimer* phases);

/// Step 1 (Input Data): element g of the one array of both key columns, R's rows then S's, as a
/// packed (key, table, row) word. Read through an iterator, never written out.
struct PackElement {
  const std::uint32_t* r_keys;
  const std::uint32_t* s_keys;
  std::size_t r_rows;
  HASHLAB_HD std::uint64_t operator()(std::size_t g) const {
    return g < r_rows ? pack(r_keys[g], kTableR, g) : pack(s_keys[g - r_rows], kTableS, g - r_rows);
  }
};
/// The same elements indexed like an array (the sampling kernel reads `tiles[g]`).
struct TableElements {
  PackElement element;
  HASHLAB_HD std::uint64_t operator[](std::size_t g) const { return element(g); }
};

/// Step 6 (Distribution in Blocks, report "findSplitsKernel"): a key's bucket, the number of
/// splitters <= key, by binary search. Splitters compare keys only, so both tables' rows of a key
/// land in one bucket (on one server, for the servers' join).
HASHLAB_DEVICE unsigned bucket_of(std::uint32_t key, const std::uint32_t* splitters, unsigned num_splitters) {
  return upper_bound(splitters, num_splitters, key);
}

/// Step 5's sampling (report "sampleElements") on the elements of two tables, R's rows then S's:
/// `per_stratum` keys from each run of `stratum` consecutive elements (the last one may be
/// short), at positions drawn by cuRAND from `seed`. The same kernel as bsp_join's, which samples
/// log2(p) keys per tile of 4096. `samples` holds ceil((|R| + |S|) / stratum) * per_stratum keys.
void sample_tables(const TableView& r, const TableView& s, unsigned stratum, unsigned per_stratum, std::uint64_t seed,
                   std::uint32_t* samples, cudaStream_t stream);

/// Step 5, report "Splitterss": splitter i = sorted_samples[splitter_sample(i, num_samples, p)] for
/// i < p - 1 (the report's formula; nothing for p < 2).
void find_splitters(const std::uint32_t* sorted_samples, std::size_t num_samples, unsigned p, std::uint32_t* splitters,
                    cudaStream_t stream);

}  // namespace hashlab::pkpk::detail
