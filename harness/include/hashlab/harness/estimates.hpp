// What a point costs, known before it runs: the device memory and the wall time the same point
// took in a committed reference run (results/reference/<gpu>/), scaled linearly in n from the
// nearest size measured there when the sizes differ. The runner skips a point whose memory does
// not fit before running it; `hashlab run --dry-run` prints each point's and the totals.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "hashlab/harness/experiment.hpp"

namespace hashlab::harness {

struct Estimate {
  std::uint64_t device_bytes = 0;  // the pool's peak while the point ran (inputs it holds included)
  double wall_s = 0;               // the point's wall time, everything included
  bool scaled = false;             // from another size of the same variant and parameter
};

class Estimates {
 public:
  /// Estimates read from `reference_dir` (a results folder with the wall_s and device_peak_bytes
  /// columns); an empty or missing folder gives none. For a run at the papers' sizes (`full`), the
  /// points its `full/` folder measured come from there, the others from the quick run's.
  explicit Estimates(std::string reference_dir, bool full = false) : dir_(std::move(reference_dir)), full_(full) {}

  /// The estimate of one point of `e`, if the reference run has its variant and parameter.
  std::optional<Estimate> find(const Experiment& e, const Point& p);

  const std::string& dir() const { return dir_; }

 private:
  using Key = std::tuple<std::string, std::string, std::string>;  // variant, param_name, param_value as written
  using Sizes = std::map<std::uint64_t, Estimate>;             // by n
  const std::map<Key, Sizes>& load(const Experiment& e);

  std::string dir_;
  bool full_ = false;
  std::map<std::string, std::map<Key, Sizes>> loaded_;  // by "paper/experiment"
};

/// Parses one CSV line (quoted fields with doubled quotes, as the runner writes them).
std::vector<std::string> split_csv_line(const std::string& line);

}  // namespace hashlab::harness
