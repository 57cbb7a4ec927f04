// CPU reference group-by (see hashlab/reference/groupby.hpp).
//
// The oracle: one pass over the rows in input order, a hash map from a key tuple to its group,
// and per group one accumulator per value column. Clarity first; the multi-threaded baseline in
// cpu_baselines.cpp is the fast one (and reproduces these results bit for bit).
#include "hashlab/reference/groupby.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <type_traits>

#include "hashlab/common/flat_map.hpp"
#include "hashlab/common/hash.hpp"
#include "hashlab/common/host_memory.hpp"
#include "hashlab/common/radix_sort.hpp"
#include "hashlab/common/threads.hpp"

namespace hashlab::reference {
namespace {

/// Integer sums wrap around like two's complement instead of overflowing into undefined
/// behaviour (only reachable with int64 inputs whose sum exceeds 2^63).
std::int64_t wrapping_add(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}

/// The rows of column-major key columns, as seen by the group map: a row stands for its key
/// tuple, so the map stores row indices and never copies a tuple.
struct KeyColumns {
  std::vector<const std::uint32_t*> columns;

  std::uint32_t at(std::size_t column, std::size_t row) const { return columns[column][row]; }
};

template <class Index>
struct RowHash {
  const KeyColumns* keys;
  std::uint64_t operator()(Index row) const {
    std::uint64_t h = 0;
    for (const std::uint32_t* column : keys->columns) h = hash::fmix64(h + column[row] + 0x9e3779b97f4a7c15ull);
    return h;
  }
};

template <class Index>
struct RowEqual {
  const KeyColumns* keys;
  bool operator()(Index a, Index b) const {
    for (const std::uint32_t* column : keys->columns)
      if (column[a] != column[b]) return false;
    return true;
  }
};

template <class T>
bool is_nan(T x) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(x);
  else return false;
}

/// One value column's running aggregates, one entry per group. Integer values accumulate in
/// int64 (sums exactly, minima and maxima as themselves), floating values in double; a count
/// needs no accumulator (the group's row count is kept once for all columns).
template <class V>
class Accumulator {
 public:
  using Acc = std::conditional_t<std::is_integral_v<V>, std::int64_t, double>;

  explicit Accumulator(Aggregation op) : op_(op) {}

  /// Room for `groups` groups.
  void reserve(std::size_t groups) { acc_.reserve(groups); }

  /// A new group whose first row holds `v`.
  void add_group(V v) {
    switch (op_) {
      case Aggregation::kMin:
      case Aggregation::kMax:
        acc_.push_back(static_cast<Acc>(v));
        break;
      case Aggregation::kSum:
      case Aggregation::kMean:
        acc_.push_back(Acc{0});
        update(acc_.size() - 1, v);
        break;
      case Aggregation::kCount:
        break;
    }
  }

  /// A later row of group g. Min and max skip NaN values (a group of NaNs only gets NaN), so that
  /// they do not depend on the order of the rows; on ties (-0.0 and +0.0) the earlier row wins.
  void update(std::size_t g, V v) {
    const Acc x = static_cast<Acc>(v);
    switch (op_) {
      case Aggregation::kSum:
      case Aggregation::kMean:
        if constexpr (std::is_integral_v<V>) acc_[g] = wrapping_add(acc_[g], x);
        else acc_[g] += x;
        break;
      case Aggregation::kMin:
        if (x < acc_[g] || is_nan(acc_[g])) acc_[g] = x;
        break;
      case Aggregation::kMax:
        if (acc_[g] < x || is_nan(acc_[g])) acc_[g] = x;
        break;
      case Aggregation::kCount:
        break;
    }
  }

  AggregateColumn finish(const std::vector<std::int64_t>& rows_of_group) const {
    AggregateColumn out;
    out.op = op_;
    const std::size_t groups = rows_of_group.size();
    if (op_ == Aggregation::kCount) {
      out.exact = rows_of_group;
    } else if (op_ == Aggregation::kMean) {
      out.real.resize(groups);
      for (std::size_t g = 0; g < groups; ++g)
        out.real[g] = static_cast<double>(acc_[g]) / static_cast<double>(rows_of_group[g]);
    } else if constexpr (std::is_integral_v<V>) {
      out.exact = acc_;
    } else {
      out.real = acc_;
    }
    return out;
  }

