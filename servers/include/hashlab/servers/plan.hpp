// The host side of an exchange between servers (no GPU): who sends how much to whom, where it
// lies in each server's send and receive buffers, and each server's load. Every server builds
// the same plan from the same count matrix, so all of them agree on every size.
//
//   counts[s * p + d] = elements server s sends to server d   (all-gathered send counts)
//   ExchangePlan plan = ExchangePlan::from_counts(counts, p, rank);
//   send buffer: the elements for server d at plan.send_offsets[d], plan.send_counts[d] of them
//   recv buffer: the elements from server s at plan.recv_offsets[s], plan.recv_counts[s] of them
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hashlab::servers {

struct ExchangePlan {
  int rank = 0;
  int size = 1;
  std::vector<std::uint64_t> send_counts, send_offsets;  // to each server, in this server's send buffer
  std::vector<std::uint64_t> recv_counts, recv_offsets;  // from each server, in this server's recv buffer

  std::uint64_t send_total() const;
  std::uint64_t recv_total() const;

  /// The plan of server `rank` from the all-gathered p x p count matrix (row = sender). Send
  /// and receive buffers are packed in server order. Throws std::invalid_argument when the
  /// matrix is not p x p or a total overflows 64 bits.
  static ExchangePlan from_counts(const std::vector<std::uint64_t>& counts, int size, int rank);
  /// The plan of an all-gather of variable sizes: server s sends its counts[s] elements, from
  /// offset 0, to every server; server d receives them at the sum of counts[0..s).
  static ExchangePlan broadcast(const std::vector<std::uint64_t>& counts, int rank);
  /// The same plan with every count and offset multiplied by `factor` (elements to bytes).
  ExchangePlan scaled(std::uint64_t factor) const;
};

/// Rows each server receives (column sums of the count matrix): the servers' loads.
std::vector<std::uint64_t> server_loads(const std::vector<std::uint64_t>& counts, int size);

/// The load statistics the MPC model is judged by: the fullest server against N / p.
struct LoadBalance {
  std::uint64_t total = 0;    // N, rows over all servers
  std::uint64_t fullest = 0;  // the largest load
  double mean = 0;            // N / p
  /// fullest / mean (1 when every server holds N / p; 0 when there are no rows).
  double fullest_over_mean() const { return mean > 0 ? static_cast<double>(fullest) / mean : 0.0; }
};
LoadBalance load_balance(const std::vector<std::uint64_t>& loads);

/// The devices of p servers on a host with `device_count` GPUs. `requested` (may be empty) names
/// them; empty: server r on device r, or, when `share` is set and there are fewer GPUs than
/// servers, on device r mod device_count. Throws std::invalid_argument with what to do when the
/// host has too few GPUs (without `share`), a device id is out of range, or p < 1. `share` is the
/// in-process backend's; NCCL needs a device of its own for every server.
std::vector<int> assign_devices(int servers, int device_count, const std::vector<int>& requested, bool share);

/// Parses "--gpus N" style counts: a positive integer; throws std::invalid_argument otherwise.
int parse_server_count(const std::string& text);

}  // namespace hashlab::servers
