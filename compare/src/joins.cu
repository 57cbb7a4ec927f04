// The adapters of joins.hpp. The only kernel of compare/: the gather that turns HashGraph's join
// pairs (row in R, row in S) into the rows (key, R's value, S's value) every variant outputs.
#include <stdexcept>
#include <string>

#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/launch.cuh"
#include "hashlab/compare/joins.hpp"
#include "hashlab/hashgraph/hashgraph.hpp"
#include "hashlab/hashgraph/probe.hpp"

namespace hashlab::compare {
namespace {

struct NamedKind {
  JoinKind kind;
  const char* name;
};
constexpr NamedKind kNames[] = {{JoinKind::kBsp, "bsp"},
                                {JoinKind::kHashGraph, "hashgraph"},
                                {JoinKind::kHashJoin, "hash_join"},
                                {JoinKind::kSortJoin, "sort_join"}};

// Our adapter, not a paper's phase: one thread per pair, the key read from R (equal to S's).
__global__ void gather_join_rows(const reference::JoinPair* pairs, std::size_t count, const std::uint32_t* r_keys,
                                 const std::uint32_t* r_values, const std::uint32_t* s_values, std::uint32_t* key,
                                 std::uint32_t* value1, std::uint32_t* value2) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const reference::JoinPair p = pairs[i];
    key[i] = r_keys[p.r_index];
    value1[i] = r_values[p.r_index];
    value2[i] = s_values[p.s_index];
  }
}

class Bsp final : public JoinUnderTest {
 public:
  pkpk::JoinedRows run(const pkpk::TableView& r, const pkpk::TableView& s, cudaStream_t stream) override {
    return pkpk::bsp_join(r, s, stream);
  }
  bool sorted_output() const override { return true; }
};

class SortJoin final : public JoinUnderTest {
 public:
  pkpk::JoinedRows run(const pkpk::TableView& r, const pkpk::TableView& s, cudaStream_t stream) override {
    return pkpk::sort_join(r, s, stream);
  }
  bool sorted_output() const override { return true; }
};

class HashJoin final : public JoinUnderTest {
 public:
  pkpk::JoinedRows run(const pkpk::TableView& r, const pkpk::TableView& s, cudaStream_t stream) override {
    return pkpk::hash_join(r, s, stream);
  }
  bool sorted_output() const override { return false; }
};

/// HashGraph V2 over R at load 1 (range = |R|, section 5.3's default), probe-new with S (which
/// builds S's HashGraph over the same range and intersects the lists of each vertex), the pairs
/// written (Prober::join), then gathered. The tables are allocated in run(), from the
/// stream-ordered pool, like the working memory of the pk-pk module's joins.
class HashGraphJoin final : public JoinUnderTest {
 public:
  pkpk::JoinedRows run(const pkpk::TableView& r, const pkpk::TableView& s, cudaStream_t stream) override {
    pkpk::validate(r, s);
    hashgraph::HashGraph table(r.rows, hashgraph::hash_range_for(r.rows, 1.0), {hashgraph::Version::kV2}, stream);
    table.build(r.keys, r.rows, stream);
    hashgraph::Prober prober(table, hashgraph::ProbeMethod::kNew, s.rows, stream);
    const auto pairs = prober.join(s.keys, s.rows, stream);
    return gather_pairs(pairs.data(), pairs.size(), r, s, stream);
  }
  bool sorted_output() const override { return false; }
};

}  // namespace

pkpk::JoinedRows gather_pairs(const reference::JoinPair* pairs, std::size_t count, const pkpk::TableView& r,
                              const pkpk::TableView& s, cudaStream_t stream) {
  pkpk::JoinedRows out;
  out.size = count;
  out.key = DeviceBuffer<std::uint32_t>(count, stream);
  out.value1 = DeviceBuffer<std::uint32_t>(count, stream);
  out.value2 = DeviceBuffer<std::uint32_t>(count, stream);
  if (count == 0) return out;
  gather_join_rows<<<grid_for(count), kDefaultBlock, 0, stream>>>(pairs, count, r.keys, r.values, s.values,
                                                                  out.key.data(), out.value1.data(),
                                                                  out.value2.data());
  HASHLAB_CHECK_LAUNCH();
  return out;
}

const char* to_string(JoinKind kind) {
  for (const auto& k : kNames)
    if (k.kind == kind) return k.name;
  return "unknown";
}

JoinKind parse_join_kind(const std::string& name) {
  std::string choices;
  for (const auto& k : kNames) {
    if (name == k.name) return k.kind;
    choices += choices.empty() ? k.name : std::string(", ") + k.name;
  }
  throw std::invalid_argument("unknown join '" + name + "' (choices: " + choices + ")");
}

const std::vector<JoinKind>& all_join_kinds() {
  static const std::vector<JoinKind> kinds = {JoinKind::kBsp, JoinKind::kHashGraph, JoinKind::kHashJoin,
                                              JoinKind::kSortJoin};
  return kinds;
}

std::unique_ptr<JoinUnderTest> make_join(JoinKind kind, std::size_t r_rows, std::size_t s_rows, cudaStream_t) {
  if (r_rows == 0 || s_rows == 0)
    throw std::invalid_argument(std::string("compare join ") + to_string(kind) + ": tables of " +
                                std::to_string(r_rows) + " and " + std::to_string(s_rows) +
                                " rows (both need at least one)");
  switch (kind) {
    case JoinKind::kBsp: return std::make_unique<Bsp>();
    case JoinKind::kHashGraph: return std::make_unique<HashGraphJoin>();
    case JoinKind::kHashJoin: return std::make_unique<HashJoin>();
    case JoinKind::kSortJoin: return std::make_unique<SortJoin>();
  }
  throw std::invalid_argument("compare join: unknown kind");
}

}  // namespace hashlab::compare