 private:
  Aggregation op_;
  std::vector<Acc> acc_;
};

/// Index: the type of row and group numbers (32 bits while they fit, which halves the map).
template <class V, class Index>
GroupByResult groupby_columns(const KeyColumns& keys, std::size_t n, const std::vector<const V*>& values,
                              const std::vector<Aggregation>& ops) {
  // The map holds one entry per group: its first row (standing for the tuple) -> group id. The
  // number of groups is unknown; the map starts small and grows.
  cpu::FlatMap<Index, Index, RowHash<Index>, RowEqual<Index>> group_of(0, RowHash<Index>{&keys},
                                                                         RowEqual<Index>{&keys});
  std::vector<Index> first_row;           // per group
  std::vector<std::int64_t> rows_of_group;  // per group
  std::vector<Accumulator<V>> acc;
  for (Aggregation op : ops) acc.emplace_back(op);

  for (std::size_t row = 0; row < n; ++row) {
    const auto [g, inserted] = group_of.try_emplace(static_cast<Index>(row), static_cast<Index>(first_row.size()));
    if (inserted) {
      first_row.push_back(row);
      rows_of_group.push_back(1);
      for (std::size_t v = 0; v < values.size(); ++v) acc[v].add_group(values[v][row]);
    } else {
      ++rows_of_group[g];
      for (std::size_t v = 0; v < values.size(); ++v) acc[v].update(g, values[v][row]);
    }
  }

  GroupByResult result;
  result.keys.resize(keys.columns.size());
  for (std::size_t c = 0; c < keys.columns.size(); ++c) {
    result.keys[c].reserve(first_row.size());
    for (Index row : first_row) result.keys[c].push_back(keys.at(c, row));
  }
  for (const auto& a : acc) result.aggregates.push_back(a.finish(rows_of_group));
  result.sort_by_key();
  return result;
}

std::string format_tuple(const GroupByResult& r, std::size_t g) {
  std::ostringstream out;
  out << '(';
  for (std::size_t c = 0; c < r.keys.size(); ++c) out << (c ? ", " : "") << r.keys[c][g];
  out << ')';
  return out.str();
}

std::string format_real(double x) {
  std::ostringstream out;
  out.precision(std::numeric_limits<double>::max_digits10);
  out << x;
  return out.str();
}

bool reals_agree(double expected, double actual, double rel_tol) {
  if (expected == actual) return true;
  if (std::isnan(expected) || std::isnan(actual)) return std::isnan(expected) && std::isnan(actual);
  return std::fabs(expected - actual) <= rel_tol * std::max(std::fabs(expected), std::fabs(actual));
}

/// A column's values as doubles, whichever of exact / real holds them.
double value_at(const AggregateColumn& a, std::size_t g) {
  return a.is_exact() ? static_cast<double>(a.exact[g]) : a.real[g];
}

std::size_t column_size(const AggregateColumn& a) { return a.is_exact() ? a.exact.size() : a.real.size(); }

template <class V>
GroupByResult groupby_columns(const KeyColumns& keys, std::size_t n, const std::vector<const V*>& values,
                              const std::vector<Aggregation>& ops) {
  if (n <= std::numeric_limits<std::uint32_t>::max()) return groupby_columns<V, std::uint32_t>(keys, n, values, ops);
  return groupby_columns<V, std::uint64_t>(keys, n, values, ops);
}

}  // namespace

const char* to_string(Aggregation op) {
  switch (op) {
    case Aggregation::kSum: return "sum";
    case Aggregation::kMin: return "min";
    case Aggregation::kMax: return "max";
    case Aggregation::kCount: return "count";
    case Aggregation::kMean: return "mean";
  }
  return "?";
}

Aggregation parse_aggregation(const std::string& name) {
  for (auto op : {Aggregation::kSum, Aggregation::kMin, Aggregation::kMax, Aggregation::kCount, Aggregation::kMean})
    if (name == to_string(op)) return op;
  throw std::invalid_argument("unknown reduction '" + name + "' (expected sum, min, max, count or mean)");
}

