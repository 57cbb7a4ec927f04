#include "hashlab/common/column_io.hpp"

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <type_traits>

namespace hashlab::io {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLength = 6;

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw FormatError(path + ": " + why);
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  const auto last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

template <class T>
const char* type_name() {
  if constexpr (std::is_same_v<T, std::uint32_t>) return "uint32";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  else if constexpr (std::is_same_v<T, std::uint64_t>) return "uint64";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  else if constexpr (std::is_same_v<T, float>) return "float32";
  else return "float64";
}

// The value of `key` in a NumPy header dict such as {'descr': '<u4', 'fortran_order': False, ...}.
std::string header_field(const std::string& header, const std::string& key, const std::string& path) {
  const std::string quoted = "'" + key + "'";
  auto pos = header.find(quoted);
  if (pos == std::string::npos) fail(path, "npy header has no '" + key + "' field");
  pos = header.find(':', pos + quoted.size());
  if (pos == std::string::npos) fail(path, "npy header field '" + key + "' has no value");
  ++pos;
  while (pos < header.size() && header[pos] == ' ') ++pos;
  if (pos >= header.size()) fail(path, "npy header field '" + key + "' has no value");
  std::size_t end;
  if (header[pos] == '\'') {
    end = header.find('\'', pos + 1);
    if (end == std::string::npos) fail(path, "npy header field '" + key + "' is not closed");
    return header.substr(pos + 1, end - pos - 1);
  }
  if (header[pos] == '(' || header[pos] == '[') {  // a shape, or a record array's field list
    end = header.find(header[pos] == '(' ? ')' : ']', pos);
    if (end == std::string::npos) fail(path, "npy header field '" + key + "' is not closed");
    return header.substr(pos, end - pos + 1);
  }
  end = header.find_first_of(",}", pos);
  return trim(header.substr(pos, end - pos));
}

template <class T>
bool parse_number(const std::string& text, T& value) {
  if (text.empty()) return false;
  if constexpr (std::is_integral_v<T>) {
    const char* first = text.data();
    if (std::is_unsigned_v<T> && *first == '+') ++first;
    const auto [ptr, ec] = std::from_chars(first, text.data() + text.size(), value);
    return ec == std::errc() && ptr == text.data() + text.size();
  } else {
    // strtod accepts what Python and spreadsheets write ("1e-3", "inf", "nan").
    errno = 0;
    char* end = nullptr;
    const double parsed = std::strtod(text.c_str(), &end);
    // ERANGE also flags underflow to a subnormal, which is a value we can hold: refuse overflow only.
    if (end != text.c_str() + text.size()) return false;
    if (errno == ERANGE && (parsed == HUGE_VAL || parsed == -HUGE_VAL)) return false;
    value = static_cast<T>(parsed);
    return true;
  }
}

std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, ',')) fields.push_back(trim(field));
  if (!line.empty() && line.back() == ',') fields.emplace_back();
  return fields;
}

// Reads a .npy file's magic, version and header; `in` is left at the first data byte.
std::string read_npy_header(std::ifstream& in, const std::string& path) {
  if (!in) fail(path, "cannot open for reading");
  char magic[kMagicLength] = {};
  unsigned char version[2] = {};
  in.read(magic, kMagicLength);
  in.read(reinterpret_cast<char*>(version), 2);
  if (!in || std::memcmp(magic, kMagic, kMagicLength) != 0) fail(path, "not a .npy file (bad magic string)");
  std::size_t header_length = 0;
  if (version[0] == 1) {
    unsigned char len[2] = {};
    in.read(reinterpret_cast<char*>(len), 2);
    header_length = len[0] | (std::size_t{len[1]} << 8);
  } else if (version[0] == 2 || version[0] == 3) {
    unsigned char len[4] = {};
    in.read(reinterpret_cast<char*>(len), 4);
    header_length = len[0] | (std::size_t{len[1]} << 8) | (std::size_t{len[2]} << 16) | (std::size_t{len[3]} << 24);
  } else {
    fail(path, "unsupported .npy format version " + std::to_string(version[0]));
  }
  if (!in || header_length > (1u << 20)) fail(path, "truncated or corrupt .npy header");
  std::string header(header_length, '\0');
  in.read(header.data(), static_cast<std::streamsize>(header_length));
  if (!in) fail(path, "truncated .npy header");
  return header;
}

