// The exit status of every `hashlab` command, one convention for all (README.md, "Exit status"):
//
//   0  done: the command did what it was asked (and --verify, if asked, agreed)
//   1  it ran and failed: --verify found a wrong answer, a run's point FAILED, a table could not
//      be built at that load, or an unexpected error (a CUDA error, a write that failed)
//   2  refused before running: the command line, an option or an input file is wrong (the
//      message names the option, or the file and its row)
//   3  refused: this machine cannot run it: no CUDA GPU for a GPU algorithm, or too little host
//      or device memory for the data (the message says how much it needs and what there is)
#pragma once

#include <stdexcept>

namespace hashlab {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitMachine = 3;

/// The machine cannot run what was asked (no GPU, too little memory): exit status 3. The memory
/// exceptions (OutOfHostMemory, OutOfDeviceMemory, std::bad_alloc) are given the same status.
class MachineLimit : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace hashlab
