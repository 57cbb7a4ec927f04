// measure_all_to_all (bandwidth.hpp).
#include "hashlab/servers/bandwidth.hpp"

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <string>

#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/memory.hpp"

namespace hashlab::servers {

double AllToAllTiming::gbps_per_server() const {
  return median_ms > 0 ? static_cast<double>(bytes_to_others) / (median_ms * 1e-3) / 1e9 : 0.0;
}

AllToAllTiming measure_all_to_all(ServerGroup& group, std::uint64_t bytes_per_server, int repetitions) {
  const int p = group.size();
  const std::uint64_t chunk = bytes_per_server / static_cast<std::uint64_t>(p);
  if (chunk == 0) throw std::invalid_argument("measure_all_to_all: fewer bytes than servers");
  AllToAllTiming timing;
  timing.servers = p;
  timing.bytes_per_server = chunk * static_cast<std::uint64_t>(p);
  timing.bytes_to_others = chunk * static_cast<std::uint64_t>(p - 1);
  std::vector<std::vector<double>> per_server(static_cast<std::size_t>(p));
  group.run([&](Communicator& comm) {
    DeviceBuffer<unsigned char> send(timing.bytes_per_server, comm.stream());
    DeviceBuffer<unsigned char> recv(timing.bytes_per_server, comm.stream());
    send.fill_bytes(0x40 + comm.rank(), comm.stream());  // never time an exchange of unwritten memory
    const ExchangePlan plan =
        ExchangePlan::from_counts(std::vector<std::uint64_t>(static_cast<std::size_t>(p) * p, chunk), p, comm.rank());
    EventTimer timer;
    std::vector<double>& mine = per_server[static_cast<std::size_t>(comm.rank())];
    for (int rep = -1; rep < repetitions; ++rep) {
      comm.barrier();
      timer.start(comm.stream());
      comm.all_to_all(send.data(), plan, recv.data());
      timer.stop(comm.stream());
      if (rep >= 0) mine.push_back(timer.elapsed_ms());
    }
    // Server s's bytes land at s * chunk: check the first and the last byte from each server.
    const auto got = recv.to_host(comm.stream());
    for (int s = 0; s < p; ++s)
      for (const std::uint64_t at : {s * chunk, (s + 1) * chunk - 1})
        if (got[at] != static_cast<unsigned char>(0x40 + s))
          throw std::runtime_error("measure_all_to_all: " + comm.who() + " received a wrong byte from server " +
                                   std::to_string(s));
  });
  for (int rep = 0; rep < repetitions; ++rep) {
    double slowest = 0;
    for (const auto& mine : per_server) slowest = std::max(slowest, mine[static_cast<std::size_t>(rep)]);
    timing.ms.push_back(slowest);
  }
  std::vector<double> sorted = timing.ms;
  std::sort(sorted.begin(), sorted.end());
  timing.median_ms = sorted.empty() ? 0 : sorted[sorted.size() / 2];
  return timing;
}

}  // namespace hashlab::servers
