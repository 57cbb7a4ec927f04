// Running registered experiments: progress, timing, verification verdicts and result files.
#pragma once

#include <string>
#include <vector>

#include "hashlab/harness/experiment.hpp"

namespace hashlab::harness {

/// The outcome of `run_experiments`.
struct RunSummary {
  int points = 0;
  int failed = 0;                      // points that failed verification or threw
  int skipped = 0;                     // points that do not fit this machine's memory, or threw SkipPoint
  int skipped_experiments = 0;         // needed a GPU that is not there
  int kept_experiments = 0;            // --resume: done by an earlier run of the same settings
  std::vector<std::string> failures;   // "paper/experiment point: why"
  std::vector<std::string> skips;      // "paper/experiment point: why" (the memory it needed, or the SkipPoint)
};

/// Runs every point of every experiment in order; writes results/<paper>/<experiment>.csv and
/// .json under options.out_dir; prints one progress line per point (with elapsed time and ETA)
/// to stdout. Experiments that need a GPU are skipped, with a message, when there is none. A
/// point whose device or pinned host allocation does not fit is `skipped` (status column), with
/// the memory it asked for and what was free: an outcome of this machine, not a failure. So is a
/// point that throws SkipPoint (its input is not on this machine), with the reason it gives.
RunSummary run_experiments(const std::vector<const Experiment*>& experiments, const RunOptions& options);

/// The git revision the binary was built from ("unknown" outside a git checkout).
const std::string& git_sha();

}  // namespace hashlab::harness
