// The conversion layer of hashlab._core: columns in (host or device memory, used in place) and
// arrays out (NumPy arrays that own their std::vector; device arrays that own their buffer).
//
//   Column keys(...)                        // built in Python (hashlab/_arrays.py) from NumPy,
//                                           // __cuda_array_interface__ or DLPack
//   std::vector<std::uint32_t> k = key_vector(keys);         // host copy, checked as the commands do
//   DeviceView<std::uint32_t> d = device_view<std::uint32_t>(keys, stream);  // the array itself on the
//                                           // device; a host column is copied in
//   return numpy_array(std::move(result));  // no copy: the array owns the vector
//
// Every check throws std::invalid_argument (Python: ValueError) with the commands' wording, the
// column's name in the place of a file's.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hashlab/common/memory.hpp"

namespace hashlab::python {

namespace nb = nanobind;

/// The element types a column may hold: the dtypes the own-data commands read.
enum class DType { kUint32, kInt32, kUint64, kInt64, kFloat32, kFloat64 };

/// NumPy's type string ("<u4", ...), and back (std::invalid_argument naming the accepted ones).
const char* typestr(DType dtype);
DType parse_typestr(const std::string& name, const std::string& typestr);
std::size_t itemsize(DType dtype);
template <class T>
DType dtype_of();

/// The stream hashlab's calls run on: the legacy default stream, which every blocking stream
/// (CuPy's and PyTorch's default ones included) is ordered with, so that a result array freed
/// later is never reused under a kernel still reading it. The work of a producer's other stream
/// is waited for explicitly (Column::wait).
inline cudaStream_t work_stream() { return cudaStreamLegacy; }

/// One column as Python handed it over: host memory (NumPy) or device memory (CUDA), used in
/// place while `owner` keeps it alive.
class Column {
 public:
  /// A column at `data` (an address from __array_interface__ or __cuda_array_interface__).
  /// `stream`: the producer's stream (__cuda_array_interface__'s "stream": 1 the legacy default,
  /// 2 the per-thread default, else a handle; 0 when none is known). A device address is checked
  /// with cudaPointerGetAttributes (device memory of the current device, or managed memory).
  Column(std::string name, std::uintptr_t data, const std::string& typestr, std::size_t rows, bool on_device,
         std::uintptr_t stream, nb::object owner);
  /// A column from a DLPack capsule (or an object with __dlpack__): one-dimensional and
  /// contiguous, on the CPU or a CUDA device.
  static Column from_dlpack(std::string name, nb::handle capsule, std::uintptr_t stream);

  const std::string& name() const { return name_; }
  const void* data() const { return data_; }
  std::uintptr_t address() const { return reinterpret_cast<std::uintptr_t>(data_); }
  DType dtype() const { return dtype_; }
  std::size_t rows() const { return rows_; }
  bool on_device() const { return on_device_; }
  std::uintptr_t producer_stream() const { return stream_; }

  /// Makes `stream` wait for the producer's stream (nothing when none is known or it is the same).
  void wait(cudaStream_t stream) const;

 private:
  Column() = default;
  void check_device_address() const;

  std::string name_;
  const void* data_ = nullptr;
  DType dtype_ = DType::kUint32;
  std::size_t rows_ = 0;
  bool on_device_ = false;
  std::uintptr_t stream_ = 0;
  nb::object owner_;
  nb::ndarray<> dlpack_;  // a DLPack import: releasing it gives the tensor back to its producer
};

/// Throws std::invalid_argument unless every column has `rows` rows, naming the first that differs.
void require_rows(const std::vector<Column>& columns);

/// A key column as unsigned 32-bit keys on the host (a device column is copied out first):
/// integers in [0, 2^32), as `hashlab groupby --keys` reads them.
std::vector<std::uint32_t> key_vector(const Column& column);

/// A value column on the host: integers exactly (in 64 bits) or reals (NaN refused), as the
/// commands read --values.
struct Values {
  bool real = false;
  std::vector<std::int64_t> ints;
  std::vector<double> reals;
};
Values value_vector(const Column& column);

/// A column on the device as T, for the GPU algorithms: a device column of T is the caller's
/// array itself (no copy); a host column is checked, converted and copied in on `stream`. A device
/// column of another type is refused (converting it would be a hidden copy: the message says how).
template <class T>
class DeviceView {
 public:
  const T* data() const { return data_; }
  std::size_t rows() const { return rows_; }
  /// Whether data() is the caller's array (else hashlab's copy of a host column).
  bool in_place() const { return in_place_; }

 private:
  template <class U>
  friend DeviceView<U> device_view(const Column& column, cudaStream_t stream);
  const T* data_ = nullptr;
  std::size_t rows_ = 0;
  bool in_place_ = false;
  DeviceBuffer<T> copy_;
};
template <class T>
DeviceView<T> device_view(const Column& column, cudaStream_t stream);

/// A writable device column of T that a call fills in place (an `out=` argument).
template <class T>
T* device_output(const Column& column, std::size_t rows);

/// NumPy arrays that own `values` (moved in, never copied).
template <class T>
nb::object numpy_array(std::vector<T>&& values);
template <class T>
nb::object numpy_matrix(std::vector<T>&& values, std::size_t rows, std::size_t columns);

/// Device memory handed to Python: exposes __cuda_array_interface__ (version 3) and DLPack
/// (__dlpack__, __dlpack_device__), so that cupy.asarray, torch.as_tensor and any DLPack consumer
/// take it without a copy. The memory is freed when the last reference goes.
class DeviceArray {
 public:
  /// Takes `buffer` over; `shape` (one or two dimensions, C order) spans at most its size.
  template <class T>
  DeviceArray(DeviceBuffer<T>&& buffer, std::vector<std::size_t> shape)
      : dtype_(dtype_of<T>()), shape_(std::move(shape)), device_(current_device()) {
    auto owned = std::make_shared<DeviceBuffer<T>>(std::move(buffer));
    data_ = owned->data();
    memory_ = std::move(owned);
  }

  std::uintptr_t address() const { return reinterpret_cast<std::uintptr_t>(data_); }
  DType dtype() const { return dtype_; }
  const std::vector<std::size_t>& shape() const { return shape_; }
  std::size_t size() const;
  int device() const { return device_; }
  nb::dict cuda_array_interface() const;
  /// A NumPy copy on the host (synchronises the work stream).
  nb::object to_numpy() const;
  nb::object dlpack(nb::handle self) const;

 private:
  static int current_device();

  std::shared_ptr<void> memory_;
  void* data_ = nullptr;
  DType dtype_ = DType::kUint32;
  std::vector<std::size_t> shape_;
  int device_ = 0;
};

/// The group-by input checks of the commands (`hashlab groupby`): at least one key and one value
/// column and one aggregation, columns of one length with rows, at most 8 key columns, and integer
/// values whose sum fits 64 bits. std::invalid_argument names the column.
void check_groupby_input(const std::vector<Column>& keys, const std::vector<Column>& values,
                         const std::vector<Values>& value_data, std::size_t aggregations);

void bind_columns(nb::module_& m);

}  // namespace hashlab::python
