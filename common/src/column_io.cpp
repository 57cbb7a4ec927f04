#include "hashlab/common/column_io.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
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

// The end of the Python literal that starts at `pos` (a string, a tuple or list, possibly
// nested, or a bare word), or npos when it is not closed.
std::size_t literal_end(const std::string& text, std::size_t pos) {
  int depth = 0;
  for (std::size_t i = pos; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\'' || c == '"') {  // a string: up to its closing quote, past escaped ones
      for (++i; i < text.size() && text[i] != c; ++i)
        if (text[i] == '\\') ++i;
      if (i >= text.size()) return std::string::npos;
      if (depth == 0) return i + 1;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) return i;  // the end of the enclosing dict: a bare word ends here
      if (--depth == 0) return i + 1;
    } else if (c == ',' && depth == 0) {
      return i;
    }
  }
  return depth == 0 ? text.size() : std::string::npos;
}

// The value of `key` in a NumPy header dict such as {'descr': '<u4', 'fortran_order': False, ...}:
// a string's contents, or the literal as written (a shape, a record array's field list, a word).
// Only the dict's own keys are looked at, not names inside a record array's field list.
std::string header_field(const std::string& header, const std::string& key, const std::string& path) {
  std::size_t pos = header.find('{');
  if (pos == std::string::npos) fail(path, "npy header is not a dict");
  ++pos;
  while (true) {
    while (pos < header.size() && (header[pos] == ' ' || header[pos] == ',')) ++pos;
    if (pos >= header.size() || header[pos] == '}') fail(path, "npy header has no '" + key + "' field");
    const std::size_t key_end = literal_end(header, pos);
    if (key_end == std::string::npos) fail(path, "npy header is not closed");
    const std::string this_key = header.substr(pos, key_end - pos);
    pos = header.find(':', key_end);
    if (pos == std::string::npos) fail(path, "npy header field " + this_key + " has no value");
    ++pos;
    while (pos < header.size() && header[pos] == ' ') ++pos;
    const std::size_t value_end = literal_end(header, pos);
    if (value_end == std::string::npos) fail(path, "npy header field " + this_key + " is not closed");
    if (this_key == "'" + key + "'" || this_key == "\"" + key + "\"") {
      const std::string value = trim(header.substr(pos, value_end - pos));
      if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"')) return value.substr(1, value.size() - 2);
      return value;
    }
    pos = value_end;
  }
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
std::string read_header_text(std::ifstream& in, const std::string& path) {
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

namespace {

// The preamble and header of a .npy file of `count` records of `descr`: format 1.0, or 3.0 when
// the header holds non-ASCII bytes (UTF-8 field names), or 2.0 when longer than 1.0 allows.
std::string npy_preamble(const std::string& path, const std::string& descr, std::size_t count) {
  std::string header = "{'descr': " + descr + ", 'fortran_order': False, 'shape': (" + std::to_string(count) + ",), }";
  const bool ascii = std::all_of(header.begin(), header.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  // Pad with spaces so that magic + version + length + header is a multiple of 64, ending in \n.
  std::size_t preamble = kMagicLength + 2 + 2;
  unsigned char version = ascii ? 1 : 3;
  if (ascii && preamble + header.size() + 1 > 0xffff) version = 2;
  if (version != 1) preamble = kMagicLength + 2 + 4;
  const std::size_t total = (preamble + header.size() + 1 + 63) / 64 * 64;
  header.append(total - preamble - header.size() - 1, ' ');
  header.push_back('\n');
  if (header.size() > 0xffffffffu) fail(path, "npy header too long");
  std::string out(kMagic, kMagicLength);
  out.push_back(static_cast<char>(version));
  out.push_back('\0');
  const std::size_t length = header.size();
  for (std::size_t b = 0; b < (version == 1 ? 2u : 4u); ++b) out.push_back(static_cast<char>((length >> (8 * b)) & 0xff));
  return out + header;
}

}  // namespace

void write_npy_records(const std::string& path, const std::string& descr, std::size_t count,
                       const std::function<void(std::ostream&, std::size_t, std::size_t)>& fill) {
  const std::string preamble = npy_preamble(path, descr, count);
  std::ofstream out(path, std::ios::binary);
  if (!out) fail(path, "cannot open for writing");
  out.write(preamble.data(), static_cast<std::streamsize>(preamble.size()));
  constexpr std::size_t kPiece = std::size_t{1} << 16;
  for (std::size_t first = 0; first < count && out; first += kPiece) fill(out, first, std::min(kPiece, count - first));
  if (!out) fail(path, "write failed");
}

void write_npy_bytes(const std::string& path, const std::string& descr, std::size_t count, const void* data,
                     std::size_t bytes) {
  const std::string preamble = npy_preamble(path, descr, count);
  std::ofstream out(path, std::ios::binary);
  if (!out) fail(path, "cannot open for writing");
  out.write(preamble.data(), static_cast<std::streamsize>(preamble.size()));
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  if (!out) fail(path, "write failed");
}

std::string npy_field_name(const std::string& name) {
  std::string out = "'";
  for (const char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    if (ch == '\\' || ch == '\'') {
      out += '\\';
      out += ch;
    } else if (c < 0x20 || c == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      out += escaped;
    } else {
      out += ch;
    }
  }
  return out + "'";
}

NpyHeader read_npy_header(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string text = read_header_text(in, path);
  NpyHeader header;
  header.data_offset = static_cast<std::size_t>(in.tellg());
  in.seekg(0, std::ios::end);
  header.data_bytes = static_cast<std::size_t>(in.tellg()) - header.data_offset;
  header.descr = header_field(text, "descr", path);
  header.structured = !header.descr.empty() && header.descr.front() == '[';
  header.fortran_order = header_field(text, "fortran_order", path) == "True";
  const std::string shape = header_field(text, "shape", path);
  if (shape.size() < 2 || shape.front() != '(') fail(path, "cannot read the array shape " + shape);
  std::stringstream dims(shape.substr(1, shape.size() - 2));
  for (std::string dim; std::getline(dims, dim, ',');) {
    dim = trim(dim);
    if (dim.empty()) continue;
    if (dim.back() == 'L') dim.pop_back();  // Python 2 wrote long integers so
    std::size_t count = 0;
    if (!parse_number(dim, count)) fail(path, "cannot read the array shape " + shape);
    header.shape.push_back(count);
  }
  return header;
}

template <class T>
void write_npy(const std::string& path, const std::vector<T>& values) {
  write_npy_bytes(path, std::string("'") + npy_dtype<T>() + "'", values.size(), values.data(),
                  values.size() * sizeof(T));
}

std::string npy_file_dtype(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return header_dtype(read_header_text(in, path), path);
}

std::size_t npy_file_rows(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return header_rows(read_header_text(in, path), path);
}

template <class T>
std::vector<T> read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string header = read_header_text(in, path);
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
