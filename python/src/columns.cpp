#include "columns.hpp"

#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <tuple>

#include "hashlab/common/cuda_check.hpp"

namespace hashlab::python {
namespace {

struct DTypeInfo {
  DType dtype;
  const char* typestr;
  const char* name;
  std::size_t itemsize;
};

constexpr DTypeInfo kDTypes[] = {
    {DType::kUint32, "<u4", "uint32", 4}, {DType::kInt32, "<i4", "int32", 4},
    {DType::kUint64, "<u8", "uint64", 8}, {DType::kInt64, "<i8", "int64", 8},
    {DType::kFloat32, "<f4", "float32", 4}, {DType::kFloat64, "<f8", "float64", 8},
};

const DTypeInfo& info(DType dtype) {
  for (const auto& d : kDTypes)
    if (d.dtype == dtype) return d;
  throw std::logic_error("unknown dtype");
}

bool is_real(DType dtype) { return dtype == DType::kFloat32 || dtype == DType::kFloat64; }

constexpr int kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLCUDAManaged = 13;

cudaStream_t as_stream(std::uintptr_t handle) {
  // __cuda_array_interface__ v3: 1 is the legacy default stream, 2 the per-thread default one.
  if (handle == 1) return cudaStreamLegacy;
  if (handle == 2) return cudaStreamPerThread;
  return reinterpret_cast<cudaStream_t>(handle);
}

/// The column's bytes in host memory: the caller's array, or a copy of a device column.
class HostBytes {
 public:
  explicit HostBytes(const Column& column) {
    const std::size_t bytes = column.rows() * itemsize(column.dtype());
    if (!column.on_device() || bytes == 0) {
      data_ = column.data();
      return;
    }
    column.wait(work_stream());
    copy_.resize(bytes);
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(copy_.data(), column.data(), bytes, cudaMemcpyDeviceToHost, work_stream()));
    HASHLAB_CUDA_CHECK(cudaStreamSynchronize(work_stream()));
    data_ = copy_.data();
  }
  template <class T>
  const T* as() const {
    return static_cast<const T*>(data_);
  }

 private:
  const void* data_ = nullptr;
  std::vector<unsigned char> copy_;
};

/// Every element of the column as int64 (integer dtypes; uint64 beyond int64 refused as the
/// commands refuse it) through fn(row, value).
template <class Fn>
void for_each_int(const Column& column, const HostBytes& bytes, Fn&& fn) {
  const std::size_t n = column.rows();
  switch (column.dtype()) {
    case DType::kUint32: for (std::size_t i = 0; i < n; ++i) fn(i, static_cast<std::int64_t>(bytes.as<std::uint32_t>()[i])); break;
    case DType::kInt32: for (std::size_t i = 0; i < n; ++i) fn(i, static_cast<std::int64_t>(bytes.as<std::int32_t>()[i])); break;
    case DType::kInt64: for (std::size_t i = 0; i < n; ++i) fn(i, bytes.as<std::int64_t>()[i]); break;
    case DType::kUint64:
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t v = bytes.as<std::uint64_t>()[i];
        if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
          throw std::invalid_argument(column.name() + ": row " + std::to_string(i) + " holds " + std::to_string(v) +
                                      ", beyond the 64-bit signed integers the commands read");
        fn(i, static_cast<std::int64_t>(v));
      }
      break;
    default: throw std::logic_error("for_each_int: a real column");
  }
}

std::vector<double> reals_of(const Column& column, const HostBytes& bytes) {
  std::vector<double> out(column.rows());
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = column.dtype() == DType::kFloat32 ? static_cast<double>(bytes.as<float>()[i]) : bytes.as<double>()[i];
    if (std::isnan(out[i]))
      throw std::invalid_argument(column.name() + ": row " + std::to_string(i) +
                                  " is NaN; the commands have no null values");
  }
  return out;
}