namespace {

/// sort_by_key of the commonest result, one key column and one aggregate column of 8-byte values
/// (what the GPU group-bys return): (key, value) records radix-sorted by the key, with no
/// permutation to gather through afterwards. False when the result has another shape.
bool sort_one_key_one_column(GroupByResult& r, unsigned threads) {
  const std::size_t n = r.groups();
  if (r.keys.size() != 1 || r.aggregates.size() != 1) return false;
  AggregateColumn& a = r.aggregates[0];
  const bool exact = a.exact.size() == n && a.real.empty();
  const bool real = a.real.size() == n && a.exact.empty();
  if (!exact && !real) return false;
  // 12 bytes, not 16: the sort moves each record four times, and without the padding it took 0.9 s
  // instead of 1.5 s for 6 x 10^7 records on the CPU machine. (Its members are only read and written
  // by value, never through a pointer, so their alignment of 4 is safe.)
#pragma pack(push, 4)
  struct Record {
    std::uint32_t key;
    std::uint64_t bits;  // the value's bytes, int64 or double alike
  };
#pragma pack(pop)
  static_assert(sizeof(Record) == 12 && sizeof(std::int64_t) == 8 && sizeof(double) == 8);
  std::uint32_t* keys = r.keys[0].data();
  auto* values = exact ? static_cast<void*>(a.exact.data()) : static_cast<void*>(a.real.data());
  std::vector<Record> records = cpu::zeroed_vector<Record>(n);
  cpu::parallel_for(n, threads, [&](std::size_t g) {
    std::uint64_t bits;
    std::memcpy(&bits, static_cast<char*>(values) + 8 * g, 8);
    records[g] = {keys[g], bits};
  });
  cpu::radix_sort(records, [](const Record& record) { return record.key; }, threads);
  cpu::parallel_for(n, threads, [&](std::size_t g) {
    const std::uint64_t bits = records[g].bits;
    keys[g] = records[g].key;
    std::memcpy(static_cast<char*>(values) + 8 * g, &bits, 8);
  });
  return true;
}

/// Rows 0..n-1 in the order of their key tuples (keys[c][row], every column n long), as words
/// keys[0][row] << 32 | low, radix-sorted one key column at a time from the last: each pass is
/// stable, so it keeps the order of the columns after it, and equal tuples stay in row order.
/// `low(row)` is the low word of the first pass: the row itself where later passes read it (several
/// key columns), or any 32 bits to carry along with one key column.
template <class Low>
std::vector<std::uint64_t> sort_rows_by_key_tuple(const std::vector<const std::uint32_t*>& keys, std::size_t n,
                                                  unsigned threads, Low low) {
  std::vector<std::uint64_t> words = cpu::zeroed_vector<std::uint64_t>(n);
  for (std::size_t c = keys.size(); c-- > 0;) {
    const std::uint32_t* column = keys[c];
    const bool first_pass = c + 1 == keys.size();
    cpu::parallel_for(n, threads, [&](std::size_t i) {
      const std::uint64_t row = first_pass ? i : static_cast<std::uint32_t>(words[i]);
      words[i] = std::uint64_t{column[row]} << 32 | (first_pass ? low(i) : row);
    });
    cpu::radix_sort(words, [](std::uint64_t word) { return static_cast<std::uint32_t>(word >> 32); }, threads);
  }
  return words;
}

/// column[index_of(i)] for i in [0, n), gathered on `threads` threads into a new vector (its pages
/// faulted in on all cores): a loop that only gathers overlaps its cache misses.
template <class T, class IndexOf>
std::vector<T> gathered(const T* column, std::size_t n, IndexOf index_of, unsigned threads) {
  std::vector<T> out = cpu::zeroed_vector<T>(n);
  cpu::parallel_for(n, threads, [&](std::size_t i) { out[i] = column[index_of(i)]; });
  return out;
}

template <class T>
std::vector<const T*> data_of(const std::vector<std::vector<T>>& columns) {
  std::vector<const T*> out;
  for (const auto& column : columns) out.push_back(column.data());
  return out;
}

}  // namespace