// The length of a 1-D array's header "(n,)". fortran_order is irrelevant: a one-dimensional array
// has the same bytes either way, and anything with more dimensions is refused.
std::size_t header_rows(const std::string& header, const std::string& path) {
  const std::string shape = header_field(header, "shape", path);
  std::string inner = shape.substr(1, shape.size() - 2);
  if (!inner.empty() && inner.back() == ',') inner.pop_back();
  inner = trim(inner);
  if (inner.find(',') != std::string::npos)
    fail(path, "holds an array of shape " + shape + "; a column must be one-dimensional");
  std::size_t count = 0;
  if (!parse_number(inner, count)) fail(path, "cannot read the array shape " + shape);
  return count;
}

// The dtype of a header, with the byte-order mark of one-byte and native types made '<'.
std::string header_dtype(const std::string& header, const std::string& path) {
  std::string descr = header_field(header, "descr", path);
  if (!descr.empty() && (descr[0] == '|' || descr[0] == '=')) descr[0] = '<';
  return descr;
}

}  // namespace

template <class T>
const char* npy_dtype() {
  if constexpr (std::is_same_v<T, std::uint32_t>) return "<u4";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "<i4";
  else if constexpr (std::is_same_v<T, std::uint64_t>) return "<u8";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "<i8";
  else if constexpr (std::is_same_v<T, float>) return "<f4";
  else return "<f8";
}

void write_npy_bytes(const std::string& path, const std::string& descr, std::size_t count, const void* data,
                     std::size_t bytes) {
  std::string header = "{'descr': " + descr + ", 'fortran_order': False, 'shape': (" + std::to_string(count) + ",), }";
  // Pad with spaces so that magic + version + length + header is a multiple of 64, ending in \n.
  const std::size_t preamble = kMagicLength + 2 + 2;
  const std::size_t total = (preamble + header.size() + 1 + 63) / 64 * 64;
  header.append(total - preamble - header.size() - 1, ' ');
  header.push_back('\n');
  if (header.size() > 0xffff) fail(path, "npy header too long");

  std::ofstream out(path, std::ios::binary);
  if (!out) fail(path, "cannot open for writing");
  const unsigned char version[2] = {1, 0};
  const std::uint16_t length = static_cast<std::uint16_t>(header.size());
  const unsigned char length_le[2] = {static_cast<unsigned char>(length & 0xff),
                                      static_cast<unsigned char>(length >> 8)};
  out.write(kMagic, kMagicLength);
  out.write(reinterpret_cast<const char*>(version), 2);
  out.write(reinterpret_cast<const char*>(length_le), 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  if (!out) fail(path, "write failed");
}

template <class T>
void write_npy(const std::string& path, const std::vector<T>& values) {
  write_npy_bytes(path, std::string("'") + npy_dtype<T>() + "'", values.size(), values.data(),
                  values.size() * sizeof(T));
}

std::string npy_file_dtype(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return header_dtype(read_npy_header(in, path), path);
}

std::size_t npy_file_rows(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return header_rows(read_npy_header(in, path), path);
}

template <class T>
std::vector<T> read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string header = read_npy_header(in, path);
  const std::string descr = header_dtype(header, path);
  if (descr != npy_dtype<T>())
    fail(path, std::string("holds dtype '") + descr + "', expected '" + npy_dtype<T>() + "' (" + type_name<T>() + ")");
  const std::size_t count = header_rows(header, path);

  const auto data_start = in.tellg();
  in.seekg(0, std::ios::end);
  const auto available = static_cast<std::size_t>(in.tellg() - data_start);
  if (available != count * sizeof(T))
    fail(path, "shape says " + std::to_string(count) + " elements (" + std::to_string(count * sizeof(T)) +
                   " bytes) but the file holds " + std::to_string(available) + " data bytes");
  in.seekg(data_start);
  std::vector<T> values(count);
  in.read(reinterpret_cast<char*>(values.data()), static_cast<std::streamsize>(count * sizeof(T)));
  if (!in) fail(path, "read failed");
  return values;
}