/// The column as T on the host, checked: keys (T uint32, `what` "keys") as the commands read
/// them, values as integers that T holds or as reals.
template <class T>
std::vector<T> host_vector(const Column& column, const std::string& what) {
  if constexpr (std::is_same_v<T, std::uint32_t>) {
    if (what == "keys") return key_vector(column);
  }
  const HostBytes bytes(column);
  if (column.dtype() == dtype_of<T>()) {
    const T* p = bytes.as<T>();
    return std::vector<T>(p, p + column.rows());
  }
  std::vector<T> out(column.rows());
  if constexpr (std::is_floating_point_v<T>) {
    if (is_real(column.dtype())) {
      const auto reals = reals_of(column, bytes);
      for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<T>(reals[i]);
    } else {
      for_each_int(column, bytes, [&](std::size_t i, std::int64_t v) { out[i] = static_cast<T>(v); });
    }
  } else {
    if (is_real(column.dtype()))
      throw std::invalid_argument(column.name() + ": " + what + " takes integer values (" + info(dtype_of<T>()).name +
                                  "); the column holds floating-point numbers");
    for_each_int(column, bytes, [&](std::size_t i, std::int64_t v) {
      if (v < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
          v > static_cast<std::int64_t>(std::numeric_limits<T>::max()))
        throw std::invalid_argument(column.name() + ": row " + std::to_string(i) + " holds " + std::to_string(v) +
                                    "; " + what + " takes " + info(dtype_of<T>()).name + " values, from " +
                                    std::to_string(std::numeric_limits<T>::min()) + " to " +
                                    std::to_string(std::numeric_limits<T>::max()));
      out[i] = static_cast<T>(v);
    });
  }
  return out;
}

}  // namespace

template <> DType dtype_of<std::uint32_t>() { return DType::kUint32; }
template <> DType dtype_of<std::int32_t>() { return DType::kInt32; }
template <> DType dtype_of<std::uint64_t>() { return DType::kUint64; }
template <> DType dtype_of<std::int64_t>() { return DType::kInt64; }
template <> DType dtype_of<float>() { return DType::kFloat32; }
template <> DType dtype_of<double>() { return DType::kFloat64; }

const char* typestr(DType dtype) { return info(dtype).typestr; }
std::size_t itemsize(DType dtype) { return info(dtype).itemsize; }

DType parse_typestr(const std::string& name, const std::string& ts) {
  for (const auto& d : kDTypes)
    if (ts == d.typestr) return d.dtype;
  throw std::invalid_argument(name + ": dtype '" + ts +
                              "' is not read here (accepted: uint32, int32, uint64, int64, float32, float64; "
                              "numpy: a.astype('int64') or a.astype('float64'))");
}

Column::Column(std::string name, std::uintptr_t data, const std::string& ts, std::size_t rows, bool on_device,
               std::uintptr_t stream, nb::object owner)
    : name_(std::move(name)),
      data_(reinterpret_cast<const void*>(data)),
      dtype_(parse_typestr(name_, ts)),
      rows_(rows),
      on_device_(on_device),
      stream_(stream),
      owner_(std::move(owner)) {
  if (rows_ > 0 && data_ == nullptr) throw std::invalid_argument(name_ + ": " + std::to_string(rows_) + " rows at address 0");
  if (on_device_) check_device_address();
}

Column Column::from_dlpack(std::string name, nb::handle capsule, std::uintptr_t stream) {
  Column column;
  column.name_ = std::move(name);
  column.dlpack_ = nb::cast<nb::ndarray<>>(capsule);
  const nb::ndarray<>& a = column.dlpack_;
  if (a.ndim() != 1)
    throw std::invalid_argument(column.name_ + ": a column is one-dimensional; the DLPack tensor has " +
                                std::to_string(a.ndim()) + " dimensions");
  if (a.stride_ptr() != nullptr && a.shape(0) > 1 && a.stride(0) != 1)
    throw std::invalid_argument(column.name_ + ": the DLPack tensor is strided (stride " + std::to_string(a.stride(0)) +
                                "); pass a contiguous one");
  const auto dt = a.dtype();
  const char kind = dt.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::UInt)    ? 'u'
                    : dt.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Int)   ? 'i'
                    : dt.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Float) ? 'f'
                                                                                          : '?';
  const std::string ts = dt.lanes == 1 ? std::string("<") + kind + std::to_string(dt.bits / 8)
                                       : std::string("lanes ") + std::to_string(dt.lanes);
  column.dtype_ = parse_typestr(column.name_, ts);
  column.rows_ = a.shape(0);
  column.data_ = static_cast<const unsigned char*>(a.data_handle()) + a.byte_offset();
  column.stream_ = stream;
  switch (a.device_type()) {
    case kDLCPU:
    case kDLCUDAHost: column.on_device_ = false; break;
    case kDLCUDA:
    case kDLCUDAManaged: column.on_device_ = true; break;
    default:
      throw std::invalid_argument(column.name_ + ": DLPack device type " + std::to_string(a.device_type()) +
                                  " is not read here (CPU or CUDA memory)");
  }
  if (column.on_device_ && column.rows_ > 0) column.check_device_address();
  return column;
}