void GroupByResult::append(const GroupByResult& other) {
  if (other.keys.size() != keys.size() || other.aggregates.size() != aggregates.size())
    throw std::invalid_argument("GroupByResult::append: " + std::to_string(other.keys.size()) + " key columns and " +
                                std::to_string(other.aggregates.size()) + " aggregates onto " +
                                std::to_string(keys.size()) + " and " + std::to_string(aggregates.size()));
  for (std::size_t c = 0; c < keys.size(); ++c) keys[c].insert(keys[c].end(), other.keys[c].begin(), other.keys[c].end());
  for (std::size_t a = 0; a < aggregates.size(); ++a) {
    auto& to = aggregates[a];
    const auto& from = other.aggregates[a];
    to.exact.insert(to.exact.end(), from.exact.begin(), from.exact.end());
    to.real.insert(to.real.end(), from.real.begin(), from.real.end());
  }
}

void GroupByResult::sort_by_key() {
  // A result in key order already (a sort-based group-by's) is left as it is: the
  // parallel scan costs a fraction of the sort, which would leave it unchanged (it is stable).
  if (sorted_by_key()) return;
  const std::size_t n = groups();
  const unsigned threads = cpu::threads_for_items(n);
  if (sort_one_key_one_column(*this, threads)) return;
  std::vector<std::size_t> order(n);
  if (n <= std::numeric_limits<std::uint32_t>::max()) {
    for (const auto& column : keys)
      if (column.size() != n) return;  // a malformed result is left for compare() to report
    // Equal key tuples stay in group order (the order std::sort below gives).
    const auto sorted = sort_rows_by_key_tuple(data_of(keys), n, threads,
                                               [](std::size_t g) { return static_cast<std::uint32_t>(g); });
    cpu::parallel_for(n, threads, [&](std::size_t g) { order[g] = static_cast<std::uint32_t>(sorted[g]); });
  } else {
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      for (const auto& column : keys)
        if (column[a] != column[b]) return column[a] < column[b];
      return a < b;
    });
  }
  auto permute = [&](auto& column) {
    if (column.size() != n) return;  // a malformed column is left for compare() to report
    column = gathered(column.data(), n, [&](std::size_t g) { return order[g]; }, threads);
  };
  for (auto& column : keys) permute(column);
  for (auto& a : aggregates) {
    permute(a.exact);
    permute(a.real);
  }
}

bool GroupByResult::sorted_by_key() const {
  const std::size_t n = groups();
  for (const auto& column : keys)
    if (column.size() != n) return false;
  auto before = [&](std::size_t a, std::size_t b) {  // key tuple a < key tuple b
    for (const auto& column : keys)
      if (column[a] != column[b]) return column[a] < column[b];
    return false;
  };
  return cpu::first_index_where(n, [&](std::size_t g) { return g + 1 < n && before(g + 1, g); }) == n;
}

namespace {

// The row count of a column-major group-by input, after checking its shape (`who` names the caller
// in the errors).
template <class V>
std::size_t checked_rows(const char* who, const std::vector<std::vector<std::uint32_t>>& key_columns,
                         const std::vector<std::vector<V>>& value_columns, const std::vector<Aggregation>& ops) {
  const std::string at = std::string(who) + ": ";
  if (key_columns.empty()) throw std::invalid_argument(at + "needs at least one key column");
  const std::size_t n = key_columns.front().size();
  for (std::size_t c = 1; c < key_columns.size(); ++c)
    if (key_columns[c].size() != n)
      throw std::invalid_argument(at + "key column " + std::to_string(c) + " has " +
                                  std::to_string(key_columns[c].size()) + " rows but key column 0 has " +
                                  std::to_string(n));
  if (value_columns.size() != ops.size())
    throw std::invalid_argument(at + std::to_string(value_columns.size()) + " value columns but " +
                                std::to_string(ops.size()) + " aggregations (one per value column)");
  for (std::size_t v = 0; v < value_columns.size(); ++v)
    if (value_columns[v].size() != n)
      throw std::invalid_argument(at + "value column " + std::to_string(v) + " has " +
                                  std::to_string(value_columns[v].size()) + " rows but the key columns have " +
                                  std::to_string(n));
  return n;
}

}  // namespace