template <class T>
void write_csv(const std::string& path, const Columns<T>& table) {
  if (table.names.size() != table.columns.size()) fail(path, "as many column names as columns are needed");
  for (const auto& column : table.columns)
    if (column.size() != table.rows()) fail(path, "columns of different lengths");
  std::ofstream out(path);
  if (!out) fail(path, "cannot open for writing");
  if constexpr (std::is_floating_point_v<T>) out.precision(std::numeric_limits<T>::max_digits10);
  for (std::size_t c = 0; c < table.names.size(); ++c) out << (c ? "," : "") << table.names[c];
  out << '\n';
  for (std::size_t r = 0; r < table.rows(); ++r) {
    for (std::size_t c = 0; c < table.columns.size(); ++c) out << (c ? "," : "") << table.columns[c][r];
    out << '\n';
  }
  if (!out) fail(path, "write failed");
}

template <class T>
Columns<T> read_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail(path, "cannot open for reading");
  Columns<T> table;
  std::string line;
  if (!std::getline(in, line) || trim(line).empty()) fail(path, "empty file (expected a header row of column names)");
  table.names = split_fields(trim(line));
  for (std::size_t c = 0; c < table.names.size(); ++c) {
    T probe{};
    if (table.names[c].empty()) fail(path, "line 1: column " + std::to_string(c + 1) + " has no name");
    if (parse_number(table.names[c], probe))
      fail(path, "line 1: '" + table.names[c] + "' looks like data; the first row must name the columns");
  }
  table.columns.resize(table.names.size());
  std::size_t line_number = 1;
  while (std::getline(in, line)) {
    ++line_number;
    if (trim(line).empty()) continue;
    const auto fields = split_fields(trim(line));
    if (fields.size() != table.names.size())
      fail(path, "line " + std::to_string(line_number) + ": expected " + std::to_string(table.names.size()) +
                     " fields, found " + std::to_string(fields.size()));
    for (std::size_t c = 0; c < fields.size(); ++c) {
      T value{};
      if (!parse_number(fields[c], value))
        fail(path, "line " + std::to_string(line_number) + ", column '" + table.names[c] + "': '" + fields[c] +
                       "' is not a valid " + type_name<T>());
      table.columns[c].push_back(value);
    }
  }
  return table;
}

template <class T>
std::vector<T> read_column(const std::string& path) {
  if (ends_with(path, ".npy")) return read_npy<T>(path);
  if (ends_with(path, ".csv")) {
    auto table = read_csv<T>(path);
    if (table.columns.size() != 1)
      fail(path, "holds " + std::to_string(table.columns.size()) + " columns; exactly one was expected");
    return std::move(table.columns.front());
  }
  fail(path, "unknown column file type (expected .npy or .csv)");
}

template <class T>
void write_column(const std::string& path, const std::string& name, const std::vector<T>& values) {
  if (ends_with(path, ".npy")) return write_npy(path, values);
  if (ends_with(path, ".csv")) return write_csv(path, Columns<T>{{name}, {values}});
  fail(path, "unknown column file type (expected .npy or .csv)");
}

#define HASHLAB_INSTANTIATE_IO(T)                                                  \
  template const char* npy_dtype<T>();                                             \
  template void write_npy<T>(const std::string&, const std::vector<T>&);           \
  template std::vector<T> read_npy<T>(const std::string&);                         \
  template void write_csv<T>(const std::string&, const Columns<T>&);               \
  template Columns<T> read_csv<T>(const std::string&);                             \
  template std::vector<T> read_column<T>(const std::string&);                      \
  template void write_column<T>(const std::string&, const std::string&, const std::vector<T>&);
HASHLAB_INSTANTIATE_IO(std::uint32_t)
HASHLAB_INSTANTIATE_IO(std::int32_t)
HASHLAB_INSTANTIATE_IO(std::uint64_t)
HASHLAB_INSTANTIATE_IO(std::int64_t)
HASHLAB_INSTANTIATE_IO(float)
HASHLAB_INSTANTIATE_IO(double)
#undef HASHLAB_INSTANTIATE_IO

}  // namespace hashlab::io
