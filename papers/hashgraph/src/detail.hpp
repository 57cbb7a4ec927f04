// Internal helpers shared by the build files (not part of the public API).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "hashlab/hashgraph/hashgraph.hpp"

namespace hashlab::hashgraph::detail {

/// Threads per block of V2's phase 3 (one block per bin).
constexpr int kPhase3Block = 256;

/// The largest number of vertices per bin whose counters fit in one block's shared memory on
/// the current device (opting in to the large shared-memory carve-out). Sets the kernel's
/// attribute on first use.
std::uint32_t phase3_max_shared_vertices();

}  // namespace hashlab::hashgraph::detail
