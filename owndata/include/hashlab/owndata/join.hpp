// Pk-Pk join of the user's tables with any of the suite's joins (`hashlab join`): R and S, each
// a key column (unique within its table) and a value column (row numbers when none is given).
//
//   JoinInput input{r_keys, r_values, s_keys, s_values};
//   auto j = make_join(JoinAlgo::kBsp, input, stream);   // validates, uploads
//   j->run(stream);                                      // the join (time this)
//   std::vector<pkpk::JoinedRow> rows = j->result(stream);   // sorted by key
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

#include "hashlab/owndata/columns.hpp"
#include "hashlab/owndata/groupby.hpp"
#include "hashlab/pkpk_join/pkpk_join.hpp"

namespace hashlab::owndata {

enum class JoinAlgo { kBsp, kSort, kHash, kHashGraph, kCpu };

/// "bsp", "sort", "hash", "hashgraph", "cpu".
const char* to_string(JoinAlgo algo);
JoinAlgo parse_join_algo(const std::string& name);  // InputError naming the choices
const std::vector<JoinAlgo>& all_join_algos();
const char* describe(JoinAlgo algo);

struct JoinTable {
  KeyColumn keys;
  KeyColumn values;  // unsigned 32-bit values (read with read_key_column), or row numbers
};
struct JoinInput {
  JoinTable r, s;
};

class JoinRun {
 public:
  virtual ~JoinRun() = default;
  /// The join (time this). Host algorithms ignore the stream.
  virtual void run(cudaStream_t stream) = 0;
  /// The last run's rows, sorted by key.
  virtual std::vector<pkpk::JoinedRow> result(cudaStream_t stream) = 0;
  virtual bool on_host() const { return false; }
  virtual std::vector<Stat> stats() const = 0;
};

/// Throws InputError for an empty or ragged table, a key repeated within a table (naming the
/// file, the key and its two rows: a Pk-Pk join needs unique keys), rows beyond the algorithm's
/// limits or its empty-slot key. Host work only.
void check_join(JoinAlgo algo, const JoinInput& input);

/// check_join, then copies the tables to the device. `input` must outlive the run.
std::unique_ptr<JoinRun> make_join(JoinAlgo algo, const JoinInput& input, cudaStream_t stream);

/// The CPU reference (pkpk::reference_join), sorted by key.
std::vector<pkpk::JoinedRow> reference_join(const JoinInput& input);
/// The checks' answer (pkpk::oracle_join), sorted by key: reference_join up to
/// cpu::kOracleReferenceRows rows a table; above, the same rows by pkpk::sort_merge_join on all
/// cores, with `note` (optional) saying so (emptied otherwise).
std::vector<pkpk::JoinedRow> oracle_join(const JoinInput& input, std::string* note = nullptr);

/// Compares two joins' rows (both sorted by key): "" when equal, else the first difference.
std::string compare_rows(const std::vector<pkpk::JoinedRow>& expected, const std::vector<pkpk::JoinedRow>& actual);

/// Row numbers 0..rows-1 as a value column named `name` (when a table has no value file).
KeyColumn row_numbers(std::size_t rows, const std::string& name);

}  // namespace hashlab::owndata
