// What every entry of the catalogue shares: the columns it reads, the options it takes and the
// statistics it reports (catalogue.hpp shows them in use).
//
// A Column is a view: a pointer, its type and its length, in host memory, device memory or both.
// An algorithm that runs on the GPU uses a device copy in place (never copying it); given only a
// host copy it uploads one first (untimed, when it is made). A CPU algorithm reads the host copy,
// downloading the values when there is none.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace hashlab::catalogue {

/// The value types a column may hold. Keys are always kUint32.
enum class DType { kUint32, kInt32, kInt64, kFloat64 };
const char* to_string(DType dtype);  // "uint32", "int32", "int64", "float64"
std::size_t size_of(DType dtype);    // bytes per value

template <class T>
constexpr DType dtype_of();
template <>
constexpr DType dtype_of<std::uint32_t>() { return DType::kUint32; }
template <>
constexpr DType dtype_of<std::int32_t>() { return DType::kInt32; }
template <>
constexpr DType dtype_of<std::int64_t>() { return DType::kInt64; }
template <>
constexpr DType dtype_of<double>() { return DType::kFloat64; }

/// `rows` values of one type, in host memory, device memory or both (then the same values). Not
/// owning: the memory must outlive every algorithm made from it.
struct Column {
  std::string name;              // names the output ("sum_<name>") and the column in errors
  DType dtype = DType::kUint32;
  std::size_t rows = 0;
  const void* host = nullptr;    // the values in host memory, or nullptr
  const void* device = nullptr;  // the values in device memory, or nullptr
  std::string source;            // where they came from (a file), for errors; empty: the name

  /// The name errors use: the source when there is one.
  const std::string& label() const { return source.empty() ? name : source; }

  template <class T>
  static Column on_host(const T* values, std::size_t rows, std::string name = {}) {
    return {std::move(name), dtype_of<T>(), rows, values, nullptr, {}};
  }
  template <class T>
  static Column on_host(const std::vector<T>& values, std::string name = {}) {
    return on_host(values.data(), values.size(), std::move(name));
  }
  template <class T>
  static Column on_device(const T* values, std::size_t rows, std::string name = {}) {
    return {std::move(name), dtype_of<T>(), rows, nullptr, values, {}};
  }
  /// The same values in both places: each algorithm reads the copy where it runs.
  template <class T>
  static Column in_both(const std::vector<T>& host, const T* device, std::string name = {}) {
    return {std::move(name), dtype_of<T>(), host.size(), host.data(), device, {}};
  }
};

/// One option an entry takes: its name, what it does, and its default (as text).
struct OptionSpec {
  std::string name;
  std::string help;
  std::string default_value;
};

/// Options by name, each as text ("0.5", "gpu", "2GiB"). An entry reads the ones it declares,
/// fills the others with their defaults, and refuses a name it does not take
/// (std::invalid_argument naming the ones it takes).
using Options = std::map<std::string, std::string>;

/// One statistic an entry reports: a named number, or a named array.
struct StatisticSpec {
  std::string name;
  std::string unit;          // "count", "groups", "slots", "ms", "fraction", "rows", ...
  std::string description;
  bool array = false;
};

/// A statistic's value: what the algorithm counted in its last run.
struct Number {
  std::string name;
  double value = 0;
  std::string unit;
};
struct Array {
  std::string name;
  std::vector<double> values;
  std::string unit;
};
struct Statistics {
  std::vector<Number> numbers;
  std::vector<Array> arrays;
  /// The number or array called `name`, or nullptr.
  const Number* number(const std::string& name) const;
  const Array* array(const std::string& name) const;
};

}  // namespace hashlab::catalogue