void Column::check_device_address() const {
  if (rows_ == 0) return;
  cudaPointerAttributes attributes{};
  const cudaError_t err = cudaPointerGetAttributes(&attributes, data_);
  if (err != cudaSuccess) {
    cudaGetLastError();
    throw std::invalid_argument(name_ + ": a device array, but CUDA cannot read its address (" +
                                cudaGetErrorString(err) + ")");
  }
  if (attributes.type != cudaMemoryTypeDevice && attributes.type != cudaMemoryTypeManaged)
    throw std::invalid_argument(name_ + ": its __cuda_array_interface__ names an address that is not device memory");
  int current = 0;
  HASHLAB_CUDA_CHECK(cudaGetDevice(&current));
  if (attributes.type == cudaMemoryTypeDevice && attributes.device != current)
    throw std::invalid_argument(name_ + ": the array lives on GPU " + std::to_string(attributes.device) +
                                ", and hashlab runs on the current device, GPU " + std::to_string(current) +
                                " (cupy.cuda.Device(n).use() or torch.cuda.set_device(n) chooses it)");
}

void Column::wait(cudaStream_t stream) const {
  if (!on_device_ || stream_ == 0 || as_stream(stream_) == stream) return;
  cudaEvent_t event = nullptr;
  HASHLAB_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  const cudaError_t recorded = cudaEventRecord(event, as_stream(stream_));
  const cudaError_t waited = recorded == cudaSuccess ? cudaStreamWaitEvent(stream, event, 0) : recorded;
  cudaEventDestroy(event);  // released once the wait has passed it
  HASHLAB_CUDA_CHECK(waited);
}

void require_rows(const std::vector<Column>& columns) {
  if (columns.empty()) return;
  const Column& first = columns.front();
  for (const Column& c : columns)
    if (c.rows() != first.rows())
      throw std::invalid_argument(c.name() + ": " + std::to_string(c.rows()) + " rows, but " + first.name() + " has " +
                                  std::to_string(first.rows()) + " (every column of a table needs as many rows)");
}

std::vector<std::uint32_t> key_vector(const Column& column) {
  if (is_real(column.dtype()))
    throw std::invalid_argument(column.name() + ": keys must be integers; the column holds floating-point numbers");
  const HostBytes bytes(column);
  if (column.dtype() == DType::kUint32) {
    const std::uint32_t* p = bytes.as<std::uint32_t>();
    return std::vector<std::uint32_t>(p, p + column.rows());
  }
  std::vector<std::uint32_t> keys(column.rows());
  const auto check = [&](std::size_t i, auto v) {
    if (v < 0 || static_cast<std::uint64_t>(v) > 0xffffffffull)
      throw std::invalid_argument(column.name() + ": row " + std::to_string(i) + " holds key " + std::to_string(v) +
                                  "; keys are unsigned 32-bit integers, 0 to 4294967295");
    keys[i] = static_cast<std::uint32_t>(v);
  };
  const std::size_t n = column.rows();
  switch (column.dtype()) {
    case DType::kInt32: for (std::size_t i = 0; i < n; ++i) check(i, bytes.as<std::int32_t>()[i]); break;
    case DType::kInt64: for (std::size_t i = 0; i < n; ++i) check(i, bytes.as<std::int64_t>()[i]); break;
    case DType::kUint64: for (std::size_t i = 0; i < n; ++i) check(i, bytes.as<std::uint64_t>()[i]); break;
    default: break;
  }
  return keys;
}

