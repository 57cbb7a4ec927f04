// The adapters of join.hpp: the joins are the pk-pk module's and compare/'s (HashGraph).
#include "hashlab/owndata/join.hpp"

#include <algorithm>
#include <numeric>

#include "hashlab/common/memory.hpp"
#include "hashlab/common/radix_sort.hpp"
#include "hashlab/compare/joins.hpp"
#include "named.hpp"

namespace hashlab::owndata {
namespace {

constexpr detail::Named<JoinAlgo> kAlgos[] = {
    {JoinAlgo::kBsp, "bsp", "Dash's BSP-sort Pk-Pk join (steps 1-9)"},
    {JoinAlgo::kSort, "sort", "full-device radix-sort join (the pk-pk module's comparator)"},
    {JoinAlgo::kHash, "hash", "common/'s linear-probing hash join (Crystal's stand-in)"},
    {JoinAlgo::kHashGraph, "hashgraph", "HashGraph V2 on R, probe-new with S (Green et al. 3.4)"},
    {JoinAlgo::kCpu, "cpu", "common/'s multi-threaded CPU join"},
};

void check_table(const JoinTable& t, const char* which) {
  require_rows(t.keys.data.size(), t.keys.source, t.values.source, t.values.data.size());
  if (t.keys.data.empty()) throw InputError(t.keys.source + ": table " + which + " has no rows");
  if (t.keys.data.size() > pkpk::kMaxRowsPerTable)
    throw InputError(t.keys.source + ": " + std::to_string(t.keys.data.size()) + " rows; at most " +
                     std::to_string(pkpk::kMaxRowsPerTable) + " per table");
  std::uint32_t key;
  std::size_t a, b;
  if (find_repeat(t.keys.data, key, a, b))
    throw InputError(t.keys.source + ": key " + std::to_string(key) + " appears at rows " + std::to_string(a) +
                     " and " + std::to_string(b) + "; a Pk-Pk join needs unique keys in each table");
}

class DeviceJoin final : public JoinRun {
 public:
  DeviceJoin(JoinAlgo algo, const JoinInput& input, cudaStream_t stream) {
    r_keys_ = to_device(input.r.keys.data, stream);
    r_values_ = to_device(input.r.values.data, stream);
    s_keys_ = to_device(input.s.keys.data, stream);
    s_values_ = to_device(input.s.values.data, stream);
    r_ = {r_keys_.data(), r_values_.data(), r_keys_.size()};
    s_ = {s_keys_.data(), s_values_.data(), s_keys_.size()};
    const auto kind = algo == JoinAlgo::kBsp ? compare::JoinKind::kBsp
                      : algo == JoinAlgo::kSort ? compare::JoinKind::kSortJoin
                      : algo == JoinAlgo::kHash ? compare::JoinKind::kHashJoin
                                                : compare::JoinKind::kHashGraph;
    join_ = compare::make_join(kind, r_.rows, s_.rows, stream);
  }
  void run(cudaStream_t stream) override { rows_ = join_->run(r_, s_, stream); }
  std::vector<pkpk::JoinedRow> result(cudaStream_t stream) override {
    auto rows = rows_.to_host(stream);
    cpu::radix_sort(rows, [](const pkpk::JoinedRow& row) { return row.key; });  // keys are unique
    return rows;
  }
  std::vector<Stat> stats() const override {
    return {{"rows_out", static_cast<double>(rows_.size)}, {"output_sorted_by_key", join_->sorted_output() ? 1.0 : 0.0}};
  }

 private:
  DeviceBuffer<std::uint32_t> r_keys_, r_values_, s_keys_, s_values_;
  pkpk::TableView r_, s_;
  std::unique_ptr<compare::JoinUnderTest> join_;
  pkpk::JoinedRows rows_;
};

class CpuJoin final : public JoinRun {
 public:
  explicit CpuJoin(const JoinInput& input) : input_(input) {}
  void run(cudaStream_t) override {
    rows_ = pkpk::cpu_join(input_.r.keys.data, input_.r.values.data, input_.s.keys.data, input_.s.values.data);
  }
  std::vector<pkpk::JoinedRow> result(cudaStream_t) override {
    auto rows = rows_;
    cpu::radix_sort(rows, [](const pkpk::JoinedRow& row) { return row.key; });  // keys are unique
    return rows;
  }
  bool on_host() const override { return true; }
  std::vector<Stat> stats() const override { return {{"rows_out", static_cast<double>(rows_.size())}}; }

 private:
  const JoinInput& input_;
  std::vector<pkpk::JoinedRow> rows_;
};

}  // namespace

const char* to_string(JoinAlgo algo) { return detail::named(kAlgos, algo).name; }
const char* describe(JoinAlgo algo) { return detail::named(kAlgos, algo).description; }
JoinAlgo parse_join_algo(const std::string& name) { return detail::parse_named(kAlgos, name, "join algorithm"); }
const std::vector<JoinAlgo>& all_join_algos() {
  static const std::vector<JoinAlgo> algos = detail::all_of(kAlgos);
  return algos;
}

KeyColumn row_numbers(std::size_t rows, const std::string& name) {
  KeyColumn c{name, "(row numbers)", std::vector<std::uint32_t>(rows)};
  std::iota(c.data.begin(), c.data.end(), 0u);
  return c;
}

void check_join(JoinAlgo algo, const JoinInput& input) {
  check_table(input.r, "R");
  check_table(input.s, "S");
  if (algo == JoinAlgo::kBsp && input.r.keys.data.size() + input.s.keys.data.size() > pkpk::kMaxBspRows)
    throw InputError("--algo bsp sorts both tables together: at most " + std::to_string(pkpk::kMaxBspRows) + " rows");
  if (algo == JoinAlgo::kHash) {
    const auto& keys = input.r.keys.data;
    const auto it = std::find(keys.begin(), keys.end(), 0xffffffffu);
    if (it != keys.end())
      throw InputError(input.r.keys.source + ": row " + std::to_string(it - keys.begin()) +
                       " holds key 4294967295, the empty-slot marker of --algo hash's table (built on R)");
  }
}

std::unique_ptr<JoinRun> make_join(JoinAlgo algo, const JoinInput& input, cudaStream_t stream) {
  check_join(algo, input);
  if (algo == JoinAlgo::kCpu) return std::make_unique<CpuJoin>(input);
  return std::make_unique<DeviceJoin>(algo, input, stream);
}

std::vector<pkpk::JoinedRow> reference_join(const JoinInput& input) {
  check_table(input.r, "R");
  check_table(input.s, "S");
  return pkpk::reference_join(input.r.keys.data, input.r.values.data, input.s.keys.data, input.s.values.data);
}

std::vector<pkpk::JoinedRow> oracle_join(const JoinInput& input, std::string* note) {
  check_table(input.r, "R");
  check_table(input.s, "S");
  return pkpk::oracle_join(input.r.keys.data, input.r.values.data, input.s.keys.data, input.s.values.data, note);
}

std::string compare_rows(const std::vector<pkpk::JoinedRow>& expected, const std::vector<pkpk::JoinedRow>& actual) {
  if (expected.size() != actual.size())
    return std::to_string(actual.size()) + " rows, the reference has " + std::to_string(expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (!(expected[i] == actual[i]))
      return "row " + std::to_string(i) + ": (" + std::to_string(actual[i].key) + ", " +
             std::to_string(actual[i].value1) + ", " + std::to_string(actual[i].value2) + "), reference (" +
             std::to_string(expected[i].key) + ", " + std::to_string(expected[i].value1) + ", " +
             std::to_string(expected[i].value2) + ")";
  return "";
}

}  // namespace hashlab::owndata
