// Build a hash table from the user's keys and probe it with their queries (`hashlab table`).
// Per query the answer is `count`, the build rows holding its key, and `value`, the smallest
// value among them (0 when count is 0). The unique-key tables (cuckoo, linear probing, the
// sorted array) need unique build keys; HashGraph takes repeats.
//
//   auto t = make_table(TableAlgo::kCuckoo, input, options, stream);
//   t->build(stream);  t->probe(stream);     // time each
//   Lookup got = t->result(stream);
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

#include "hashlab/owndata/columns.hpp"
#include "hashlab/owndata/groupby.hpp"

namespace hashlab::owndata {

enum class TableAlgo { kCuckoo, kHashGraph, kLinearProbing, kSortedArray };

/// "cuckoo", "hashgraph", "linear_probing", "sorted_array".
const char* to_string(TableAlgo algo);
TableAlgo parse_table_algo(const std::string& name);  // InputError naming the choices
const std::vector<TableAlgo>& all_table_algos();
const char* describe(TableAlgo algo);

struct TableInput {
  KeyColumn keys;
  KeyColumn values;  // row numbers when the user gives none
  KeyColumn queries;
};

struct TableOptions {
  /// Keys per slot (cuckoo: 1 / space factor; linear probing: keys / slots; HashGraph: keys per
  /// vertex). 0: the algorithm's default (cuckoo 0.8 = 1.25 N slots, linear probing 0.5,
  /// HashGraph 1). The sorted array has no load.
  double load = 0;
  int cuckoo_functions = 4;  // cuckoo: hash functions, 2..5
};

/// Per query: the build rows with its key, and the smallest of their values (0 when none).
struct Lookup {
  std::vector<std::uint32_t> count;
  std::vector<std::uint32_t> value;
};

class TableRun {
 public:
  virtual ~TableRun() = default;
  virtual void build(cudaStream_t stream) = 0;  // time this
  virtual void probe(cudaStream_t stream) = 0;  // and this
  virtual Lookup result(cudaStream_t stream) = 0;
  virtual std::vector<Stat> stats() const = 0;
};

/// Throws InputError (naming the file) for ragged or empty columns, a repeated key where the
/// table holds unique keys, the table's empty-slot key, a value equal to the not-found marker,
/// or a bad load. Host work only.
void check_table(TableAlgo algo, const TableInput& input, const TableOptions& options);

/// check_table, then copies the columns to the device. `input` must outlive the run.
std::unique_ptr<TableRun> make_table(TableAlgo algo, const TableInput& input, const TableOptions& options,
                                     cudaStream_t stream);

/// The CPU reference (compare/'s lookup reference: two sorts and a merge).
Lookup reference_lookup(const TableInput& input);

/// "" when equal, else the first query that differs.
std::string compare_lookup(const Lookup& expected, const Lookup& actual, const TableInput& input);

}  // namespace hashlab::owndata
