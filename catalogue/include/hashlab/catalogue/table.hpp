// Every hash table of the suite (and the sorted array it is compared with) behind one interface:
// build from (key, value) pairs, then probe with queries. Per query the answer is `count`, the
// build rows holding its key, and `value`, the smallest of their values (0 when count is 0);
// an entry says which of them its probe gives (Answers).
//
//   cuckoo          Alcantara et al. 4.3: 4 functions, 1.25 N slots, 7 lg N evictions; with
//                   multivalue=true the multivalue table of 4.4 (repeated keys)
//   hashgraph       Green et al.: the CSR table, V2 (or V1), probed by probe-standard (or
//                   probe-new); repeated keys always
//   linear_probing  the cuDF-style linear-probing table (baselines/) at load 0.5; with
//                   multivalue=true a multimap whose probe counts a key's entries
//   sorted_array    radix sort + binary search (cuckoo 4.1's comparator); with multivalue=true the
//                   sorted multivalue structure of cuckoo 4.5.2
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hashlab/catalogue/column.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/harness/timing.hpp"

namespace hashlab::catalogue {

struct LookupReference;  // checks.hpp

struct TableInput {
  Column keys;     // uint32
  Column values;   // uint32, one per key
  Column queries;  // uint32
};

/// The answers of a probe, per query; a table fills what its probe computes (Answers).
struct Lookup {
  std::vector<std::uint32_t> count;  // build rows with the query's key (empty: not computed)
  std::vector<std::uint32_t> value;  // the smallest of their values, 0 when none (empty: not computed)
  std::uint64_t total = 0;           // the matches of every query together
};

/// The same answers in device memory, the answer's own arrays: count and value per query (size 0:
/// not computed), and the total.
struct DeviceLookup {
  DeviceBuffer<std::uint32_t> count;
  DeviceBuffer<std::uint32_t> value;
  std::uint64_t total = 0;
};

/// What a probe answers: the value per query (a map of unique keys), the count per query and the
/// smallest value (the multivalue structures, HashGraph with its pairs), the count per query only
/// (the linear-probing multimap), or the matches of all queries counted together (HashGraph as
/// the paper times it).
enum class Answers { kValue, kCountAndValue, kCount, kTotal };
const char* to_string(Answers answers);

class Table {
 public:
  virtual ~Table() = default;
  /// Untimed, before every build (emptying a table that inserts into its slots).
  virtual void reset(cudaStream_t) {}
  virtual void build(cudaStream_t stream) = 0;  // time this
  virtual void probe(cudaStream_t stream) = 0;  // and this
  /// The last probe's answers (synchronises; host work to put them in Lookup's form is untimed).
  virtual Lookup result(cudaStream_t stream) = 0;
  /// The same answers put in that form on the device, without a round trip through host memory
  /// (synchronises to read the total). std::nullopt for a table whose answers are on the host.
  virtual std::optional<DeviceLookup> device_result(cudaStream_t) { return std::nullopt; }
  /// The device addresses the table reads keys, values and queries at: a device column's own
  /// address where it is used in place, else the table's upload of a host column.
  virtual std::vector<const void*> device_inputs() const { return {}; }
  /// The last build and probe against the CPU reference of the same input: the answers, and what
  /// answers cannot show (HashGraph: every row in its key's list; the multivalue structures: every
  /// key's values). "" when right, else the first difference. Synchronises.
  virtual std::string check(const LookupReference& reference, cudaStream_t stream) = 0;
  virtual Statistics statistics(cudaStream_t stream, bool arrays = true) = 0;
  virtual std::vector<std::string> warnings() const { return {}; }
  /// Device bytes of the table (what a probe needs; the build's scratch excluded).
  virtual std::size_t bytes() const = 0;
};

struct TableEntry {
  std::string name;
  std::string description;
  bool needs_gpu = true;
  /// The largest load (keys per slot; HashGraph: keys per vertex) the table holds well; 0 for the
  /// sorted array, which has no load (n keys in n entries). Beyond it a build degrades or fails.
  double max_load = 0;
  std::vector<OptionSpec> options;
  std::vector<StatisticSpec> statistics;
  /// What its probe answers with these options (Answers).
  std::function<Answers(const Options& options)> answers;
  /// Throws std::invalid_argument (naming the column and rows) for empty or ragged columns, a
  /// repeated key where the table holds unique keys, its empty-slot key, a value equal to the
  /// not-found marker, a bad load or option. Reads host columns only.
  std::function<void(const TableInput& input, const Options& options)> check;
  std::function<std::unique_ptr<Table>(const TableInput& input, const Options& options, cudaStream_t stream)> make;
};

const std::vector<TableEntry>& table_entries();
/// The entry called `name`; std::invalid_argument naming the choices.
const TableEntry& table_entry(const std::string& name);

}  // namespace hashlab::catalogue
