// RAII owners for device memory, pinned host memory, streams and events, and a CUDA-event timer.
//
// Device buffers are stream-ordered allocations (cudaMallocAsync) from the device's default
// memory pool, whose release threshold is raised on first use: after a warm-up run, an
// algorithm's temporaries come from the pool in microseconds, so algorithm code can own its
// scratch space as plain RAII buffers and timings still exclude cudaMalloc.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/host_memory.hpp"

namespace hashlab {

/// Thrown when a device allocation does not fit; what() gives the request and the free memory.
class OutOfDeviceMemory : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Thrown when a pinned host allocation does not fit; what() gives the request.
class OutOfHostMemory : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {
void* device_allocate(std::size_t bytes, cudaStream_t stream);
void device_free(void* ptr, cudaStream_t stream) noexcept;
void* pinned_allocate(std::size_t bytes);
void pinned_free(void* ptr) noexcept;
}  // namespace detail

/// Formats a byte count for messages: "1.50 GiB".
std::string format_bytes(std::size_t bytes);

/// Returns every cached block of the default pool to the driver (between experiments).
void trim_device_pool();

/// Bytes of the default pool in use now (every DeviceBuffer, CUB's scratch included).
std::size_t device_pool_used();

/// Device memory that `need` bytes of new allocations may use: what the driver has free plus what
/// the default pool has in use (cached values a caller could drop). The pool keeps freed blocks
/// (its release threshold is the maximum), and those count as neither: when the sum falls short of
/// `need`, the cached blocks go back to the driver and the sum is read again.
std::size_t device_memory_available(std::size_t need);

/// The peak of the default pool's bytes in use over the scope's lifetime, read from the pool's
/// high-water mark. Scopes nest (the runner measures each point, an experiment one algorithm inside
/// it): opening a scope resets the mark, and the peak seen until then is kept for the enclosing
/// scopes. Memory allocated outside the pool (cudaMalloc, managed memory) is not counted.
/// Synchronises the device when it opens and when peak() is read; close scopes in reverse order.
class DevicePeakScope {
 public:
  DevicePeakScope();
  ~DevicePeakScope();
  DevicePeakScope(const DevicePeakScope&) = delete;
  DevicePeakScope& operator=(const DevicePeakScope&) = delete;
  /// The most bytes in use at once since the scope opened.
  std::size_t peak() const;
  /// Bytes in use when the scope opened.
  std::size_t at_start() const { return start_; }
  /// peak() - at_start(): what the scope's work added at its peak.
  std::size_t added() const { const std::size_t p = peak(); return p > start_ ? p - start_ : 0; }

 private:
  std::size_t start_ = 0;
  std::size_t folded_ = 0;  // the highest mark seen before an inner scope reset it
};

/// An owning, move-only array of `size()` elements of T in device memory. Contents are
/// uninitialised. A buffer of size 0 holds no allocation and data() is nullptr. It is freed in
/// the order of the stream it was allocated on, so it must not outlive that stream.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n, cudaStream_t stream = nullptr)
      : size_(n), stream_(stream) {
    if (n > 0) data_ = static_cast<T*>(detail::device_allocate(n * sizeof(T), stream));
  }
  ~DeviceBuffer() { release(); }

  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept { swap(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      swap(other);
    }
    return *this;
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }
  bool empty() const { return size_ == 0; }

  /// Sets every byte to `byte` (asynchronous on `stream`).
  void fill_bytes(int byte, cudaStream_t stream) {
    if (size_ > 0) HASHLAB_CUDA_CHECK(cudaMemsetAsync(data_, byte, bytes(), stream));
  }

  /// Copies `n` elements from host memory into the front of the buffer (asynchronous).
  void copy_from_host(const T* src, std::size_t n, cudaStream_t stream) {
    if (n > size_) throw std::length_error("DeviceBuffer::copy_from_host: source larger than buffer");
    if (n > 0)
      HASHLAB_CUDA_CHECK(cudaMemcpyAsync(data_, src, n * sizeof(T), cudaMemcpyHostToDevice, stream));
  }

  /// Copies the first `n` elements (default: all) to a host vector; synchronises `stream`.
  std::vector<T> to_host(cudaStream_t stream, std::size_t n = static_cast<std::size_t>(-1)) const;

 private:
  void release() noexcept {
    if (data_ != nullptr) detail::device_free(data_, stream_);
    data_ = nullptr;
    size_ = 0;
  }
  void swap(DeviceBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(stream_, other.stream_);
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
  cudaStream_t stream_ = nullptr;
};

/// A device buffer holding a copy of `host` (asynchronous on `stream`; keep `host` alive until
/// the stream has passed the copy).
template <class T>
DeviceBuffer<T> to_device(const std::vector<T>& host, cudaStream_t stream) {
  DeviceBuffer<T> buffer(host.size(), stream);
  buffer.copy_from_host(host.data(), host.size(), stream);
  return buffer;
}

/// Copies `n` elements of device memory to a host vector in the order of `stream` (a plain
/// cudaMemcpy would not wait for the stream's work); synchronises `stream`. The vector's pages are
/// faulted in on all cores first (cpu::zeroed_vector): a check brings GBs back.
template <class T>
std::vector<T> copy_to_host(const T* device_ptr, std::size_t n, cudaStream_t stream) {
  std::vector<T> out = cpu::zeroed_vector<T>(n);
  if (n > 0) {
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(out.data(), device_ptr, n * sizeof(T), cudaMemcpyDeviceToHost, stream));
    HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  return out;
}

template <class T>
std::vector<T> DeviceBuffer<T>::to_host(cudaStream_t stream, std::size_t n) const {
  return copy_to_host(data_, n < size_ ? n : size_, stream);
}

/// Reads one element of device memory (synchronises `stream`).
template <class T>
T read_device_value(const T* device_ptr, cudaStream_t stream) {
  T value{};
  HASHLAB_CUDA_CHECK(cudaMemcpyAsync(&value, device_ptr, sizeof(T), cudaMemcpyDeviceToHost, stream));
  HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return value;
}

/// An owning, move-only array in page-locked host memory (fast, asynchronous transfers).
template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t n) : size_(n) {
    if (n > 0) data_ = static_cast<T*>(detail::pinned_allocate(n * sizeof(T)));
  }
  ~PinnedBuffer() {
    if (data_ != nullptr) detail::pinned_free(data_);
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  PinnedBuffer(PinnedBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
    if (this != &other) {
      if (data_ != nullptr) detail::pinned_free(data_);
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

/// A non-blocking CUDA stream.
class Stream {
 public:
  Stream();
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
  Stream& operator=(Stream&& other) noexcept;

  cudaStream_t get() const { return stream_; }
  operator cudaStream_t() const { return stream_; }
  void synchronize() const;

 private:
  cudaStream_t stream_ = nullptr;
};

/// A CUDA event with timing enabled.
class Event {
 public:
  Event();
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  Event& operator=(Event&& other) noexcept;

  cudaEvent_t get() const { return event_; }
  void record(cudaStream_t stream);
  void synchronize() const;

 private:
  cudaEvent_t event_ = nullptr;
};

/// Measures device time between two points of one stream with CUDA events.
///   EventTimer timer; timer.start(s); kernel<<<..., s>>>(...); timer.stop(s);
///   double ms = timer.elapsed_ms();   // waits for the stop event
class EventTimer {
 public:
  void start(cudaStream_t stream) { start_.record(stream); }
  void stop(cudaStream_t stream) { stop_.record(stream); }
  double elapsed_ms() const;

 private:
  Event start_;
  Event stop_;
};

}  // namespace hashlab
