// The joins of two papers and the shared hash join behind one interface, on two tables whose keys
// are unique within each (Pk-Pk). Every variant materialises the same output, the rows
// (key, R's value, S's value) of pkpk::JoinedRows, so that their times compare:
//
//   bsp        Dash's BSP-sort join (pkpk::bsp_join, steps 1-9), rows sorted by key
//   hashgraph  HashGraph (V2 on R, load 1) probed with S by probe-new (section 3.4, Alg. 3),
//              materialising the pairs (Prober::join), then gathering the values (our adapter:
//              HashGraph's output is (row in R, row in S))
//   hash_join  common/'s linear-probing hash join with the gather (pkpk::hash_join, Crystal's stand-in)
//   sort_join  the pk-pk module's full-device radix-sort join (pkpk::sort_join)
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "hashlab/pkpk_join/pkpk_join.hpp"
#include "hashlab/reference/join.hpp"

namespace hashlab::compare {

enum class JoinKind { kBsp, kHashGraph, kHashJoin, kSortJoin };

/// "bsp", "hashgraph", "hash_join", "sort_join".
const char* to_string(JoinKind kind);
JoinKind parse_join_kind(const std::string& name);
const std::vector<JoinKind>& all_join_kinds();

class JoinUnderTest {
 public:
  virtual ~JoinUnderTest() = default;
  /// The join of r and s (timed). Each variant synchronises where its algorithm must (to size
  /// the output).
  virtual pkpk::JoinedRows run(const pkpk::TableView& r, const pkpk::TableView& s, cudaStream_t stream) = 0;
  /// Whether the rows come out sorted by key.
  virtual bool sorted_output() const = 0;
};

/// A join for tables of up to r_rows and s_rows rows (HashGraph allocates its tables here,
/// outside the timed region). Throws std::invalid_argument for empty tables.
std::unique_ptr<JoinUnderTest> make_join(JoinKind kind, std::size_t r_rows, std::size_t s_rows, cudaStream_t stream);

/// The gather of the HashGraph adapter, exposed for its test: rows (key, r_values[r], s_values[s])
/// of `pairs` (r_index into R, s_index into S).
pkpk::JoinedRows gather_pairs(const reference::JoinPair* pairs, std::size_t count, const pkpk::TableView& r,
                              const pkpk::TableView& s, cudaStream_t stream);

}  // namespace hashlab::compare
