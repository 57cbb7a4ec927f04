#include "hashlab/common/memory.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <limits>
#include <mutex>
#include <vector>

namespace hashlab {
namespace {

// Raise the default pool's release threshold once per device, so freed blocks stay cached for the
// next allocation instead of going back to the driver at every synchronisation (the servers of
// servers/ allocate on several devices of one process).
void configure_pool_once() {
  constexpr int kMaxDevices = 64;
  static std::once_flag once[kMaxDevices];
  int device = 0;
  HASHLAB_CUDA_CHECK(cudaGetDevice(&device));
  if (device < 0 || device >= kMaxDevices) return;
  std::call_once(once[device], [device] {
    cudaMemPool_t pool = nullptr;
    HASHLAB_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
    std::uint64_t threshold = std::numeric_limits<std::uint64_t>::max();
    HASHLAB_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  });
}

}  // namespace

std::string format_bytes(std::size_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.2f %s", value, units[unit]);
  return text;
}

void trim_device_pool() {
  int device = 0;
  HASHLAB_CUDA_CHECK(cudaGetDevice(&device));
  cudaMemPool_t pool = nullptr;
  HASHLAB_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
  HASHLAB_CUDA_CHECK(cudaDeviceSynchronize());
  HASHLAB_CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
}

namespace {

cudaMemPool_t default_pool() {
  configure_pool_once();
  int device = 0;
  HASHLAB_CUDA_CHECK(cudaGetDevice(&device));
  cudaMemPool_t pool = nullptr;
  HASHLAB_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
  return pool;
}

std::size_t pool_attribute(cudaMemPool_t pool, cudaMemPoolAttr attribute) {
  std::uint64_t value = 0;
  HASHLAB_CUDA_CHECK(cudaMemPoolGetAttribute(pool, attribute, &value));
  return static_cast<std::size_t>(value);
}

std::vector<DevicePeakScope*>& open_scopes() {
  static std::vector<DevicePeakScope*> scopes;  // one thread drives the device in this suite
  return scopes;
}

}  // namespace

std::size_t device_pool_used() { return pool_attribute(default_pool(), cudaMemPoolAttrUsedMemCurrent); }

std::size_t device_memory_available(std::size_t need) {
  const auto measure = [] {
    std::size_t free_bytes = 0, total_bytes = 0;
    HASHLAB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    return free_bytes + device_pool_used();
  };
  const std::size_t available = measure();
  if (available >= need) return available;
  trim_device_pool();
  return measure();
}

DevicePeakScope::DevicePeakScope() {
  cudaMemPool_t pool = default_pool();
  HASHLAB_CUDA_CHECK(cudaDeviceSynchronize());  // earlier stream-ordered frees have happened
  const std::size_t high = pool_attribute(pool, cudaMemPoolAttrUsedMemHigh);
  for (DevicePeakScope* outer : open_scopes()) outer->folded_ = std::max(outer->folded_, high);
  std::uint64_t zero = 0;  // resets the mark to the current use
  HASHLAB_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero));
  start_ = pool_attribute(pool, cudaMemPoolAttrUsedMemCurrent);
  open_scopes().push_back(this);
}

DevicePeakScope::~DevicePeakScope() {
  auto& scopes = open_scopes();
  scopes.erase(std::remove(scopes.begin(), scopes.end(), this), scopes.end());
}

std::size_t DevicePeakScope::peak() const {
  cudaMemPool_t pool = default_pool();
  HASHLAB_CUDA_CHECK(cudaDeviceSynchronize());
  return std::max({folded_, start_, pool_attribute(pool, cudaMemPoolAttrUsedMemHigh)});
}

namespace detail {

void* device_allocate(std::size_t bytes, cudaStream_t stream) {
  configure_pool_once();
  void* ptr = nullptr;
  const cudaError_t err = cudaMallocAsync(&ptr, bytes, stream);
  if (err == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    std::size_t free_bytes = 0, total_bytes = 0;
    cudaMemGetInfo(&free_bytes, &total_bytes);
    throw OutOfDeviceMemory("cannot allocate " + format_bytes(bytes) + " on the device (" +
                            format_bytes(free_bytes) + " free of " + format_bytes(total_bytes) + ")");
  }
  HASHLAB_CUDA_CHECK(err);
  return ptr;
}

void device_free(void* ptr, cudaStream_t stream) noexcept { cudaFreeAsync(ptr, stream); }

void* pinned_allocate(std::size_t bytes) {
  void* ptr = nullptr;
  const cudaError_t err = cudaMallocHost(&ptr, bytes);
  if (err == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    throw OutOfHostMemory("cannot allocate " + format_bytes(bytes) + " of pinned host memory");
  }
  HASHLAB_CUDA_CHECK(err);
  return ptr;
}

void pinned_free(void* ptr) noexcept { cudaFreeHost(ptr); }

}  // namespace detail

Stream::Stream() { HASHLAB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
Stream::~Stream() {
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}
Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
    stream_ = std::exchange(other.stream_, nullptr);
  }
  return *this;
}
void Stream::synchronize() const { HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

Event::Event() { HASHLAB_CUDA_CHECK(cudaEventCreate(&event_)); }
Event::~Event() {
  if (event_ != nullptr) cudaEventDestroy(event_);
}
Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    if (event_ != nullptr) cudaEventDestroy(event_);
    event_ = std::exchange(other.event_, nullptr);
  }
  return *this;
}
void Event::record(cudaStream_t stream) { HASHLAB_CUDA_CHECK(cudaEventRecord(event_, stream)); }
void Event::synchronize() const { HASHLAB_CUDA_CHECK(cudaEventSynchronize(event_)); }

double EventTimer::elapsed_ms() const {
  stop_.synchronize();
  float ms = 0.0f;
  HASHLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, start_.get(), stop_.get()));
  return ms;
}

}  // namespace hashlab