Values value_vector(const Column& column) {
  const HostBytes bytes(column);
  Values values;
  values.real = is_real(column.dtype());
  if (values.real) {
    values.reals = reals_of(column, bytes);
  } else {
    values.ints.resize(column.rows());
    for_each_int(column, bytes, [&](std::size_t i, std::int64_t v) { values.ints[i] = v; });
  }
  return values;
}

void check_groupby_input(const std::vector<Column>& keys, const std::vector<Column>& values,
                         const std::vector<Values>& value_data, std::size_t aggregations) {
  if (keys.empty()) throw std::invalid_argument("no key column given (keys)");
  if (values.empty()) throw std::invalid_argument("no value column given (values)");
  if (aggregations == 0) throw std::invalid_argument("no aggregation given (aggs)");
  std::vector<Column> all = keys;
  all.insert(all.end(), values.begin(), values.end());
  require_rows(all);
  if (keys.front().rows() == 0) throw std::invalid_argument(keys.front().name() + ": no rows");
  if (keys.size() > 8)
    throw std::invalid_argument(std::to_string(keys.size()) +
                                " key columns; at most 8 (RAPIDS' limit, which the commands keep)");
  // Exact integer sums must fit 64 bits: sum |v| over all rows bounds every group's sum.
  for (std::size_t v = 0; v < value_data.size(); ++v) {
    if (value_data[v].real) continue;
    long double total = 0;
    for (std::int64_t x : value_data[v].ints) total += x < 0 ? -static_cast<long double>(x) : static_cast<long double>(x);
    if (total >= 9.2e18L)
      throw std::invalid_argument(values[v].name() +
                                  ": the values' sum may exceed 64-bit integers; divide or convert to float64");
  }
}

template <class T>
DeviceView<T> device_view(const Column& column, cudaStream_t stream) {
  DeviceView<T> view;
  view.rows_ = column.rows();
  if (column.on_device()) {
    if (column.dtype() != dtype_of<T>())
      throw std::invalid_argument(column.name() + ": a device column of " + info(column.dtype()).name + " where " +
                                  info(dtype_of<T>()).name + " is taken; convert it on the device first (cupy: x.astype('" +
                                  info(dtype_of<T>()).name + "'), torch: x.to(torch." + info(dtype_of<T>()).name + "))");
    column.wait(stream);
    view.data_ = static_cast<const T*>(column.data());
    view.in_place_ = true;
    return view;
  }
  const std::vector<T> host = host_vector<T>(column, std::is_same_v<T, std::uint32_t> ? "keys" : "values");
  view.copy_ = DeviceBuffer<T>(host.size(), stream);
  view.copy_.copy_from_host(host.data(), host.size(), stream);
  HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream));  // `host` goes out of scope here
  view.data_ = view.copy_.data();
  return view;
}

template DeviceView<std::uint32_t> device_view<std::uint32_t>(const Column&, cudaStream_t);
template DeviceView<std::int32_t> device_view<std::int32_t>(const Column&, cudaStream_t);
template DeviceView<std::int64_t> device_view<std::int64_t>(const Column&, cudaStream_t);
template DeviceView<float> device_view<float>(const Column&, cudaStream_t);
template DeviceView<double> device_view<double>(const Column&, cudaStream_t);

template <class T>
T* device_output(const Column& column, std::size_t rows) {
  if (!column.on_device())
    throw std::invalid_argument(column.name() + ": out= takes a device array (CuPy, PyTorch, ...); a host array "
                                "is filled by leaving out out=");
  if (column.dtype() != dtype_of<T>())
    throw std::invalid_argument(column.name() + ": out= holds " + info(column.dtype()).name + "; this call writes " +
                                info(dtype_of<T>()).name);
  if (column.rows() != rows)
    throw std::invalid_argument(column.name() + ": out= holds " + std::to_string(column.rows()) + " elements; this call writes " +
                                std::to_string(rows));
  return static_cast<T*>(const_cast<void*>(column.data()));
}

template std::uint32_t* device_output<std::uint32_t>(const Column&, std::size_t);
template std::int32_t* device_output<std::int32_t>(const Column&, std::size_t);
template std::int64_t* device_output<std::int64_t>(const Column&, std::size_t);
template float* device_output<float>(const Column&, std::size_t);
template double* device_output<double>(const Column&, std::size_t);

