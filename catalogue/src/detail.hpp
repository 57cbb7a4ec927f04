// Internal: what the entries share to read their options and columns (column.hpp's rules: device
// copies in place, host copies uploaded, CPU algorithms on host copies).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

#include "hashlab/catalogue/column.hpp"
#include "hashlab/common/memory.hpp"

namespace hashlab::catalogue::detail {

// ---- options -----------------------------------------------------------------------------------

/// An entry's options: the given ones checked against the entry's specs (an unknown name is
/// std::invalid_argument naming the ones it takes), the others at their defaults.
class OptionReader {
 public:
  OptionReader(std::string entry, const std::vector<OptionSpec>& specs, const Options& given);
  const std::string& text(const std::string& name) const;
  double number(const std::string& name) const;               // a finite number
  long long integer(const std::string& name) const;           // a whole number
  bool boolean(const std::string& name) const;                // true/false, 1/0, yes/no
  std::uint64_t bytes(const std::string& name) const;         // "2GiB", "512MiB", "1e9"; "auto" is 0
  /// The value, one of `choices`; std::invalid_argument naming them otherwise.
  const std::string& choice(const std::string& name, std::initializer_list<const char*> choices) const;
  /// std::invalid_argument "<entry>: --<name> <value>: <why>".
  [[noreturn]] void refuse(const std::string& name, const std::string& why) const;

 private:
  std::string entry_;
  Options values_;
};

// ---- columns -----------------------------------------------------------------------------------

/// std::invalid_argument unless `column` has `rows` rows (naming it and `first`).
void require_rows(const Column& column, std::size_t rows, const Column& first);
/// std::invalid_argument unless `column` holds uint32 keys in host or device memory.
void require_keys(const Column& column, const std::string& who);
/// std::invalid_argument unless the column has a copy somewhere (host or device) for its rows.
void require_data(const Column& column);

/// The column's values on the host as T, converted from its own type: integers checked to fit T
/// (std::invalid_argument naming the row and the value: "<source>: row 3 holds -1; <what> values
/// from 0 to 4294967295"), reals refused for an integer T ("<what> integer values ...; the column
/// holds floating-point numbers"). Downloads a device-only column (synchronises `stream`).
template <class T>
std::vector<T> host_as(const Column& column, const std::string& what, cudaStream_t stream);
/// The checks of host_as alone, on the host copy (a device-only column is not read).
template <class T>
void require_fits(const Column& column, const std::string& what);
/// Whether the column holds floating-point values.
inline bool is_real(const Column& column) { return column.dtype == DType::kFloat64; }

/// A column's values on the device as T: the column's device copy in place when it has one of
/// type T; else its host values converted and checked (host_as) and uploaded into `owned`.
/// std::invalid_argument for a device-only column of another type.
template <class T>
const T* device_as(const Column& column, DeviceBuffer<T>& owned, const std::string& what, cudaStream_t stream);

/// std::invalid_argument "<source>: row <r> holds key <key>, the empty-slot marker of <who>
/// (...; <avoid>)" when a host key column holds `sentinel`. A device-only column is checked on the
/// device when a stream is given (its largest key against the sentinel, which is the largest
/// uint32: synchronises), and not read otherwise (an entry's check() reads host columns only).
void require_no_key(const Column& keys, std::uint32_t sentinel, const std::string& who, const std::string& avoid,
                    const cudaStream_t* stream);
/// The largest value of a device uint32 column (synchronises).
std::uint32_t device_max(const std::uint32_t* values, std::size_t n, cudaStream_t stream);

/// std::invalid_argument "<source>: row <r> is NaN; <who> has no null values ..." for the first
/// NaN of a float64 column: the host copy scanned when there is one, else the device copy when a
/// stream is given (one pass on the device, the first NaN's row read back: synchronises). Other
/// types and a device-only column without a stream (an entry's check()) are not read.
void require_no_nan(const Column& column, const std::string& who, const cudaStream_t* stream);
/// The first row of a device float64 column that holds a NaN, n when none (synchronises).
std::size_t device_first_nan(const double* values, std::size_t n, cudaStream_t stream);

/// std::invalid_argument "<source>: key K appears at rows A and B; <why>" for a repeated key (the
/// smallest that repeats, at its first two rows: repeats.hpp): the host copy searched when there
/// is one, else the device copy when a stream is given (sorted in a copy, the column only read:
/// synchronises), with the same words. A device-only column without a stream (an entry's check())
/// is not read.
void require_unique(const Column& keys, const std::string& why, const cudaStream_t* stream);

/// A statistic spec, a number, an array.
inline StatisticSpec number_spec(std::string name, std::string unit, std::string description) {
  return {std::move(name), std::move(unit), std::move(description), false};
}
inline StatisticSpec array_spec(std::string name, std::string unit, std::string description) {
  return {std::move(name), std::move(unit), std::move(description), true};
}

/// The entry of `entries` named `name`: std::invalid_argument "unknown <what> '<name>' (choices:
/// <every name>[; <hint>])" when there is none.
template <class Entry>
const Entry& find_entry(const std::vector<Entry>& entries, const std::string& name, const std::string& what,
                        const std::string& hint = "") {
  std::string choices;
  for (const auto& e : entries) {
    if (e.name == name) return e;
    choices += (choices.empty() ? "" : ", ") + e.name;
  }
  throw std::invalid_argument("unknown " + what + " '" + name + "' (choices: " + choices +
                              (hint.empty() ? "" : "; " + hint) + ")");
}

/// "1,234,567" for messages.
std::string with_commas(std::uint64_t n);

}  // namespace hashlab::catalogue::detail
