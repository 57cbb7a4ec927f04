// The adapters of groupby.hpp: each paper's group-by (and the shared baselines) behind
// GroupByUnderTest, on one key and one value column, sum.
#include <stdexcept>
#include <string>
#include <type_traits>

#include "hashlab/baselines/groupby.hpp"
#include "hashlab/compare/groupby.hpp"
#include "hashlab/ega/sp_ega.hpp"
#include "hashlab/rapids_groupby/groupby.hpp"
#include "hashlab/reference/cpu_baselines.hpp"

namespace hashlab::compare {
namespace {

using reference::Aggregation;
constexpr Aggregation kOp = Aggregation::kSum;

struct NamedKind {
  GroupByKind kind;
  const char* name;
};
constexpr NamedKind kNames[] = {{GroupByKind::kRapids, "rapids"},
                                {GroupByKind::kSpEga, "sp_ega"},
                                {GroupByKind::kLphga, "lphga"},
                                {GroupByKind::kSort, "sort"},
                                {GroupByKind::kCpu, "cpu"}};

/// RAPIDS report section 3 with its defaults: GPU triple sampling, table = 2.6 x the prediction,
/// relaunch at 75% fill. The values are read as int32 (the report's integers): the inputs stay
/// below 2^31 (kMaxGroupByValue), so the numbers are the same and the sums exact in int64.
class Rapids final : public GroupByUnderTest {
 public:
  explicit Rapids(const GroupByData& data) {
    input_.keys = data.keys;
    input_.key_columns = 1;
    input_.values = reinterpret_cast<const std::int32_t*>(data.values);  // same numbers, see above
    input_.value_columns = 1;
    input_.rows = data.rows;
    rapids::validate(input_, {kOp}, options_);
  }
  void run(cudaStream_t stream) override { out_ = groupby_.aggregate(input_, {kOp}, options_, stream); }
  reference::GroupByResult result(cudaStream_t stream) override { return out_.to_reference(stream); }
  std::vector<Extra> extras() const override {
    const auto& s = groupby_.stats();
    return {{"relaunches", static_cast<double>(s.relaunches), "count"},
            {"predicted_groups", s.predicted_cardinality, "groups"},
            {"table_slots", static_cast<double>(s.table_size), "slots"}};
  }

 private:
  rapids::GroupByInput<std::int32_t> input_;
  rapids::GroupByOptions options_;  // the report's defaults
  rapids::HashGroupBy groupby_;
  rapids::DeviceGroups out_;
};

/// SP-EGA or LPHGA on buffers of L = n items (EGA's premise: three buffers the input's size).
/// prepare() loads the input pairs into red, untimed, as the EGA module does: in the paper the
/// input already lies in red.
template <class Algorithm>
class Ega final : public GroupByUnderTest {
 public:
  Ega(const GroupByData& data, cudaStream_t stream) : data_(data), algorithm_(data.rows, stream) {}
  void prepare(cudaStream_t stream) override { algorithm_.load(data_.keys, data_.values, data_.rows, kOp, stream); }
  void run(cudaStream_t stream) override { groups_ = algorithm_.run(data_.rows, kOp, stream); }
  reference::GroupByResult result(cudaStream_t stream) override { return groups_.to_reference(kOp, stream); }
  std::size_t bytes() const override { return algorithm_.bytes(); }
  std::vector<Extra> extras() const override {
    std::vector<Extra> extra = {
        {"load_factor", static_cast<double>(groups_.count) / static_cast<double>(data_.rows), "groups/L"}};
    if constexpr (std::is_same_v<Algorithm, ega::SpEga>) {
      const auto& c = algorithm_.last_counts();
      extra.push_back({"phase1_hashed_pairs",
                       1.0 - static_cast<double>(c.unhashed_pairs) / static_cast<double>(data_.rows), "fraction"});
    }
    return extra;
  }

 private:
  GroupByData data_;
  Algorithm algorithm_;
  ega::Groups groups_;
};

/// common/'s sort-based group-by: CUB radix sort of (key, value), then reduce-by-key.
class Sort final : public GroupByUnderTest {
 public:
  explicit Sort(const GroupByData& data) : data_(data) {}
  void run(cudaStream_t stream) override { out_ = baseline::sort_groupby(data_.keys, data_.values, data_.rows, kOp, stream); }
  reference::GroupByResult result(cudaStream_t stream) override { return out_.to_reference(kOp, stream); }

 private:
  GroupByData data_;
  baseline::DeviceGroups out_;
};

/// common/'s multi-threaded CPU group-by on the host copies.
class Cpu final : public GroupByUnderTest {
 public:
  explicit Cpu(const GroupByData& data) : data_(data) {}
  void run(cudaStream_t) override { out_ = cpu::parallel_groupby(*data_.host_keys, *data_.host_values, kOp); }
  reference::GroupByResult result(cudaStream_t) override { return out_; }
  bool on_host() const override { return true; }
  std::vector<Extra> extras() const override {
    return {{"threads", static_cast<double>(cpu::default_threads()), "count"}};
  }

 private:
  GroupByData data_;
  reference::GroupByResult out_;
};

}  // namespace

const char* to_string(GroupByKind kind) {
  for (const auto& k : kNames)
    if (k.kind == kind) return k.name;
  return "unknown";
}

GroupByKind parse_groupby_kind(const std::string& name) {
  std::string choices;
  for (const auto& k : kNames) {
    if (name == k.name) return k.kind;
    choices += choices.empty() ? k.name : std::string(", ") + k.name;
  }
  throw std::invalid_argument("unknown group-by '" + name + "' (choices: " + choices + ")");
}

const std::vector<GroupByKind>& all_groupby_kinds() {
  static const std::vector<GroupByKind> kinds = {GroupByKind::kRapids, GroupByKind::kSpEga, GroupByKind::kLphga,
                                                 GroupByKind::kSort, GroupByKind::kCpu};
  return kinds;
}

std::unique_ptr<GroupByUnderTest> make_groupby(GroupByKind kind, const GroupByData& data, cudaStream_t stream) {
  const std::string who = std::string("compare group-by ") + to_string(kind) + ": ";
  if (data.rows == 0) throw std::invalid_argument(who + "needs at least one row");
  if (kind == GroupByKind::kCpu) {
    if (data.host_keys == nullptr || data.host_values == nullptr)
      throw std::invalid_argument(who + "needs the host copies of the columns");
    if (data.host_keys->size() != data.rows || data.host_values->size() != data.rows)
      throw std::invalid_argument(who + "host columns of " + std::to_string(data.host_keys->size()) + " and " +
                                  std::to_string(data.host_values->size()) + " rows, expected " +
                                  std::to_string(data.rows));
    return std::make_unique<Cpu>(data);
  }
  if (data.keys == nullptr || data.values == nullptr) throw std::invalid_argument(who + "needs the device columns");
  switch (kind) {
    case GroupByKind::kRapids: return std::make_unique<Rapids>(data);
    case GroupByKind::kSpEga: return std::make_unique<Ega<ega::SpEga>>(data, stream);
    case GroupByKind::kLphga: return std::make_unique<Ega<ega::Lphga>>(data, stream);
    case GroupByKind::kSort: return std::make_unique<Sort>(data);
    default: break;
  }
  throw std::invalid_argument(who + "unknown kind");
}

}  // namespace hashlab::compare