template <class T>
nb::object numpy_matrix(std::vector<T>&& values, std::size_t rows, std::size_t columns) {
  auto* owned = new std::vector<T>(std::move(values));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  const std::size_t shape[2] = {rows, columns};
  return nb::cast(nb::ndarray<nb::numpy, T>(owned->data(), columns == 0 ? 1 : 2, shape, owner));
}

template <class T>
nb::object numpy_array(std::vector<T>&& values) {
  const std::size_t n = values.size();
  return numpy_matrix(std::move(values), n, 0);
}

template nb::object numpy_array<std::uint8_t>(std::vector<std::uint8_t>&&);
template nb::object numpy_array<std::uint32_t>(std::vector<std::uint32_t>&&);
template nb::object numpy_array<std::int32_t>(std::vector<std::int32_t>&&);
template nb::object numpy_array<std::int64_t>(std::vector<std::int64_t>&&);
template nb::object numpy_array<float>(std::vector<float>&&);
template nb::object numpy_array<double>(std::vector<double>&&);
template nb::object numpy_array<std::uint64_t>(std::vector<std::uint64_t>&&);
template nb::object numpy_matrix<std::uint32_t>(std::vector<std::uint32_t>&&, std::size_t, std::size_t);

int DeviceArray::current_device() {
  int device = 0;
  HASHLAB_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

std::size_t DeviceArray::size() const {
  std::size_t n = 1;
  for (std::size_t s : shape_) n *= s;
  return n;
}

namespace {
template <class T>
nb::object download(const void* data, std::size_t n) {
  std::vector<T> host(n);
  if (n > 0) {
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(host.data(), data, n * sizeof(T), cudaMemcpyDeviceToHost, work_stream()));
    HASHLAB_CUDA_CHECK(cudaStreamSynchronize(work_stream()));
  }
  return numpy_array(std::move(host));
}
}  // namespace

nb::object DeviceArray::to_numpy() const {
  nb::object flat;
  switch (dtype_) {
    case DType::kUint32: flat = download<std::uint32_t>(data_, size()); break;
    case DType::kInt32: flat = download<std::int32_t>(data_, size()); break;
    case DType::kUint64: flat = download<std::uint64_t>(data_, size()); break;
    case DType::kInt64: flat = download<std::int64_t>(data_, size()); break;
    case DType::kFloat32: flat = download<float>(data_, size()); break;
    case DType::kFloat64: flat = download<double>(data_, size()); break;
  }
  if (shape_.size() == 1) return flat;
  nb::list shape;
  for (std::size_t s : shape_) shape.append(s);
  return flat.attr("reshape")(nb::tuple(shape));
}

nb::dict DeviceArray::cuda_array_interface() const {
  nb::dict cai;
  nb::list shape;
  for (std::size_t s : shape_) shape.append(s);
  cai["shape"] = nb::tuple(shape);
  cai["typestr"] = typestr(dtype_);
  cai["data"] = nb::make_tuple(address(), false);
  cai["version"] = 3;
  cai["strides"] = nb::none();
  // Every call that hands out a DeviceArray has synchronised its work: nothing to wait for.
  cai["stream"] = nb::none();
  return cai;
}

nb::object DeviceArray::dlpack(nb::handle self) const {
  nb::dlpack::dtype dt{};
  dt.lanes = 1;
  dt.bits = static_cast<std::uint8_t>(8 * itemsize(dtype_));
  dt.code = static_cast<std::uint8_t>(is_real(dtype_) ? nb::dlpack::dtype_code::Float
                                      : (dtype_ == DType::kUint32 || dtype_ == DType::kUint64) ? nb::dlpack::dtype_code::UInt
                                                                                                : nb::dlpack::dtype_code::Int);
  // The capsule keeps `self` (and so the memory) alive until its consumer lets it go.
  nb::ndarray<> array(data_, shape_.size(), shape_.data(), self, nullptr, dt, nb::device::cuda::value, device_);
  return nb::cast(array, nb::rv_policy::reference);
}

