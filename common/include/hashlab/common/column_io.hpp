// Reading and writing data columns as NumPy .npy files and CSV files, with errors that name the
// file and the problem. T is one of uint32_t, int32_t, uint64_t, int64_t, float, double.
#pragma once

#include <cstddef>
#include <functional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace hashlab::io {

/// A file that cannot be read as asked: missing, truncated, malformed, or of another type.
class FormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The NumPy type string of T ("<u4", "<i8", "<f8", ...).
template <class T>
const char* npy_dtype();

/// Writes a 1-D array (format version 1.0, little endian).
template <class T>
void write_npy(const std::string& path, const std::vector<T>& values);

/// Writes a .npy file of `count` elements of dtype `descr`, given as it appears in the header:
/// "'<u4'" for a column, "[('k', '<u4'), ('sum', '<i8')]" for a record array whose records are
/// `data` (packed, little endian). Format version 1.0; 3.0 (a UTF-8 header) when the header holds
/// non-ASCII field names, 2.0 when it is longer than 65535 bytes.
void write_npy_bytes(const std::string& path, const std::string& descr, std::size_t count, const void* data,
                     std::size_t bytes);

/// The same, the data given by `fill(out, first, count)`, which writes records [first, first +
/// count) to the stream, in pieces (a large table need not be held twice in memory).
void write_npy_records(const std::string& path, const std::string& descr, std::size_t count,
                       const std::function<void(std::ostream&, std::size_t, std::size_t)>& fill);

/// A record array's field name as the .npy header holds it: a Python string literal in single
/// quotes ('it\'s', 'a\nb'), non-ASCII characters as they are (UTF-8, format version 3.0).
std::string npy_field_name(const std::string& name);

/// A .npy file's header, as written.
struct NpyHeader {
  std::string descr;              // "<u4", "|b1", ">f8", "|O", "<M8[D]", ...; a record array's field list
  bool structured = false;        // descr is a field list "[('a', '<i4'), ...]"
  std::vector<std::size_t> shape;  // () for a single value
  bool fortran_order = false;
  std::size_t data_offset = 0;    // where the data begin
  std::size_t data_bytes = 0;     // the bytes after the header
};

/// Reads the header of a .npy file (format versions 1.0, 2.0 and 3.0). Throws FormatError when
/// the file is missing, not a .npy file, or its header cannot be read.
NpyHeader read_npy_header(const std::string& path);

/// The dtype string of a .npy file's header, little-endian form ("<u4", "<f8", "|u1", ...).
/// Throws FormatError when the file is not a .npy file.
std::string npy_file_dtype(const std::string& path);

/// The length of a .npy file's one-dimensional array, from its header alone. Throws FormatError
/// when the file is not a .npy file or its array has more dimensions.
std::size_t npy_file_rows(const std::string& path);

/// Reads a 1-D array whose dtype is exactly T's.
template <class T>
std::vector<T> read_npy(const std::string& path);

/// Named columns of equal length, as held by a CSV file.
template <class T>
struct Columns {
  std::vector<std::string> names;
  std::vector<std::vector<T>> columns;
  std::size_t rows() const { return columns.empty() ? 0 : columns.front().size(); }
};

/// Writes a header row of names, then one comma-separated row per record.
template <class T>
void write_csv(const std::string& path, const Columns<T>& table);

/// Reads a CSV file written as above: a header row, then rows of exactly as many numbers.
template <class T>
Columns<T> read_csv(const std::string& path);

/// One column from a .npy file or a single-column .csv file, chosen by the file's extension.
template <class T>
std::vector<T> read_column(const std::string& path);

/// One column to a .npy or .csv file, chosen by the file's extension.
template <class T>
void write_column(const std::string& path, const std::string& name, const std::vector<T>& values);

}  // namespace hashlab::io
