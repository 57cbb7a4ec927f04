// The group-bys of two papers and two shared baselines behind one interface, on one key column
// and one value column (uint32 values in [0, 2^31), so that RAPIDS's int32 path reads the same
// numbers), aggregation sum:
//
//   rapids  RAPIDS hash group-by (report section 3): GPU triple sampling, 2.6 x predicted
//           slots, relaunch at 75% fill
//   sp_ega  SP-EGA (EGA 4.1), three buffers of L = n items (the paper's premise)
//   lphga   LPHGA, EGA's linear-probing comparator, on the same three buffers
//   sort    common/'s sort-based group-by (CUB radix sort + reduce-by-key)
//   cpu     common/'s multi-threaded radix-partitioned CPU group-by (timed on the host)
//
//   auto g = make_groupby(GroupByKind::kSpEga, input, stream);
//   ctx.time_gpu([&](cudaStream_t s) { g->run(s); }, [&](cudaStream_t s) { g->prepare(s); });
//   reference::GroupByResult got = g->result(stream);
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hashlab/reference/groupby.hpp"

namespace hashlab::compare {

enum class GroupByKind { kRapids, kSpEga, kLphga, kSort, kCpu };

/// "rapids", "sp_ega", "lphga", "sort", "cpu".
const char* to_string(GroupByKind kind);
GroupByKind parse_groupby_kind(const std::string& name);
const std::vector<GroupByKind>& all_groupby_kinds();

/// The largest value the inputs may hold: RAPIDS reads the column as int32.
constexpr std::uint32_t kMaxGroupByValue = 0x7fffffffu;

/// One input, shared by every variant: device columns and their host copies (the CPU variant
/// reads the host copies; the others the device columns).
struct GroupByData {
  const std::uint32_t* keys = nullptr;
  const std::uint32_t* values = nullptr;
  std::size_t rows = 0;
  const std::vector<std::uint32_t>* host_keys = nullptr;
  const std::vector<std::uint32_t>* host_values = nullptr;
};

class GroupByUnderTest {
 public:
  virtual ~GroupByUnderTest() = default;
  /// Untimed, before every timed run (EGA: the input pairs into the red array).
  virtual void prepare(cudaStream_t) {}
  /// The group-by (timed). For the CPU variant the stream is unused and the work is on the host.
  virtual void run(cudaStream_t stream) = 0;
  /// The last run's groups in the references' form, sorted by key (synchronises).
  virtual reference::GroupByResult result(cudaStream_t stream) = 0;
  /// Whether run() works on the host (time it with time_host).
  virtual bool on_host() const { return false; }
  /// Device bytes the variant holds besides the input (buffers, table), 0 when allocated per run.
  virtual std::size_t bytes() const { return 0; }
  /// Variant-specific measurements of the last run: (name, value, unit).
  struct Extra {
    std::string name;
    double value;
    std::string unit;
  };
  virtual std::vector<Extra> extras() const { return {}; }
};

/// Throws std::invalid_argument for no rows, missing columns (device columns for the GPU
/// variants, host copies for the CPU), or rows beyond a variant's limits.
std::unique_ptr<GroupByUnderTest> make_groupby(GroupByKind kind, const GroupByData& data, cudaStream_t stream);

}  // namespace hashlab::compare