void bind_columns(nb::module_& m) {
  nb::class_<Column>(m, "Column",
                     "One column as hashlab reads it: host or device memory, used in place while the "
                     "object that owns it is referenced here. Built by hashlab._arrays.column().")
      .def(nb::init<std::string, std::uintptr_t, const std::string&, std::size_t, bool, std::uintptr_t, nb::object>(),
           nb::arg("name"), nb::arg("address"), nb::arg("typestr"), nb::arg("rows"), nb::arg("on_device"),
           nb::arg("stream"), nb::arg("owner").none())
      .def_static("from_dlpack", &Column::from_dlpack, nb::arg("name"), nb::arg("capsule"), nb::arg("stream"))
      .def_prop_ro("name", &Column::name)
      .def_prop_ro("address", &Column::address)
      .def_prop_ro("typestr", [](const Column& c) { return std::string(typestr(c.dtype())); })
      .def_prop_ro("rows", &Column::rows)
      .def_prop_ro("on_device", &Column::on_device)
      .def_prop_ro("stream", &Column::producer_stream)
      .def("__repr__", [](const Column& c) {
        return "Column(" + c.name() + ", " + typestr(c.dtype()) + ", " + std::to_string(c.rows()) + " rows, " +
               (c.on_device() ? "device" : "host") + ")";
      });

  nb::class_<DeviceArray>(m, "DeviceArray",
                          "Device memory that hashlab allocated, freed when the last reference goes. "
                          "cupy.asarray(a), torch.as_tensor(a, device='cuda') and any DLPack consumer "
                          "(cupy.from_dlpack, torch.from_dlpack) take it without a copy.")
      .def_prop_ro("__cuda_array_interface__", &DeviceArray::cuda_array_interface)
      .def("__dlpack__",
           [](nb::handle self, nb::object, nb::object, nb::object, nb::object) {
             return nb::cast<const DeviceArray&>(self).dlpack(self);
           },
           nb::kw_only(), nb::arg("stream").none() = nb::none(), nb::arg("max_version").none() = nb::none(),
           nb::arg("dl_device").none() = nb::none(), nb::arg("copy").none() = nb::none())
      .def("__dlpack_device__", [](const DeviceArray& a) { return std::make_tuple(kDLCUDA, a.device()); })
      .def_prop_ro("ptr", &DeviceArray::address)
      .def("get", &DeviceArray::to_numpy, "A NumPy copy on the host (as CuPy's get()).")
      .def_prop_ro("typestr", [](const DeviceArray& a) { return std::string(typestr(a.dtype())); })
      .def_prop_ro("shape", [](const DeviceArray& a) {
        nb::list shape;
        for (std::size_t s : a.shape()) shape.append(s);
        return nb::tuple(shape);
      })
      .def_prop_ro("size", &DeviceArray::size)
      .def("__len__", [](const DeviceArray& a) { return a.shape().empty() ? 0 : a.shape().front(); })
      .def("__repr__", [](const DeviceArray& a) {
        return "DeviceArray(" + std::string(typestr(a.dtype())) + ", " + std::to_string(a.size()) + " elements on GPU " +
               std::to_string(a.device()) + ")";
      });

  m.def("device_view_info",
        [](const Column& column, const std::string& ts) {
          const auto info_of = [](const auto& view) { return std::make_tuple(reinterpret_cast<std::uintptr_t>(view.data()), view.in_place()); };
          switch (parse_typestr("typestr", ts)) {
            case DType::kUint32: return info_of(device_view<std::uint32_t>(column, work_stream()));
            case DType::kInt32: return info_of(device_view<std::int32_t>(column, work_stream()));
            case DType::kInt64: return info_of(device_view<std::int64_t>(column, work_stream()));
            case DType::kFloat32: return info_of(device_view<float>(column, work_stream()));
            case DType::kFloat64: return info_of(device_view<double>(column, work_stream()));
            default: throw std::invalid_argument("device_view_info: " + ts + " is no algorithm's element type");
          }
        },
        nb::arg("column"), nb::arg("typestr"),
        "What a GPU algorithm reads for `column` as `typestr`: (address, in_place). in_place is True when the "
        "address is the caller's device array itself, False for hashlab's copy of a host column.");
}

}  // namespace hashlab::python
