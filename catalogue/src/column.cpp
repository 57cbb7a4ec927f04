// Columns, options and statistics (column.hpp, detail.hpp).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <type_traits>

#include "detail.hpp"
#include "hashlab/common/repeats.hpp"
#include "hashlab/common/units.hpp"

namespace hashlab::catalogue {

const char* to_string(DType dtype) {
  switch (dtype) {
    case DType::kUint32: return "uint32";
    case DType::kInt32: return "int32";
    case DType::kInt64: return "int64";
    case DType::kFloat64: return "float64";
  }
  return "unknown";
}

std::size_t size_of(DType dtype) { return dtype == DType::kInt64 || dtype == DType::kFloat64 ? 8 : 4; }

const Number* Statistics::number(const std::string& name) const {
  for (const auto& n : numbers)
    if (n.name == name) return &n;
  return nullptr;
}

const Array* Statistics::array(const std::string& name) const {
  for (const auto& a : arrays)
    if (a.name == name) return &a;
  return nullptr;
}

namespace detail {

// ---- options -----------------------------------------------------------------------------------

OptionReader::OptionReader(std::string entry, const std::vector<OptionSpec>& specs, const Options& given)
    : entry_(std::move(entry)) {
  for (const auto& spec : specs) values_[spec.name] = spec.default_value;
  for (const auto& [name, value] : given) {
    if (values_.count(name) == 0) {
      std::string takes;
      for (const auto& spec : specs) takes += (takes.empty() ? "" : ", ") + spec.name;
      throw std::invalid_argument(entry_ + " takes no option '" + name + "' (" +
                                  (takes.empty() ? std::string("it takes none") : "it takes: " + takes) + ")");
    }
    values_[name] = value;
  }
}

const std::string& OptionReader::text(const std::string& name) const {
  const auto it = values_.find(name);
  if (it == values_.end()) throw std::logic_error(entry_ + ": reads an option it does not declare: " + name);
  return it->second;
}

void OptionReader::refuse(const std::string& name, const std::string& why) const {
  throw std::invalid_argument(entry_ + ": --" + name + " " + text(name) + ": " + why);
}

double OptionReader::number(const std::string& name) const {
  const std::string& t = text(name);
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size() || !std::isfinite(v)) refuse(name, "not a number");
  return v;
}

long long OptionReader::integer(const std::string& name) const {
  const std::string& t = text(name);
  char* end = nullptr;
  const long long v = std::strtoll(t.c_str(), &end, 10);
  if (t.empty() || end != t.c_str() + t.size()) refuse(name, "not a whole number");
  return v;
}

bool OptionReader::boolean(const std::string& name) const {
  const std::string& t = text(name);
  if (t == "true" || t == "1" || t == "yes") return true;
  if (t == "false" || t == "0" || t == "no") return false;
  refuse(name, "true or false");
}

std::uint64_t OptionReader::bytes(const std::string& name) const {
  const std::string& t = text(name);
  if (t == "auto" || t == "0") return 0;
  try {
    return parse_bytes(t);
  } catch (const std::invalid_argument& e) {
    refuse(name, e.what());
  }
}

const std::string& OptionReader::choice(const std::string& name, std::initializer_list<const char*> choices) const {
  const std::string& t = text(name);
  std::string all;
  for (const char* c : choices) {
    if (t == c) return t;
    all += (all.empty() ? "" : ", ") + std::string(c);
  }
  refuse(name, "one of " + all);
}

// ---- columns -----------------------------------------------------------------------------------

void require_data(const Column& column) {
  if (column.rows > 0 && column.host == nullptr && column.device == nullptr)
    throw std::invalid_argument(column.label() + ": " + std::to_string(column.rows) +
                                " rows but no data (neither a host nor a device pointer)");
}

void require_rows(const Column& column, std::size_t rows, const Column& first) {
  if (column.rows != rows)
    throw std::invalid_argument(column.label() + ": " + std::to_string(column.rows) + " rows, but " + first.label() +
                                " has " + std::to_string(rows) + " (every column of a table needs as many rows)");
  require_data(column);
}

void require_keys(const Column& column, const std::string& who) {
  if (column.dtype != DType::kUint32)
    throw std::invalid_argument(column.label() + ": " + who + " takes unsigned 32-bit keys; the column holds " +
                                to_string(column.dtype));
  require_data(column);
}

namespace {

template <class T>
constexpr const char* range_text() {
  if constexpr (std::is_same_v<T, std::uint32_t>) return "from 0 to 4294967295";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "from -2147483648 to 2147483647";
  else return "";
}

// Calls f(row, value) for each value of the host copy, as the column's own type.
template <class F>
void for_each_host_value(const Column& column, F&& f) {
  const std::size_t n = column.rows;
  switch (column.dtype) {
    case DType::kUint32: {
      const auto* v = static_cast<const std::uint32_t*>(column.host);
      for (std::size_t i = 0; i < n; ++i) f(i, v[i]);
      break;
    }
    case DType::kInt32: {
      const auto* v = static_cast<const std::int32_t*>(column.host);
      for (std::size_t i = 0; i < n; ++i) f(i, v[i]);
      break;
    }
    case DType::kInt64: {
      const auto* v = static_cast<const std::int64_t*>(column.host);
      for (std::size_t i = 0; i < n; ++i) f(i, v[i]);
      break;
    }
    case DType::kFloat64: {
      const auto* v = static_cast<const double*>(column.host);
      for (std::size_t i = 0; i < n; ++i) f(i, v[i]);
      break;
    }
  }
}

// The column's host copy, downloading a device-only one into `storage`.
Column on_host(const Column& column, std::vector<unsigned char>& storage, cudaStream_t stream) {
  if (column.host != nullptr || column.rows == 0) return column;
  storage.resize(column.rows * size_of(column.dtype));
  HASHLAB_CUDA_CHECK(cudaMemcpyAsync(storage.data(), column.device, storage.size(), cudaMemcpyDeviceToHost, stream));
  HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  Column copy = column;
  copy.host = storage.data();
  return copy;
}

}  // namespace

template <class T>
void require_fits(const Column& column, const std::string& what) {
  if (column.host == nullptr) return;
  if (is_real(column)) {
    if constexpr (std::is_integral_v<T>)
      throw std::invalid_argument(column.label() + ": " + what + " integer values (" + range_text<T>() +
                                  "); the column holds floating-point numbers");
    return;
  }
  if constexpr (std::is_integral_v<T> && sizeof(T) == 4) {
    for_each_host_value(column, [&](std::size_t row, auto v) {
      const long double x = static_cast<long double>(v);
      if (x < static_cast<long double>(std::numeric_limits<T>::min()) ||
          x > static_cast<long double>(std::numeric_limits<T>::max()))
        throw std::invalid_argument(column.label() + ": row " + std::to_string(row) + " holds " +
                                    std::to_string(static_cast<long long>(v)) + "; " + what + " values " +
                                    range_text<T>());
    });
  }
}

template <class T>
std::vector<T> host_as(const Column& column, const std::string& what, cudaStream_t stream) {
  std::vector<unsigned char> storage;
  const Column host = on_host(column, storage, stream);
  require_fits<T>(host, what);
  std::vector<T> out(host.rows);
  for_each_host_value(host, [&](std::size_t row, auto v) { out[row] = static_cast<T>(v); });
  return out;
}

template <class T>
const T* device_as(const Column& column, DeviceBuffer<T>& owned, const std::string& what, cudaStream_t stream) {
  if (column.device != nullptr && column.dtype == dtype_of<T>()) return static_cast<const T*>(column.device);
  if (column.host == nullptr && column.rows > 0)
    throw std::invalid_argument(column.label() + ": " + what + " " + to_string(dtype_of<T>()) +
                                " values; the column is " + to_string(column.dtype) +
                                " in device memory (convert it, or pass a host copy)");
  owned = to_device(host_as<T>(column, what, stream), stream);
  return owned.data();
}

template std::vector<std::uint32_t> host_as(const Column&, const std::string&, cudaStream_t);
template std::vector<std::int32_t> host_as(const Column&, const std::string&, cudaStream_t);
template std::vector<std::int64_t> host_as(const Column&, const std::string&, cudaStream_t);
template std::vector<double> host_as(const Column&, const std::string&, cudaStream_t);
template void require_fits<std::uint32_t>(const Column&, const std::string&);
template void require_fits<std::int32_t>(const Column&, const std::string&);
template void require_fits<std::int64_t>(const Column&, const std::string&);
template void require_fits<double>(const Column&, const std::string&);
template const std::uint32_t* device_as(const Column&, DeviceBuffer<std::uint32_t>&, const std::string&, cudaStream_t);
template const std::int32_t* device_as(const Column&, DeviceBuffer<std::int32_t>&, const std::string&, cudaStream_t);
template const double* device_as(const Column&, DeviceBuffer<double>&, const std::string&, cudaStream_t);

void require_no_key(const Column& keys, std::uint32_t sentinel, const std::string& who, const std::string& avoid,
                    const cudaStream_t* stream) {
  auto refuse = [&](const std::string& where) {
    throw std::invalid_argument(keys.label() + ": " + where + "key " + std::to_string(sentinel) +
                                ", the empty-slot marker of " + who + " (it cannot be a key there; remap it" +
                                (avoid.empty() ? "" : ", or use " + avoid) + ")");
  };
  if (keys.host != nullptr) {
    const auto* k = static_cast<const std::uint32_t*>(keys.host);
    const auto it = std::find(k, k + keys.rows, sentinel);
    if (it != k + keys.rows) refuse("row " + std::to_string(it - k) + " holds ");
    return;
  }
  if (stream != nullptr && keys.device != nullptr && keys.rows > 0 &&
      sentinel == std::numeric_limits<std::uint32_t>::max() &&
      device_max(static_cast<const std::uint32_t*>(keys.device), keys.rows, *stream) == sentinel)
    refuse("the device column holds ");
}

void require_no_nan(const Column& column, const std::string& who, const cudaStream_t* stream) {
  if (!is_real(column) || column.rows == 0) return;
  std::size_t row = column.rows;
  if (column.host != nullptr) {
    const auto* v = static_cast<const double*>(column.host);
    row = static_cast<std::size_t>(std::find_if(v, v + column.rows, [](double x) { return std::isnan(x); }) - v);
  } else if (stream != nullptr && column.device != nullptr) {
    row = device_first_nan(static_cast<const double*>(column.device), column.rows, *stream);
  }
  if (row < column.rows)
    throw std::invalid_argument(column.label() + ": row " + std::to_string(row) + " is NaN; " + who +
                                " has no null values (drop or fill those rows first)");
}

void require_unique(const Column& keys, const std::string& why, const cudaStream_t* stream) {
  std::optional<Repeat> repeat;
  if (keys.host != nullptr)
    repeat = cpu::first_repeat(static_cast<const std::uint32_t*>(keys.host), keys.rows);
  else if (stream != nullptr && keys.device != nullptr)
    repeat = prim::first_repeat(static_cast<const std::uint32_t*>(keys.device), keys.rows, *stream);
  if (repeat)
    throw std::invalid_argument(keys.label() + ": key " + std::to_string(repeat->key) + " appears at rows " +
                                std::to_string(repeat->first_row) + " and " + std::to_string(repeat->second_row) +
                                "; " + why);
}

std::string with_commas(std::uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace detail
}  // namespace hashlab::catalogue
