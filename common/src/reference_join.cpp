// CPU reference joins (see hashlab/reference/join.hpp): hash the build side into a map, probe
// with the other side, in input order.
#include "hashlab/reference/join.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "hashlab/common/flat_map.hpp"
#include "hashlab/common/radix_sort.hpp"
#include "hashlab/reference/cpu_baselines.hpp"

namespace hashlab::reference {
namespace {

/// Row indices are 32-bit in the results, so a table may hold at most 2^32 - 1 rows.
void check_indexable(const std::vector<std::uint32_t>& table, const char* name) {
  if (table.size() > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument(std::string("join: table ") + name + " has " + std::to_string(table.size()) +
                                " rows; row indices are 32-bit, so at most 2^32 - 1 rows are supported");
}

/// The rows of a table grouped by key, without one allocation per key: group_of maps a key to
/// its group, and rows[begin[g] .. begin[g + 1]) are the rows of group g, ascending.
struct RowsByKey {
  cpu::FlatMap<std::uint32_t, std::uint32_t> group_of;
  std::vector<std::size_t> begin;
  std::vector<std::uint32_t> rows;

  explicit RowsByKey(const std::vector<std::uint32_t>& keys) : group_of(keys.size()) {
    std::vector<std::uint32_t> group_of_row(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const auto [g, inserted] = group_of.try_emplace(keys[i], static_cast<std::uint32_t>(begin.size()));
      if (inserted) begin.push_back(0);
      group_of_row[i] = g;
      ++begin[g];  // counts for now
    }
    // Counts to start offsets (exclusive prefix sum), then place the rows in input order.
    std::size_t offset = 0;
    for (auto& b : begin) offset += std::exchange(b, offset);
    begin.push_back(offset);
    std::vector<std::size_t> next(begin.begin(), begin.end() - 1);
    rows.resize(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) rows[next[group_of_row[i]]++] = static_cast<std::uint32_t>(i);
  }
};

std::string repeated_key_message(std::uint32_t key, const char* table) {
  return "pkpk_join: key " + std::to_string(key) + " appears twice in " + table +
         " (a primary-key join needs unique keys in each table)";
}

}  // namespace

std::uint64_t inner_join_count(const std::vector<std::uint32_t>& r, const std::vector<std::uint32_t>& s) {
  cpu::FlatMap<std::uint32_t, std::uint64_t> rows_with_key(r.size());
  for (std::uint32_t key : r) ++rows_with_key.try_emplace(key, 0).first;
  std::uint64_t count = 0;
  for (std::uint32_t key : s)
    if (const std::uint64_t* rows = rows_with_key.find(key)) count += *rows;
  return count;
}

std::uint64_t sorted_join_count(const std::vector<std::uint32_t>& r, const std::vector<std::uint32_t>& s,
                                unsigned threads) {
  auto sorted_copy = [threads](std::vector<std::uint32_t> keys) {
    cpu::radix_sort(keys, [](std::uint32_t key) { return key; }, threads);
    return keys;
  };
  const std::vector<std::uint32_t> a = sorted_copy(r), b = sorted_copy(s);
  // A merge of the two sorted columns: each key contributes (its rows in r) x (its rows in s).
  std::uint64_t count = 0;
  for (std::size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    if (a[i] < b[j]) {
      ++i;
    } else if (b[j] < a[i]) {
      ++j;
    } else {
      const std::uint32_t key = a[i];
      std::uint64_t in_r = 0, in_s = 0;
      for (; i < a.size() && a[i] == key; ++i) ++in_r;
      for (; j < b.size() && b[j] == key; ++j) ++in_s;
      count += in_r * in_s;
    }
  }
  return count;
}

std::uint64_t oracle_join_count(const std::vector<std::uint32_t>& r, const std::vector<std::uint32_t>& s,
                                std::string* note) {
  const bool small = std::max(r.size(), s.size()) <= cpu::kOracleReferenceRows;
  if (note != nullptr) *note = small ? "" : kSortedJoinCountOracle;
  return small ? inner_join_count(r, s) : sorted_join_count(r, s);
}

std::vector<JoinPair> inner_join(const std::vector<std::uint32_t>& r, const std::vector<std::uint32_t>& s) {
  check_indexable(r, "R");
  check_indexable(s, "S");
  // Build on S and walk R in order: the pairs come out sorted by (r_index, s_index) as they are
  // produced, because each key's S rows are kept ascending.
  const RowsByKey s_rows(s);
  std::vector<JoinPair> pairs;
  for (std::size_t i = 0; i < r.size(); ++i) {
    const std::uint32_t* g = s_rows.group_of.find(r[i]);
    if (g == nullptr) continue;
    for (std::size_t k = s_rows.begin[*g]; k < s_rows.begin[*g + 1]; ++k)
      pairs.push_back({static_cast<std::uint32_t>(i), s_rows.rows[k]});
  }
  return pairs;
}

std::vector<PkPkRow> pkpk_join(const std::vector<std::uint32_t>& r, const std::vector<std::uint32_t>& s) {
  check_indexable(r, "R");
  check_indexable(s, "S");
  cpu::FlatMap<std::uint32_t, std::uint32_t> r_row_of(r.size());
  for (std::size_t i = 0; i < r.size(); ++i)
    if (!r_row_of.try_emplace(r[i], static_cast<std::uint32_t>(i)).second)
      throw std::invalid_argument(repeated_key_message(r[i], "R"));

  cpu::FlatMap<std::uint32_t, std::uint32_t> s_row_of(s.size());
  std::vector<PkPkRow> rows;
  for (std::size_t j = 0; j < s.size(); ++j) {
    if (!s_row_of.try_emplace(s[j], static_cast<std::uint32_t>(j)).second)
      throw std::invalid_argument(repeated_key_message(s[j], "S"));
    if (const std::uint32_t* i = r_row_of.find(s[j])) rows.push_back({s[j], *i, static_cast<std::uint32_t>(j)});
  }
  cpu::radix_sort(rows, [](const PkPkRow& row) { return row.key; });
  return rows;
}

}  // namespace hashlab::reference
