#include "hashlab/servers/plan.hpp"

#include <algorithm>
#include <limits>
#include <set>
#include <stdexcept>

namespace hashlab::servers {
namespace {

std::uint64_t checked_add(std::uint64_t a, std::uint64_t b) {
  if (a > std::numeric_limits<std::uint64_t>::max() - b)
    throw std::invalid_argument("servers: an exchange of more than 2^64 elements");
  return a + b;
}

std::uint64_t total_of(const std::vector<std::uint64_t>& counts) {
  std::uint64_t total = 0;
  for (const std::uint64_t c : counts) total = checked_add(total, c);
  return total;
}

}  // namespace

std::uint64_t ExchangePlan::send_total() const { return total_of(send_counts); }
std::uint64_t ExchangePlan::recv_total() const { return total_of(recv_counts); }

ExchangePlan ExchangePlan::from_counts(const std::vector<std::uint64_t>& counts, int size, int rank) {
  if (size < 1) throw std::invalid_argument("servers: a group needs at least one server, got " + std::to_string(size));
  if (rank < 0 || rank >= size)
    throw std::invalid_argument("servers: rank " + std::to_string(rank) + " outside a group of " + std::to_string(size));
  const auto p = static_cast<std::size_t>(size);
  if (counts.size() != p * p)
    throw std::invalid_argument("servers: a count matrix of " + std::to_string(counts.size()) + " entries for " +
                                std::to_string(size) + " servers (needs " + std::to_string(p * p) + ")");
  ExchangePlan plan;
  plan.rank = rank;
  plan.size = size;
  plan.send_counts.assign(p, 0);
  plan.send_offsets.assign(p, 0);
  plan.recv_counts.assign(p, 0);
  plan.recv_offsets.assign(p, 0);
  const auto r = static_cast<std::size_t>(rank);
  std::uint64_t send_at = 0, recv_at = 0;
  for (std::size_t d = 0; d < p; ++d) {
    plan.send_offsets[d] = send_at;
    plan.send_counts[d] = counts[r * p + d];
    send_at = checked_add(send_at, plan.send_counts[d]);
    plan.recv_offsets[d] = recv_at;  // d is the sender here
    plan.recv_counts[d] = counts[d * p + r];
    recv_at = checked_add(recv_at, plan.recv_counts[d]);
  }
  return plan;
}

ExchangePlan ExchangePlan::broadcast(const std::vector<std::uint64_t>& counts, int rank) {
  const int size = static_cast<int>(counts.size());
  std::vector<std::uint64_t> matrix(counts.size() * counts.size());
  for (std::size_t s = 0; s < counts.size(); ++s)
    for (std::size_t d = 0; d < counts.size(); ++d) matrix[s * counts.size() + d] = counts[s];
  ExchangePlan plan = from_counts(matrix, size, rank);
  std::fill(plan.send_offsets.begin(), plan.send_offsets.end(), 0);  // the same elements to everyone
  return plan;
}

ExchangePlan ExchangePlan::scaled(std::uint64_t factor) const {
  ExchangePlan out = *this;
  for (auto* v : {&out.send_counts, &out.send_offsets, &out.recv_counts, &out.recv_offsets})
    for (auto& x : *v) {
      if (factor != 0 && x > std::numeric_limits<std::uint64_t>::max() / factor)
        throw std::invalid_argument("servers: an exchange of more than 2^64 bytes");
      x *= factor;
    }
  return out;
}

std::vector<std::uint64_t> server_loads(const std::vector<std::uint64_t>& counts, int size) {
  const auto p = static_cast<std::size_t>(size);
  if (size < 1 || counts.size() != p * p)
    throw std::invalid_argument("servers: a count matrix of " + std::to_string(counts.size()) + " entries for " +
                                std::to_string(size) + " servers");
  std::vector<std::uint64_t> loads(p, 0);
  for (std::size_t s = 0; s < p; ++s)
    for (std::size_t d = 0; d < p; ++d) loads[d] = checked_add(loads[d], counts[s * p + d]);
  return loads;
}

LoadBalance load_balance(const std::vector<std::uint64_t>& loads) {
  LoadBalance balance;
  if (loads.empty()) return balance;
  balance.total = total_of(loads);
  balance.fullest = *std::max_element(loads.begin(), loads.end());
  balance.mean = static_cast<double>(balance.total) / static_cast<double>(loads.size());
  return balance;
}

std::vector<int> assign_devices(int servers, int device_count, const std::vector<int>& requested, bool share) {
  if (servers < 1) throw std::invalid_argument("servers: at least one server, got " + std::to_string(servers));
  if (device_count < 1) throw std::invalid_argument("servers: this host has no CUDA GPU");
  std::vector<int> devices;
  if (!requested.empty()) {
    if (static_cast<int>(requested.size()) != servers)
      throw std::invalid_argument("servers: " + std::to_string(requested.size()) + " devices named for " +
                                  std::to_string(servers) + " servers");
    for (const int d : requested)
      if (d < 0 || d >= device_count)
        throw std::invalid_argument("servers: device " + std::to_string(d) + " does not exist (this host has " +
                                    std::to_string(device_count) + " GPU" + (device_count == 1 ? "" : "s") +
                                    ", devices 0.." + std::to_string(device_count - 1) + ")");
    if (!share && std::set<int>(requested.begin(), requested.end()).size() != requested.size())
      throw std::invalid_argument("servers: two servers on one device; NCCL needs a GPU of its own for every "
                                  "server (the local backend shares GPUs)");
    return requested;
  }
  if (servers > device_count && !share)
    throw std::invalid_argument("servers: " + std::to_string(servers) + " GPUs asked for, this host has " +
                                std::to_string(device_count) +
                                " (ask for at most that many, or share GPUs with the local backend)");
  for (int r = 0; r < servers; ++r) devices.push_back(r % device_count);
  return devices;
}

int parse_server_count(const std::string& text) {
  std::size_t used = 0;
  long value = 0;
  try {
    value = std::stol(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || value < 1 || value > 4096)
    throw std::invalid_argument("'" + text + "' is not a number of GPUs (a whole number from 1)");
  return static_cast<int>(value);
}

}  // namespace hashlab::servers
