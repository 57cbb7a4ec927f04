// The all-to-all limit: how fast a group's servers exchange a given number of bytes each, the
// yardstick of the joins' all-to-all phase (`hashlab probe` on a host with several GPUs, and the
// gpu_servers' `phases` experiment beside each join).
#pragma once

#include <cstdint>
#include <vector>

#include "hashlab/servers/group.hpp"

namespace hashlab::servers {

struct AllToAllTiming {
  int servers = 0;
  std::uint64_t bytes_per_server = 0;  // what each server holds before the exchange
  std::uint64_t bytes_to_others = 0;   // what each server sends to the other servers: bytes * (p - 1) / p
  std::vector<double> ms;              // per repetition: the slowest server's time
  double median_ms = 0;
  /// bytes_to_others / median time, in GB/s: each server's rate to the others (the figure the
  /// issue measured with PyTorch's all_to_all_single: 125-322 GB/s on two NVLinked H200s).
  double gbps_per_server() const;
};

/// Every server sends bytes_per_server split evenly among all servers (itself included, as
/// all_to_all_single does), `repetitions` times after one warm-up; each repetition starts at a
/// barrier and is timed with CUDA events on every server's stream. The buffers are written
/// (a byte pattern per server) before the first exchange, and the last exchange's first and last
/// received bytes are checked: a wrong pattern throws std::runtime_error.
AllToAllTiming measure_all_to_all(ServerGroup& group, std::uint64_t bytes_per_server, int repetitions = 7);

}  // namespace hashlab::servers