template <class V>
GroupByResult groupby(const std::vector<std::vector<std::uint32_t>>& key_columns,
                      const std::vector<std::vector<V>>& value_columns, const std::vector<Aggregation>& ops) {
  const std::size_t n = checked_rows("groupby", key_columns, value_columns, ops);
  return groupby_columns(KeyColumns{data_of(key_columns)}, n, data_of(value_columns), ops);
}

template <class V>
GroupByResult groupby(const std::vector<std::uint32_t>& keys, const std::vector<V>& values, Aggregation op) {
  if (keys.size() != values.size())
    throw std::invalid_argument("groupby: " + std::to_string(keys.size()) + " keys but " +
                                std::to_string(values.size()) + " values");
  return groupby_columns(KeyColumns{{keys.data()}}, keys.size(), std::vector<const V*>{values.data()}, {op});
}

namespace {

// A 32-bit value's bits and back (V of another size never takes that path: zero).
template <class V>
std::uint32_t bits_of(V value) {
  std::uint32_t bits = 0;
  if constexpr (sizeof(V) == sizeof bits) std::memcpy(&bits, &value, sizeof bits);
  return bits;
}
template <class V>
V from_bits(std::uint32_t bits) {
  V value{};
  if constexpr (sizeof(V) == sizeof bits) std::memcpy(&value, &bits, sizeof bits);
  return value;
}

// sorted_groupby's work on raw columns of n rows: the rows in key-tuple order (equal tuples in input
// order: sort_rows_by_key_tuple); then thread t folds the groups that
// start in its chunk of the sorted rows, each value column with the reference's accumulator in
// input order; the parts are copied into place on all threads.
template <class V>
GroupByResult sorted_groupby_columns(const std::vector<const std::uint32_t*>& keys, const std::vector<const V*>& values,
                                     const std::vector<Aggregation>& ops, std::size_t n, unsigned threads) {
  if (n > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("sorted_groupby: " + std::to_string(n) + " rows; at most 2^32 - 1");
  if (threads == 0) threads = cpu::threads_for_items(n);
  // One key column and one 32-bit value column (the check of every GPU group-by): (key, value)
  // words instead, sorted alike, so that the fold reads the values in order instead of gathering
  // them by row (a cache miss each).
  const bool packed = keys.size() == 1 && values.size() == 1 && sizeof(V) == sizeof(std::uint32_t);
  const auto sorted = sort_rows_by_key_tuple(keys, n, threads, [&](std::size_t row) -> std::uint32_t {
    return packed ? bits_of(values[0][row]) : static_cast<std::uint32_t>(row);
  });
  // Otherwise the value columns and the key columns after the first are gathered into sorted order
  // first, a column at a time on all cores: a loop that only gathers overlaps its cache misses,
  // where the fold took them one after another (on the CPU machine, 5 x 10^7 rows of 2 keys and 3
  // values: 4.9 -> 2.3 s at 10^4 groups, 8.6 -> 5.4 s at 2.9 x 10^7 groups). The gathered copies
  // hold one more word per row and column while the group-by runs.
  auto row_at = [&](std::size_t i) { return static_cast<std::uint32_t>(sorted[i]); };
  auto gather = [&](const auto* column) { return gathered(column, n, row_at, threads); };
  std::vector<std::vector<V>> sorted_values;
  std::vector<std::vector<std::uint32_t>> sorted_keys(keys.size());  // [0] stays empty: it is in `sorted`
  if (!packed) {
    for (const V* column : values) sorted_values.push_back(gather(column));
    for (std::size_t c = 1; c < keys.size(); ++c) sorted_keys[c] = gather(keys[c]);
  }
  auto value_at = [&](std::size_t i, std::size_t v) {
    return packed ? from_bits<V>(static_cast<std::uint32_t>(sorted[i])) : sorted_values[v][i];
  };
  auto starts_group = [&](std::size_t i) {  // sorted row i has another key tuple than row i - 1
    if (i == 0 || sorted[i] >> 32 != sorted[i - 1] >> 32) return true;
    for (std::size_t c = 1; c < keys.size(); ++c)
      if (sorted_keys[c][i] != sorted_keys[c][i - 1]) return true;
    return false;
  };
  auto group_start = [&](std::size_t i) {  // the first sorted row at or after i that starts a group
    while (i < n && !starts_group(i)) ++i;
    return i;
  };
  std::vector<GroupByResult> parts(threads);
  cpu::run_threads(threads, [&](unsigned t) {
    const std::size_t begin = group_start(cpu::chunk_begin(t, threads, n));
    const std::size_t end = group_start(cpu::chunk_begin(t + 1, threads, n));
    std::vector<std::vector<std::uint32_t>> part_keys(keys.size());
    std::vector<std::int64_t> rows_of_group;
    std::vector<Accumulator<V>> acc(ops.begin(), ops.end());
    // Room for as many groups as the part has rows: address space only until written, and the
    // vectors never grow by copying (at 10^8 rows the copies faulted in a second set of pages).
    const std::size_t most = end > begin ? end - begin : 0;
    for (auto& column : part_keys) column.reserve(most);
    rows_of_group.reserve(most);
    for (auto& a : acc) a.reserve(most);
    for (std::size_t i = begin; i < end; ++i) {
      if (i == begin || starts_group(i)) {
        part_keys[0].push_back(static_cast<std::uint32_t>(sorted[i] >> 32));
        for (std::size_t c = 1; c < keys.size(); ++c) part_keys[c].push_back(sorted_keys[c][i]);
        rows_of_group.push_back(1);
        for (std::size_t v = 0; v < values.size(); ++v) acc[v].add_group(value_at(i, v));
      } else {
        ++rows_of_group.back();
        for (std::size_t v = 0; v < values.size(); ++v) acc[v].update(rows_of_group.size() - 1, value_at(i, v));
      }
    }
    parts[t].keys = std::move(part_keys);
    for (const auto& a : acc) parts[t].aggregates.push_back(a.finish(rows_of_group));
  });
  // Each part's groups at its offset: the parts follow each other in key order.
  std::vector<std::size_t> offset(threads + 1, 0);
  for (unsigned t = 0; t < threads; ++t) offset[t + 1] = offset[t] + parts[t].groups();
  GroupByResult result;
  for (std::size_t c = 0; c < keys.size(); ++c)
    result.keys.push_back(cpu::zeroed_vector<std::uint32_t>(offset[threads]));
  for (Aggregation op : ops) {  // exact or real as Accumulator::finish makes them
    AggregateColumn column;
    column.op = op;
    const bool exact = op == Aggregation::kCount || (op != Aggregation::kMean && std::is_integral_v<V>);
    if (exact) column.exact = cpu::zeroed_vector<std::int64_t>(offset[threads]);
    else column.real = cpu::zeroed_vector<double>(offset[threads]);
    result.aggregates.push_back(std::move(column));
  }
  cpu::run_threads(threads, [&](unsigned t) {
    auto place = [&](const auto& from, auto& to) { std::copy(from.begin(), from.end(), to.begin() + offset[t]); };
    for (std::size_t c = 0; c < keys.size(); ++c) place(parts[t].keys[c], result.keys[c]);
    for (std::size_t v = 0; v < ops.size(); ++v) {
      place(parts[t].aggregates[v].exact, result.aggregates[v].exact);
      place(parts[t].aggregates[v].real, result.aggregates[v].real);
    }
  });
  return result;
}

}  // namespace

template <class V>
GroupByResult sorted_groupby(const std::vector<std::uint32_t>& keys, const std::vector<V>& values, Aggregation op,
                             unsigned threads) {
  if (values.size() != keys.size())
    throw std::invalid_argument("sorted_groupby: " + std::to_string(keys.size()) + " keys but " +
                                std::to_string(values.size()) + " values");
  return sorted_groupby_columns<V>({keys.data()}, {values.data()}, {op}, keys.size(), threads);
}

template <class V>
GroupByResult sorted_groupby(const std::vector<std::vector<std::uint32_t>>& key_columns,
                             const std::vector<std::vector<V>>& value_columns, const std::vector<Aggregation>& ops,
                             unsigned threads) {
  const std::size_t n = checked_rows("sorted_groupby", key_columns, value_columns, ops);
  return sorted_groupby_columns(data_of(key_columns), data_of(value_columns), ops, n, threads);
}

std::string compare(const GroupByResult& expected_in, const GroupByResult& actual_in, double rel_tol) {
  // Each side in key order: itself when it is already (a reference usually is), else a sorted copy.
  std::optional<GroupByResult> sorted_expected, sorted_actual;
  auto in_key_order = [](const GroupByResult& r, std::optional<GroupByResult>& copy) -> const GroupByResult& {
    if (r.sorted_by_key()) return r;
    copy = r;
    copy->sort_by_key();
    return *copy;
  };
  const GroupByResult& expected = in_key_order(expected_in, sorted_expected);
  const GroupByResult& actual = in_key_order(actual_in, sorted_actual);
  std::ostringstream out;

  if (expected.keys.size() != actual.keys.size()) {
    out << "key column count differs: expected " << expected.keys.size() << " got " << actual.keys.size();
    return out.str();
  }
  if (expected.aggregates.size() != actual.aggregates.size()) {
    out << "aggregate count differs: expected " << expected.aggregates.size() << " got "
        << actual.aggregates.size();
    return out.str();
  }
  for (const GroupByResult* r : {&expected, &actual}) {
    const char* which = r == &expected ? "expected" : "actual";
    for (std::size_t c = 0; c < r->keys.size(); ++c)
      if (r->keys[c].size() != r->groups()) {
        out << which << " result is malformed: key column " << c << " has " << r->keys[c].size()
            << " entries but key column 0 has " << r->groups();
        return out.str();
      }
    for (std::size_t v = 0; v < r->aggregates.size(); ++v)
      if (column_size(r->aggregates[v]) != r->groups()) {
        out << which << " result is malformed: aggregate " << v << " has " << column_size(r->aggregates[v])
            << " entries for " << r->groups() << " groups";
        return out.str();
      }
  }
  if (expected.groups() != actual.groups()) {
    out << "group count differs: expected " << expected.groups() << " got " << actual.groups();
    return out.str();
  }
  for (std::size_t v = 0; v < expected.aggregates.size(); ++v)
    if (expected.aggregates[v].op != actual.aggregates[v].op) {
      out << "aggregate " << v << " differs in kind: expected " << to_string(expected.aggregates[v].op)
          << " got " << to_string(actual.aggregates[v].op);
      return out.str();
    }

  // The first group that differs (found on all cores), then what differs there.
  auto aggregate_differs = [&](std::size_t v, std::size_t g) {
    const AggregateColumn& e = expected.aggregates[v];
    const AggregateColumn& a = actual.aggregates[v];
    if (e.is_exact() && a.is_exact()) return e.exact[g] != a.exact[g];
    return !reals_agree(value_at(e, g), value_at(a, g), rel_tol);
  };
  auto key_differs = [&](std::size_t g) {
    for (std::size_t c = 0; c < expected.keys.size(); ++c)
      if (expected.keys[c][g] != actual.keys[c][g]) return true;
    return false;
  };
  const std::size_t g = cpu::first_index_where(expected.groups(), [&](std::size_t i) {
    if (key_differs(i)) return true;
    for (std::size_t v = 0; v < expected.aggregates.size(); ++v)
      if (aggregate_differs(v, i)) return true;
    return false;
  });
  if (g == expected.groups()) return "";
  if (key_differs(g)) {
    out << "key tuple differs at group " << g << ": expected " << format_tuple(expected, g) << " got "
        << format_tuple(actual, g);
    return out.str();
  }
  for (std::size_t v = 0; v < expected.aggregates.size(); ++v) {
    if (!aggregate_differs(v, g)) continue;
    const AggregateColumn& e = expected.aggregates[v];
    const AggregateColumn& a = actual.aggregates[v];
    out << "aggregate " << v << " (" << to_string(e.op) << ") of key " << format_tuple(expected, g);
    if (e.is_exact() && a.is_exact()) out << " expected " << e.exact[g] << " got " << a.exact[g];
    else out << " expected " << format_real(value_at(e, g)) << " got " << format_real(value_at(a, g));
    break;
  }
  return out.str();
}

template GroupByResult groupby<std::int32_t>(const std::vector<std::vector<std::uint32_t>>&,
                                             const std::vector<std::vector<std::int32_t>>&,
                                             const std::vector<Aggregation>&);
template GroupByResult groupby<std::uint32_t>(const std::vector<std::vector<std::uint32_t>>&,
                                              const std::vector<std::vector<std::uint32_t>>&,
                                              const std::vector<Aggregation>&);
template GroupByResult groupby<std::int64_t>(const std::vector<std::vector<std::uint32_t>>&,
                                             const std::vector<std::vector<std::int64_t>>&,
                                             const std::vector<Aggregation>&);
template GroupByResult groupby<float>(const std::vector<std::vector<std::uint32_t>>&,
                                      const std::vector<std::vector<float>>&, const std::vector<Aggregation>&);
template GroupByResult groupby<double>(const std::vector<std::vector<std::uint32_t>>&,
                                       const std::vector<std::vector<double>>&, const std::vector<Aggregation>&);

template GroupByResult groupby<std::int32_t>(const std::vector<std::uint32_t>&, const std::vector<std::int32_t>&,
                                             Aggregation);
template GroupByResult groupby<std::uint32_t>(const std::vector<std::uint32_t>&, const std::vector<std::uint32_t>&,
                                              Aggregation);
template GroupByResult groupby<std::int64_t>(const std::vector<std::uint32_t>&, const std::vector<std::int64_t>&,
                                             Aggregation);
template GroupByResult groupby<float>(const std::vector<std::uint32_t>&, const std::vector<float>&, Aggregation);
template GroupByResult groupby<double>(const std::vector<std::uint32_t>&, const std::vector<double>&, Aggregation);

template GroupByResult sorted_groupby<std::int32_t>(const std::vector<std::uint32_t>&, const std::vector<std::int32_t>&,
                                                   Aggregation, unsigned);
template GroupByResult sorted_groupby<std::uint32_t>(const std::vector<std::uint32_t>&,
                                                    const std::vector<std::uint32_t>&, Aggregation, unsigned);
template GroupByResult sorted_groupby<std::int64_t>(const std::vector<std::uint32_t>&, const std::vector<std::int64_t>&,
                                                   Aggregation, unsigned);
template GroupByResult sorted_groupby<float>(const std::vector<std::uint32_t>&, const std::vector<float>&, Aggregation,
                                             unsigned);
template GroupByResult sorted_groupby<double>(const std::vector<std::uint32_t>&, const std::vector<double>&,
                                              Aggregation, unsigned);

template GroupByResult sorted_groupby<std::int32_t>(const std::vector<std::vector<std::uint32_t>>&,
                                             const std::vector<std::vector<std::int32_t>>&, const std::vector<Aggregation>&,
                                             unsigned);
template GroupByResult sorted_groupby<std::uint32_t>(const std::vector<std::vector<std::uint32_t>>&,
                                             const std::vector<std::vector<std::uint32_t>>&, const std::vector<Aggregation>&,
                                             unsigned);
template GroupByResult sorted_groupby<std::int64_t>(const std::vector<std::vector<std::uint32_t>>&,
                                             const std::vector<std::vector<std::int64_t>>&, const std::vector<Aggregation>&,
                                             unsigned);
template GroupByResult sorted_groupby<float>(const std::vector<std::vector<std::uint32_t>>&,
                                             const std::vector<std::vector<float>>&, const std::vector<Aggregation>&,
                                             unsigned);
template GroupByResult sorted_groupby<double>(const std::vector<std::vector<std::uint32_t>>&,
                                             const std::vector<std::vector<double>>&, const std::vector<Aggregation>&,
                                             unsigned);

}  // namespace hashlab::reference
