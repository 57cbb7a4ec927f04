// The hash tables of three papers and two shared baselines behind one interface (build, lookup,
// check, bytes), so that one experiment drives them all on identical inputs (STYLE.md: "every
// table type has the same build / find interface so one benchmark drives them all").
//
//   auto table = make_table(TableKind::kCuckoo, KeyMode::kUnique, n, 0.8, stream);
//   table->build(d_keys, d_values, n, stream);        // timed
//   table->lookup(d_queries, m, stream);              // timed, into the adapter's own output
//   std::string problem = table->check(reference, stream);   // untimed: "" when right
//
// Two modes, because the papers' tables answer different questions:
//   kUnique: a map of unique keys; a lookup returns the key's value (cuckoo Listing 4.2, the
//            linear-probing find, the sorted array's binary search). HashGraph has no "find":
//            its lookup is probe-standard (section 3.4), which counts a query's matches, as the
//            paper times it; the check adds HashGraph's own table check (every row in its list).
//   kMulti:  keys repeat; a lookup answers how many entries a key has (and, for the cuckoo
//            multivalue table and the sorted multivalue array, where its values lie): cuckoo's
//            multivalue table (section 4.4), HashGraph probe-standard, linear-probing count, the
//            cuckoo chapter's sorted multivalue structure (section 4.5.2) as the sorted array.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hashlab::compare {

enum class TableKind { kCuckoo, kHashGraphV1, kHashGraphV2, kLinearProbing, kSortedArray };
enum class KeyMode { kUnique, kMulti };

/// The variant names of the `tables` experiment: "cuckoo", "hashgraph_v1", "hashgraph_v2",
/// "linear_probing", "sorted_array".
const char* to_string(TableKind kind);
/// Parses those names; throws std::invalid_argument naming the choices.
TableKind parse_table_kind(const std::string& name);
const std::vector<TableKind>& all_table_kinds();

// The loads each table runs at (load = keys / slots; for HashGraph keys / vertices, its meaning
// of load, section 2, as in its Fig. 2).
constexpr double kCuckooSpaceFactor = 1.25;   // cuckoo 4.3.1.1: 1.25 N slots, 4 functions
constexpr double kCuckooMaxLoad = 0.85;       // 4 functions, 7 lg N: ~all attempts fail at 1.1 N (cuckoo min_space)
constexpr double kLinearProbingMaxLoad = 0.9;  // beyond, inserts degrade toward scanning the table
constexpr double kLinearProbingMultiLoad = 0.5;  // HashGraph section 4: cuDF's default load
constexpr double kHashGraphMultiLoad = 1.0;   // HashGraph 5.3: range = N by default
constexpr double kSortedArrayLoad = 1.0;      // n keys in n entries: the only "load" it has

/// Whether `kind` holds unique keys at `load_factor` in this comparison: cuckoo up to
/// kCuckooMaxLoad, linear probing up to kLinearProbingMaxLoad, HashGraph at any positive load,
/// the sorted array at kSortedArrayLoad only.
bool runs_at_load(TableKind kind, double load_factor);

/// The CPU reference of a lookup, in array form: the multimap key -> values of the build input
/// (reference::Multimap's content, sorted), and per query what a lookup must return.
struct LookupReference {
  std::vector<std::uint32_t> unique_keys;    // ascending
  std::vector<std::uint64_t> key_begin;      // values of unique_keys[u]: sorted_values[key_begin[u], key_begin[u+1])
  std::vector<std::uint32_t> sorted_values;  // by (key, value)
  std::vector<std::uint32_t> query_count;    // per query: entries with its key (0: absent)
  std::vector<std::uint32_t> query_value;    // per query: its key's smallest value, kNotFound if absent
  std::uint64_t total_matches = 0;           // sum of query_count (a join count)
  bool keys_unique = true;                   // every key of the build input appears once
};

/// Builds the reference from the build input's pairs and the queries (host copies), with two
/// sorts and a merge: O((n + m) log) time, no hash map. Throws std::invalid_argument when keys
/// and values differ in length.
LookupReference make_lookup_reference(const std::vector<std::uint32_t>& keys, const std::vector<std::uint32_t>& values,
                                      const std::vector<std::uint32_t>& queries);

/// The values `reference` holds for unique key number u (ascending), as [first, last).
inline std::pair<const std::uint32_t*, const std::uint32_t*> values_of(const LookupReference& reference, std::size_t u) {
  const std::uint32_t* base = reference.sorted_values.data();
  return {base + reference.key_begin[u], base + reference.key_begin[u + 1]};
}

/// The host copies a check compares against.
struct HostTableInput {
  const std::vector<std::uint32_t>* keys = nullptr;
  const std::vector<std::uint32_t>* values = nullptr;
  const std::vector<std::uint32_t>* queries = nullptr;
  const LookupReference* reference = nullptr;
};

class TableUnderTest {
 public:
  virtual ~TableUnderTest() = default;
  /// Untimed, before every timed build (e.g. emptying the linear-probing table).
  virtual void reset(cudaStream_t) {}
  /// Builds from n pairs (device arrays). Replaces what the table held.
  virtual void build(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, cudaStream_t stream) = 0;
  /// Looks up m queries (device array), into the adapter's output (m <= the n it was made for).
  virtual void lookup(const std::uint32_t* queries, std::size_t m, cudaStream_t stream) = 0;
  /// Compares the last build and lookup with the CPU reference (synchronises). "" when right,
  /// else the first difference.
  virtual std::string check(const HostTableInput& host, cudaStream_t stream) = 0;
  /// Device bytes of the table (what a lookup needs; scratch of the build excluded).
  virtual std::size_t bytes() const = 0;
  /// Build attempts that failed and were restarted in the last build (cuckoo), else 0.
  virtual int restarts() const { return 0; }
  /// What the lookup returns, for the result notes.
  virtual std::string lookup_semantics() const = 0;
};

/// A table for n input pairs: kUnique at `load_factor` (runs_at_load must hold, else
/// std::invalid_argument); kMulti at each table's default (cuckoo 1.25 x unique keys, HashGraph
/// load 1, linear probing 0.5, the sorted multivalue array) and `load_factor` is ignored.
std::unique_ptr<TableUnderTest> make_table(TableKind kind, KeyMode mode, std::size_t n, double load_factor,
                                           cudaStream_t stream);

}  // namespace hashlab::compare
