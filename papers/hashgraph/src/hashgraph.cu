// The HashGraph object: sizes, validation and the storage both builds share.
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <string>

#include "detail.hpp"
#include "hashlab/common/device.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/hashgraph/hashgraph.hpp"

namespace hashlab::hashgraph {

const char* to_string(Version version) { return version == Version::kV1 ? "v1" : "v2"; }

std::uint32_t hash_range_for(std::uint64_t n, double load_factor) {
  if (!(load_factor > 0.0) || !std::isfinite(load_factor))
    throw std::invalid_argument("HashGraph: the load factor must be positive and finite, got " +
                                std::to_string(load_factor));
  const double range = std::ceil(static_cast<double>(n) / load_factor);
  if (range > static_cast<double>(kMaxKeys))
    throw std::invalid_argument("HashGraph: " + std::to_string(n) + " keys at load factor " + std::to_string(load_factor) +
                                " need " + std::to_string(range) + " vertices, more than the 32-bit range 2^32 - 1");
  return range < 1.0 ? 1u : static_cast<std::uint32_t>(range);
}

void validate_bins(std::uint32_t bins) {
  if (bins == 0 || bins > kMaxBins)
    throw std::invalid_argument("HashGraph V2: the number of bins must lie in [1, " + std::to_string(kMaxBins) +
                                "], got " + std::to_string(bins));
}

namespace {

// A table larger than the whole device is refused before any allocation, so that asking for one
// never fills the GPU part-way (other processes may share it). Smaller shortfalls surface as
// OutOfDeviceMemory from the allocation itself.
void refuse_tables_beyond_the_device(std::uint64_t capacity, std::uint32_t range, Version version) {
  const double vertices = static_cast<double>(range) + 1;
  double bytes = vertices * sizeof(std::uint32_t) + static_cast<double>(capacity) * sizeof(Entry);
  if (version == Version::kV1)
    bytes += static_cast<double>(capacity) * sizeof(std::uint32_t) + vertices * sizeof(std::uint32_t);
  else
    bytes += static_cast<double>(capacity) * sizeof(Entry);
  std::size_t free_bytes = 0, total_bytes = 0;
  device_memory(free_bytes, total_bytes);
  if (bytes > static_cast<double>(total_bytes)) {
    std::ostringstream message;
    message << std::fixed << std::setprecision(1) << "HashGraph: a table of " << capacity << " keys and "
            << range << " vertices needs " << bytes / (1u << 30) << " GiB, more than the device's "
            << static_cast<double>(total_bytes) / (1u << 30) << " GiB";
    throw OutOfDeviceMemory(message.str());
  }
}

}  // namespace

HashGraph::HashGraph(std::uint64_t capacity, std::uint32_t range, BuildOptions options, cudaStream_t stream)
    : capacity_(capacity), range_(range), options_(options) {
  if (range == 0) throw std::invalid_argument("HashGraph: the hash range must hold at least one vertex");
  if (capacity > kMaxKeys)
    throw std::invalid_argument("HashGraph: " + std::to_string(capacity) +
                                " keys exceed the 32-bit rows and offsets (at most 2^32 - 1 keys)");
  if (options.version == Version::kV2) validate_bins(options.bins);
  refuse_tables_beyond_the_device(capacity, range, options.version);
  offsets_ = DeviceBuffer<std::uint32_t>(std::size_t{range} + 1, stream);
  offsets_.fill_bytes(0, stream);  // every list empty until build(): a probe before it finds nothing
  entries_ = DeviceBuffer<Entry>(capacity, stream);
  if (options.version == Version::kV1) {
    hashes_ = DeviceBuffer<std::uint32_t>(capacity, stream);
    counters_ = DeviceBuffer<std::uint32_t>(std::size_t{range} + 1, stream);
    return;
  }
  // Bins split the hash range into equal slices of consecutive vertices (section 3.3, phase 1).
  bin_size_ = static_cast<std::uint32_t>((std::uint64_t{range} + options.bins - 1) / options.bins);
  bins_used_ = static_cast<std::uint32_t>((std::uint64_t{range} + bin_size_ - 1) / bin_size_);
  shared_phase3_ = bin_size_ <= detail::phase3_max_shared_vertices();
  bin_counts_ = DeviceBuffer<std::uint32_t>(std::size_t{bins_used_} + 1, stream);
  bin_offsets_ = DeviceBuffer<std::uint32_t>(std::size_t{bins_used_} + 1, stream);
  tuples_ = DeviceBuffer<Entry>(capacity, stream);
  if (!shared_phase3_) counters_ = DeviceBuffer<std::uint32_t>(std::size_t{range} + 1, stream);
}

void HashGraph::build(const std::uint32_t* keys, std::uint64_t n, cudaStream_t stream, PhaseTimer* phases) {
  if (n > capacity_)
    throw std::invalid_argument("HashGraph::build: " + std::to_string(n) + " keys exceed the capacity of " +
                                std::to_string(capacity_));
  if (n > 0 && keys == nullptr) throw std::invalid_argument("HashGraph::build: keys is null");
  size_ = n;
  if (n == 0) {  // every list empty; no step to time
    offsets_.fill_bytes(0, stream);
    return;
  }
  if (options_.version == Version::kV1)
    build_v1(keys, n, stream, phases);
  else
    build_v2(keys, n, stream, phases);
}

HostGraph HashGraph::to_host(cudaStream_t stream) const {
  HostGraph host;
  to_host(host, stream);
  return host;
}

void HashGraph::to_host(HostGraph& out, cudaStream_t stream) const {
  out.range = range_;
  out.offsets.resize(offsets_.size());
  out.entries.resize(std::min<std::size_t>(size_, entries_.size()));
  if (!out.offsets.empty())
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(out.offsets.data(), offsets_.data(), offsets_.bytes(), cudaMemcpyDeviceToHost,
                                       stream));
  if (!out.entries.empty())
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(out.entries.data(), entries_.data(), out.entries.size() * sizeof(Entry),
                                       cudaMemcpyDeviceToHost, stream));
  HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace hashlab::hashgraph
