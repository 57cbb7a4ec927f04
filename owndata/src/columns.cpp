#include "hashlab/owndata/columns.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <string_view>
#include <type_traits>

#include "hashlab/common/column_io.hpp"

namespace hashlab::owndata {
namespace fs = std::filesystem;
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// FILE.csv:COLUMN splits into the file and the column (at the first ".csv:", so that a column
/// name may hold a colon); anything else is the file alone.
std::pair<std::string, std::string> split_source(const std::string& source) {
  for (const char* type : {".csv:", ".npy:"}) {
    const auto at = source.find(type);
    if (at != std::string::npos) return {source.substr(0, at + 4), source.substr(at + 5)};
  }
  return {source, ""};
}

/// `text` in single quotes, control characters escaped: names and fields in messages.
std::string in_quotes(const std::string& text) {
  std::string out = "'";
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      out += escaped;
    } else {
      out += ch;
    }
  }
  return out + "'";
}

/// A field for a message: quoted, and cut short when long.
std::string shown(std::string_view field) {
  return field.size() <= 40 ? in_quotes(std::string(field)) : in_quotes(std::string(field.substr(0, 37))) + "...";
}

bool valid_utf8(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t extra = 0;
    if (c < 0x80) extra = 0;
    else if (c >= 0xc2 && c <= 0xdf) extra = 1;
    else if (c >= 0xe0 && c <= 0xef) extra = 2;
    else if (c >= 0xf0 && c <= 0xf4) extra = 3;
    else return false;
    for (std::size_t k = 1; k <= extra; ++k)
      if (i + k >= s.size() || (static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return false;
    i += extra + 1;
  }
  return true;
}

// ---- numbers in the one plain decimal syntax -------------------------------------------------

/// What a CSV field holds.
enum class Field { kInteger, kReal, kBad };

/// -?[0-9]+ is an integer; -?[0-9]+(.[0-9]+)?([eE][+-]?[0-9]+)? with a fraction or an exponent is
/// a real; anything else is bad (`why` says what is wrong).
Field classify(std::string_view f, std::string& why) {
  if (f.empty()) {
    why = "is empty (the commands have no missing values)";
    return Field::kBad;
  }
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t start = i;
    while (i < f.size() && f[i] >= '0' && f[i] <= '9') ++i;
    return i > start;
  };
  if (f[i] == '-') ++i;
  if (!digits()) {
    const char c = f[0];
    if (c == '+') why = "has a '+' sign (numbers are written as 5 or -5)";
    else if (c == ' ' || c == '\t') why = "begins with a space (numbers are written without spaces)";
    else why = "is not a number";
    return Field::kBad;
  }
  if (i == f.size()) return Field::kInteger;
  bool real = false;
  if (f[i] == '.') {
    ++i;
    if (!digits()) {
      why = "is not a number (a decimal point needs digits on both sides: 5.0, 0.5)";
      return Field::kBad;
    }
    real = true;
  }
  if (i < f.size() && (f[i] == 'e' || f[i] == 'E')) {
    ++i;
    if (i < f.size() && (f[i] == '+' || f[i] == '-')) ++i;
    if (!digits()) {
      why = "is not a number";
      return Field::kBad;
    }
    real = true;
  }
  if (i == f.size() && real) return Field::kReal;
  if (f[i] == ' ' || f[i] == '\t') why = "ends with a space (numbers are written without spaces)";
  else if (f.size() > 1 && f[0] == '0' && (f[1] == 'x' || f[1] == 'X')) why = "is hexadecimal (write it in decimal)";
  else why = "is not a number";
  return Field::kBad;
}

/// Whether a float64 holds `v` exactly (every integer up to 2^53 in magnitude, some above).
bool exact_as_double(std::int64_t v) {
  if (v >= -(std::int64_t{1} << 53) && v <= (std::int64_t{1} << 53)) return true;
  const double d = static_cast<double>(v);
  if (d >= 9223372036854775808.0 || d < -9223372036854775808.0) return false;
  return static_cast<std::int64_t>(d) == v;
}

// ---- a column as read ------------------------------------------------------------------------

/// A column as read: keys (uint32), integers (exact) or reals, with its name. `key` says which of
/// the first two the reader was asked for.
struct RawColumn {
  std::string name;
  bool real = false;
  std::vector<std::uint32_t> keys;
  std::vector<std::int64_t> ints;
  std::vector<double> reals;
};

/// `what` ("keys", "values"): the unsigned 32-bit column the reader was asked for.
std::string range_error(const char* what, const std::string& where, const std::string& value) {
  const std::string one = std::string(what) == "keys" ? "key" : "value";
  return where + " holds " + one + " " + value + "; " + what + " here are unsigned 32-bit integers, 0 to 4294967295";
}

// ---- .npy --------------------------------------------------------------------------------------

/// A column's dtype: kind 'b' (bool), 'i', 'u' or 'f', its width in bytes, its byte order.
struct NpyType {
  char kind = 0;
  std::size_t size = 0;
  bool big_endian = false;
};

std::string dtype_name(const NpyType& t) {
  if (t.kind == 'b') return "bool";
  return std::string(t.kind == 'i' ? "int" : t.kind == 'u' ? "uint" : "float") + std::to_string(8 * t.size);
}

/// The dtype of a .npy column, or InputError saying what the file holds and how to make it a column.
NpyType npy_type(const io::NpyHeader& h, const std::string& source) {
  if (h.structured)
    throw InputError(source + ": holds a record array (dtype " + h.descr +
                     "), not one column; save each field as its own file: np.save('a.npy', r['a'])");
  const std::string& d = h.descr;
  const auto refuse = [&](const std::string& what, const std::string& how) -> NpyType {
    throw InputError(source + ": dtype '" + d + "' (" + what + ") is not a column the commands read; " + how);
  };
  if (d.size() < 2 || (d[0] != '<' && d[0] != '>' && d[0] != '|' && d[0] != '=')) return refuse("unknown", "save integers or floats");
  const char kind = d[1];
  std::size_t size = 0;
  const auto [end, ec] = std::from_chars(d.data() + 2, d.data() + d.size(), size);
  const bool plain_size = ec == std::errc() && end == d.data() + d.size();
  const std::string to_codes = "scripts/to_npy.py converts strings to dictionary codes and dates to days";
  switch (kind) {
    case 'O': return refuse("Python objects", "a column of numbers has a numeric dtype: a.astype('int64'); " + to_codes);
    case 'U':
    case 'S':
    case 'a': return refuse("strings", to_codes);
    case 'M':
    case 'm': return refuse("dates or times", to_codes + ", or a.astype('int64') gives the ticks");
    case 'c': return refuse("complex numbers", "save the real part: a.real");
    case 'V': return refuse("raw bytes", "save integers or floats");
    default: break;
  }
  NpyType t{kind, size, d[0] == '>'};
  const bool ok = plain_size && ((kind == 'b' && size == 1) || ((kind == 'i' || kind == 'u') && (size == 1 || size == 2 || size == 4 || size == 8)) ||
                                 (kind == 'f' && (size == 2 || size == 4 || size == 8)));
  if (!ok) {
    if (kind == 'f') return refuse("extended precision", "a.astype('float64') (exact only where the values fit a float64)");
    return refuse("unknown", "save integers or floats");
  }
  return t;
}

/// The rows of a .npy column, or InputError for any shape but (n,).
std::size_t npy_rows(const io::NpyHeader& h, const std::string& source) {
  std::string shape = "(";
  for (std::size_t i = 0; i < h.shape.size(); ++i) shape += std::to_string(h.shape[i]) + (h.shape.size() == 1 ? "," : i + 1 < h.shape.size() ? ", " : "");
  shape += ")";
  if (h.shape.empty()) throw InputError(source + ": holds a single value (shape ()), not a column");
  if (h.shape.size() != 1)
    throw InputError(source + ": holds an array of shape " + shape + "; a column is one-dimensional (np.save('c.npy', a[:, j]) "
                     "saves column j" + (h.shape.size() == 2 && h.shape[1] == 1 ? ", a.ravel() the only one" : "") + ")");
  return h.shape[0];
}

double half_to_double(std::uint16_t h) {
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  if (exponent == 31) return mantissa ? std::numeric_limits<double>::quiet_NaN() : sign * std::numeric_limits<double>::infinity();
  return sign * std::ldexp(mantissa + 1024, exponent - 25);
}

/// Reads the column's elements in pieces and hands each to `integer(row, int64)`,
/// `large(row, uint64)` (a uint64 above 2^63 - 1) or `real(row, double)`.
template <class Integer, class Large, class Real>
void read_npy_elements(const std::string& path, const io::NpyHeader& h, const NpyType& t, std::size_t rows,
                       const std::string& source, Integer&& integer, Large&& large, Real&& real) {
  if (h.data_bytes != rows * t.size)
    throw InputError(source + ": the header says " + std::to_string(rows) + " rows of " + std::to_string(t.size) + " bytes (" +
                     std::to_string(rows * t.size) + " bytes), but the file holds " + std::to_string(h.data_bytes) +
                     " bytes of data" + (h.data_bytes < rows * t.size ? " (truncated?)" : ""));
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(h.data_offset));
  constexpr std::size_t kPieceRows = std::size_t{1} << 16;
  std::vector<unsigned char> buffer(kPieceRows * t.size);
  for (std::size_t first = 0; first < rows; first += kPieceRows) {
    const std::size_t count = std::min(kPieceRows, rows - first);
    in.read(reinterpret_cast<char*>(buffer.data()), static_cast<std::streamsize>(count * t.size));
    if (!in) throw InputError(source + ": read failed at row " + std::to_string(first));
    for (std::size_t r = 0; r < count; ++r) {
      unsigned char bytes[8];
      std::memcpy(bytes, buffer.data() + r * t.size, t.size);
      if (t.big_endian) std::reverse(bytes, bytes + t.size);
      const std::size_t row = first + r;
      std::uint64_t u = 0;
      std::memcpy(&u, bytes, t.size);  // little endian host
      switch (t.kind) {
        case 'b': integer(row, static_cast<std::int64_t>(u != 0)); break;
        case 'u':
          if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) large(row, u);
          else integer(row, static_cast<std::int64_t>(u));
          break;
        case 'i': {
          const unsigned shift = static_cast<unsigned>(64 - 8 * t.size);  // sign-extend
          integer(row, static_cast<std::int64_t>(u << shift) >> shift);
          break;
        }
        default: {
          double x = 0;
          if (t.size == 2) x = half_to_double(static_cast<std::uint16_t>(u));
          else if (t.size == 4) {
            float f;
            std::memcpy(&f, bytes, 4);
            x = f;
          } else {
            std::memcpy(&x, bytes, 8);
          }
          real(row, x);
        }
      }
    }
  }
}

RawColumn read_npy_column(const std::string& path, const std::string& source, const char* u32) {
  const bool key = u32 != nullptr;
  io::NpyHeader h;
  try {
    h = io::read_npy_header(path);
  } catch (const io::FormatError& e) {
    throw InputError(e.what());
  }
  const NpyType t = npy_type(h, source);
  const std::size_t rows = npy_rows(h, source);
  RawColumn column;
  column.name = fs::path(path).stem().string();
  const auto row_of = [&](std::size_t row) { return source + ": row " + std::to_string(row); };
  if (key && t.kind == 'f')
    throw InputError(source + ": " + u32 + " must be integers; the file holds " + dtype_name(t) + " numbers (dtype '" + h.descr + "')");
  column.real = t.kind == 'f';
  if (key) column.keys.resize(rows);
  else if (column.real) column.reals.resize(rows);
  else column.ints.resize(rows);
  const auto too_large = [&](std::size_t row, std::uint64_t v) {
    throw InputError(key ? range_error(u32, row_of(row), std::to_string(v))
                         : row_of(row) + " holds " + std::to_string(v) + ", beyond the 64-bit signed integers the commands read");
  };
  read_npy_elements(
      path, h, t, rows, source,
      [&](std::size_t row, std::int64_t v) {
        if (!key) {
          column.ints[row] = v;
          return;
        }
        if (v < 0 || v > 0xffffffffll) throw InputError(range_error(u32, row_of(row), std::to_string(v)));
        column.keys[row] = static_cast<std::uint32_t>(v);
      },
      too_large,
      [&](std::size_t row, double x) {
        if (!std::isfinite(x))
          throw InputError(row_of(row) + " is " + (std::isnan(x) ? "NaN" : "infinite") +
                           "; the commands take finite numbers (no missing values)");
        column.reals[row] = x;
      });
  return column;
}

// ---- .csv --------------------------------------------------------------------------------------

/// A .csv column as parsed: integers until a real appears, then reals; or the first problem.
struct CsvColumn {
  bool wanted = true;
  bool real = false;
  std::vector<std::int64_t> ints;
  std::vector<double> reals;
  std::string problem;     // the first field that is not a number (reported when the column is asked for)
  std::string first_real;  // where the column became reals ("line 7 holds '1.5'")
};

struct CsvTable {
  std::vector<std::string> names;
  std::vector<CsvColumn> columns;
  std::size_t first_data_line = 2;  // the line of row 0
};

/// Splits a header record into names, as CSV quotes them ("a,b" is one name; "" a quote inside).
/// `more` supplies the next line when a quoted name spans lines.
template <class More>
std::vector<std::string> header_names(std::string line, const std::string& path, More&& more) {
  std::vector<std::string> names;
  std::string name;
  std::size_t i = 0;
  while (true) {
    name.clear();
    if (i < line.size() && line[i] == '"') {
      for (++i;; ++i) {
        if (i >= line.size()) {
          std::string next;
          if (!more(next)) throw InputError(path + ": line 1: a quoted column name is not closed");
          line += "\n" + next;
        }
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            name += '"';
            ++i;
          } else {
            ++i;
            break;
          }
        } else {
          name += line[i];
        }
      }
      if (i < line.size() && line[i] != ',')
        throw InputError(path + ": line 1: text after a quoted column name (\"" + name + "\")");
    } else {
      const auto comma = line.find(',', i);
      name = line.substr(i, comma == std::string::npos ? std::string::npos : comma - i);
      if (name.find('"') != std::string::npos)
        throw InputError(path + ": line 1: a quote inside an unquoted column name " + in_quotes(name));
      i = comma == std::string::npos ? line.size() : comma;
    }
    names.push_back(name);
    if (i >= line.size()) break;
    ++i;  // the comma
  }
  return names;
}

/// Parses a .csv file; keeps the columns named in `wanted` (all when empty).
CsvTable parse_csv(const std::string& path, const std::set<std::string>& wanted) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open for reading");
  std::string line;
  std::size_t line_number = 0;
  const auto next_line = [&](std::string& out) {
    if (!std::getline(in, out)) return false;
    ++line_number;
    if (!out.empty() && out.back() == '\r') out.pop_back();  // CRLF
    return true;
  };
  if (!next_line(line)) throw InputError(path + ": empty file (expected a header row of column names)");
  if (line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);  // a UTF-8 byte-order mark
  if (line.empty()) throw InputError(path + ": line 1 is blank (expected a header row of column names)");
  CsvTable table;
  table.names = header_names(line, path, next_line);
  table.first_data_line = line_number + 1;
  for (std::size_t c = 0; c < table.names.size(); ++c) {
    const std::string& name = table.names[c];
    const std::string where = path + ": line 1: column " + std::to_string(c + 1);
    if (name.empty()) throw InputError(where + " has no name");
    if (!valid_utf8(name) || name.find('\0') != std::string::npos)
      throw InputError(where + "'s name is not UTF-8 text");
    std::string why;
    if (classify(name, why) != Field::kBad)
      throw InputError(path + ": line 1: " + in_quotes(name) + " looks like data; the first row must name the columns");
  }
  table.columns.resize(table.names.size());
  for (std::size_t c = 0; c < table.names.size(); ++c)
    table.columns[c].wanted = wanted.empty() || wanted.count(table.names[c]) > 0;
  std::vector<std::size_t> kept;
  for (std::size_t c = 0; c < table.names.size(); ++c)
    if (table.columns[c].wanted) kept.push_back(c);
  std::size_t blank = 0;  // the line of a blank line, refused when a row follows it
  std::vector<std::string_view> fields;
  while (next_line(line)) {
    if (line.empty()) {
      if (blank == 0) blank = line_number;
      continue;
    }
    const auto at = [&] { return path + ": line " + std::to_string(line_number); };
    if (blank != 0)
      throw InputError(path + ": line " + std::to_string(blank) + " is blank, and rows follow it (a missing row?)");
    if (line.find('"') != std::string::npos)
      throw InputError(at() + ": a quoted field; data rows are read as plain numbers, without quotes");
    fields.clear();
    for (std::size_t start = 0;;) {
      const auto comma = line.find(',', start);
      fields.emplace_back(line.data() + start, (comma == std::string::npos ? line.size() : comma) - start);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (fields.size() != table.names.size())
      throw InputError(at() + ": " + std::to_string(fields.size()) + " fields, but the header names " +
                       std::to_string(table.names.size()) + " columns" +
                       (fields.size() > table.names.size() ? " (a comma inside a number, such as 1,000?)" : ""));
    for (std::size_t c : kept) {
      CsvColumn& column = table.columns[c];
      if (!column.problem.empty()) continue;
      const std::string_view field = fields[c];
      std::string why;
      const Field kind = classify(field, why);
      const auto where = [&] { return at() + ", column " + in_quotes(table.names[c]) + ": " + shown(field); };
      if (kind == Field::kBad) {
        column.problem = where() + " " + why;
        column.ints = {};
        column.reals = {};
        continue;
      }
      const char* first = field.data();
      const char* last = field.data() + field.size();
      std::int64_t v = 0;
      if (kind == Field::kInteger) {
        const auto [ptr, ec] = std::from_chars(first, last, v);
        if (ec != std::errc() || ptr != last) {
          column.problem = where() + " is beyond the 64-bit signed integers the commands read";
          continue;
        }
        if (!column.real) {
          column.ints.push_back(v);
          continue;
        }
        if (!exact_as_double(v)) {  // an integer among reals: exact as a float64?
          column.problem = where() + " is not exact as a float64, and the column holds reals (" + column.first_real + ")";
          continue;
        }
        column.reals.push_back(static_cast<double>(v));
        continue;
      }
      double x = 0;
      const auto [ptr, ec] = std::from_chars(first, last, x);  // correctly rounded, as strtod
      if (ec == std::errc::result_out_of_range) {
        // Underflow reads as the nearest float64 (0 or a subnormal), as pandas reads it; overflow is refused.
        std::string text(field);
        x = std::strtod(text.c_str(), nullptr);
      } else if (ec != std::errc() || ptr != last) {
        column.problem = where() + " is not a number";
        continue;
      }
      if (!std::isfinite(x)) {
        column.problem = where() + " is beyond the range of a float64";
        continue;
      }
      if (!column.real) {  // the column's first real: its integers so far become reals, if exact
        column.real = true;
        column.first_real = "line " + std::to_string(line_number) + " holds " + shown(field);
        column.reals.reserve(column.ints.capacity());
        for (std::size_t r = 0; r < column.ints.size(); ++r) {
          if (!exact_as_double(column.ints[r])) {
            column.problem = path + ": line " + std::to_string(table.first_data_line + r) + ", column " +
                             in_quotes(table.names[c]) + ": " + std::to_string(column.ints[r]) +
                             " is not exact as a float64, and the column holds reals (" + column.first_real + ")";
            break;
          }
          column.reals.push_back(static_cast<double>(column.ints[r]));
        }
        column.ints = {};
        if (!column.problem.empty()) {
          column.reals = {};
          continue;
        }
      }
      column.reals.push_back(x);
    }
  }
  return table;
}

RawColumn csv_column(const CsvTable& table, const std::string& path, const std::string& wanted, const std::string& source,
                     const char* u32) {
  const bool key = u32 != nullptr;
  const auto& header = table.names;
  std::size_t index = 0;
  const auto all_names = [&] {
    std::string known;
    for (const auto& n : header) known += (known.empty() ? "" : ", ") + in_quotes(n);
    return known;
  };
  if (wanted.empty()) {
    if (header.size() != 1)
      throw InputError(source + ": holds " + std::to_string(header.size()) + " columns (" + all_names() + "); name one as " +
                       path + ":<column>");
  } else {
    const auto count = std::count(header.begin(), header.end(), wanted);
    if (count == 0) throw InputError(source + ": no column " + in_quotes(wanted) + " (columns: " + all_names() + ")");
    if (count > 1) throw InputError(source + ": " + std::to_string(count) + " columns are named " + in_quotes(wanted) + "; which is meant?");
    index = static_cast<std::size_t>(std::find(header.begin(), header.end(), wanted) - header.begin());
  }
  const CsvColumn& parsed = table.columns[index];
  if (!parsed.wanted) throw std::logic_error(source + ": a column the reader was not told of");
  if (!parsed.problem.empty()) throw InputError(parsed.problem);
  RawColumn column;
  column.name = header[index];
  if (key) {
    if (parsed.real)
      throw InputError(source + ": " + u32 + " must be integers; " + parsed.first_real);
    column.keys.resize(parsed.ints.size());
    for (std::size_t r = 0; r < parsed.ints.size(); ++r) {
      const std::int64_t v = parsed.ints[r];
      if (v < 0 || v > 0xffffffffll)
        throw InputError(range_error(u32, path + ": line " + std::to_string(table.first_data_line + r) + ", column " +
                                             in_quotes(header[index]),
                                         std::to_string(v)));
      column.keys[r] = static_cast<std::uint32_t>(v);
    }
    return column;
  }
  column.real = parsed.real;
  column.ints = parsed.ints;
  column.reals = parsed.reals;
  return column;
}

/// `csv(path)` gives the file's parsed table (ColumnReader keeps each one it parsed).
template <class CsvOf>
RawColumn read_raw(const std::string& source, const char* u32, CsvOf&& csv) {
  check_source(source);
  const auto [path, wanted] = split_source(source);
  if (ends_with(path, ".npy")) return read_npy_column(path, source, u32);
  return csv_column(csv(path), path, wanted, source, u32);
}

}  // namespace

std::string source_file(const std::string& source) { return split_source(source).first; }

void check_source(const std::string& source) {
  const auto [path, wanted] = split_source(source);
  if (!ends_with(path, ".npy") && !ends_with(path, ".csv"))
    throw InputError(source + ": unknown file type (expected .npy or .csv; scripts/to_npy.py converts Parquet, Arrow and "
                              "pandas data)");
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError(source + ": no such file");
  if (fs::is_directory(path, ec)) throw InputError(source + ": is a folder, not a file");
  if (ends_with(path, ".npy") && !wanted.empty())
    throw InputError(source + ": a .npy file holds one column; give the file alone");
  if (::access(path.c_str(), R_OK) != 0) throw InputError(source + ": cannot be read (permission denied)");
}

std::size_t estimated_rows(const std::string& source) {
  const auto [path, wanted] = split_source(source);
  if (ends_with(path, ".npy")) {
    try {
      const io::NpyHeader h = io::read_npy_header(path);
      return h.shape.size() == 1 ? h.shape[0] : 0;
    } catch (const io::FormatError&) {
      return 0;  // reading it will say what is wrong
    }
  }
  // A .csv file: its size over the mean length of its first lines.
  std::ifstream in(path, std::ios::binary);
  std::string line;
  std::size_t lines = 0, bytes = 0;
  std::getline(in, line);  // the header
  const std::size_t header_bytes = line.size() + 1;
  while (lines < 1000 && std::getline(in, line)) {
    ++lines;
    bytes += line.size() + 1;
  }
  std::error_code ec;
  const std::size_t size = static_cast<std::size_t>(fs::file_size(path, ec));
  if (lines == 0 || ec || size <= header_bytes) return lines;
  return static_cast<std::size_t>(static_cast<double>(size - header_bytes) / (static_cast<double>(bytes) / lines)) + 1;
}

std::size_t bytes_to_read(const std::string& source, bool key) {
  const std::size_t rows = estimated_rows(source);
  // A .csv column is parsed into 8-byte numbers, which the reader keeps, and then copied out.
  const bool csv = ends_with(source_file(source), ".csv");
  return rows * ((key ? 4 : 8) + (csv ? 8 : 0));
}

struct ColumnReader::CsvFiles {
  std::map<std::string, std::set<std::string>> wanted;  // a path's columns the reader will be asked for
  std::map<std::string, CsvTable> parsed;
  const CsvTable& operator()(const std::string& path) {
    auto it = parsed.find(path);
    if (it == parsed.end()) {
      const auto w = wanted.find(path);
      it = parsed.emplace(path, parse_csv(path, w == wanted.end() ? std::set<std::string>{} : w->second)).first;
    }
    return it->second;
  }
};

ColumnReader::ColumnReader() : csv_(std::make_unique<CsvFiles>()) {}
ColumnReader::ColumnReader(const std::vector<std::string>& sources) : csv_(std::make_unique<CsvFiles>()) {
  std::set<std::string> whole;  // files named alone: their one column, whatever its name
  for (const auto& source : sources) {
    const auto [path, column] = split_source(source);
    if (!ends_with(path, ".csv")) continue;
    if (column.empty()) whole.insert(path);
    else csv_->wanted[path].insert(column);
  }
  for (const auto& path : whole) csv_->wanted.erase(path);  // every column kept
}
ColumnReader::~ColumnReader() = default;

KeyColumn ColumnReader::key_column(const std::string& source) { return uint32_column(source, "keys"); }

KeyColumn ColumnReader::uint32_column(const std::string& source, const char* what) {
  RawColumn raw = read_raw(source, what, *csv_);
  return KeyColumn{raw.name, source, std::move(raw.keys)};
}

ValueColumn ColumnReader::value_column(const std::string& source) {
  RawColumn raw = read_raw(source, nullptr, *csv_);
  return ValueColumn{raw.name, source, raw.real, std::move(raw.ints), std::move(raw.reals)};
}

KeyColumn read_key_column(const std::string& source) { return ColumnReader().key_column(source); }
ValueColumn read_value_column(const std::string& source) { return ColumnReader().value_column(source); }

catalogue::Column to_column(const KeyColumn& column) {
  catalogue::Column c = catalogue::Column::on_host(column.data, column.name);
  c.source = column.source;
  return c;
}

catalogue::Column to_column(const ValueColumn& column) {
  catalogue::Column c = column.real ? catalogue::Column::on_host(column.reals, column.name)
                                    : catalogue::Column::on_host(column.ints, column.name);
  c.source = column.source;
  return c;
}

KeyColumn row_numbers(std::size_t rows, const std::string& name) {
  KeyColumn c{name, "(row numbers)", std::vector<std::uint32_t>(rows)};
  std::iota(c.data.begin(), c.data.end(), 0u);
  return c;
}

std::size_t OutputColumn::rows() const {
  switch (type) {
    case Type::kUint32: return u32.size();
    case Type::kInt64: return i64.size();
    case Type::kFloat64: return f64.size();
  }
  return 0;
}

void check_output_path(const std::string& path, const std::vector<std::string>& sources) {
  if (!ends_with(path, ".csv") && !ends_with(path, ".npy"))
    throw InputError("--out " + path + ": unknown output type (expected .csv or .npy)");
  const fs::path parent = fs::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty() && !fs::is_directory(parent, ec))
    throw InputError("--out " + path + ": the folder " + parent.string() + " does not exist");
  if (fs::is_directory(path, ec)) throw InputError("--out " + path + ": is a folder; --out names a file");
  // The file is written beside --out and renamed over it: the folder must take a new file.
  if (::access(parent.empty() ? "." : parent.c_str(), W_OK) != 0)
    throw InputError("--out " + path + ": the folder " + (parent.empty() ? std::string(".") : parent.string()) +
                     " is not writable");
  if (!fs::exists(path, ec)) return;
  for (const auto& source : sources) {
    const std::string input = source_file(source);
    if (fs::exists(input, ec) && fs::equivalent(path, input, ec))
      throw InputError("--out " + path + " is the input file " + input +
                       (fs::path(path).lexically_normal() == fs::path(input).lexically_normal() ? "" : " (the same file)") +
                       "; writing it would overwrite the input: name another file");
  }
}

void check_output_names(const std::vector<std::string>& names, const std::vector<std::string>& origin) {
  const auto from = [&](std::size_t i) { return i < origin.size() && !origin[i].empty() ? " (" + origin[i] + ")" : ""; };
  std::map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string& n = names[i];
    if (n.empty()) throw InputError("an output column has no name" + from(i));
    if (!valid_utf8(n) || n.find('\0') != std::string::npos)
      throw InputError("the output column name " + in_quotes(n) + from(i) + " is not UTF-8 text; rename the file");
    const auto [it, fresh] = seen.emplace(n, i);
    if (!fresh)
      throw InputError("two output columns would be named " + in_quotes(n) + from(it->second) + from(i) +
                       "; a file's name names its column: give each column a file of its own name");
  }
}

namespace {

/// A CSV name as CSV quotes it when it must: a comma, a quote or a line break inside.
std::string csv_name(const std::string& name) {
  if (name.find_first_of(",\"\r\n") == std::string::npos) return name;
  std::string out = "\"";
  for (const char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

/// The shortest text that reads back to the same float64, with ".0" where it would read as an integer.
void append_real(std::string& out, double x) {
  char text[64];
  const auto [end, ec] = std::to_chars(text, text + sizeof text, x);
  std::string s(text, ec == std::errc() ? end : text);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // "n": inf and nan have no digits to mark
  out += s;
}

template <class T>
void append_integer(std::string& out, T v) {
  char text[32];
  const auto [end, ec] = std::to_chars(text, text + sizeof text, v);
  out.append(text, end);
}

/// A temporary name beside `path` (same folder: the rename is atomic).
std::string partial_name(const std::string& path) {
  return path + ".partial-" + std::to_string(::getpid());
}

}  // namespace

void write_table(const std::string& path, const std::vector<OutputColumn>& columns) {
  const std::size_t rows = columns.empty() ? 0 : columns.front().rows();
  for (const auto& c : columns)
    if (c.rows() != rows) throw InputError(path + ": output columns of unequal length (a bug; please report)");
  check_output_path(path);
  std::vector<std::string> names;
  for (const auto& c : columns) names.push_back(c.name);
  check_output_names(names);
  const std::string partial = partial_name(path);
  try {
    if (ends_with(path, ".csv")) {
      std::ofstream out(partial, std::ios::binary);
      if (!out) throw std::runtime_error(path + ": cannot open " + partial + " for writing");
      std::string text;
      for (std::size_t c = 0; c < columns.size(); ++c) text += (c ? "," : "") + csv_name(columns[c].name);
      text += '\n';
      for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t c = 0; c < columns.size(); ++c) {
          if (c) text += ',';
          const auto& col = columns[c];
          if (col.type == OutputColumn::Type::kUint32) append_integer(text, col.u32[r]);
          else if (col.type == OutputColumn::Type::kInt64) append_integer(text, col.i64[r]);
          else append_real(text, col.f64[r]);
        }
        text += '\n';
        if (text.size() > (1u << 20)) {
          out.write(text.data(), static_cast<std::streamsize>(text.size()));
          text.clear();
        }
      }
      out.write(text.data(), static_cast<std::streamsize>(text.size()));
      out.close();
      if (!out) throw std::runtime_error(path + ": write failed (" + partial + ")");
    } else {
      std::string descr = "[";
      std::size_t record = 0;
      for (const auto& c : columns) {
        const bool u = c.type == OutputColumn::Type::kUint32;
        descr += "(" + io::npy_field_name(c.name) + ", '" + (u ? "<u4" : c.type == OutputColumn::Type::kInt64 ? "<i8" : "<f8") + "'), ";
        record += u ? 4 : 8;
      }
      descr += "]";
      std::vector<char> piece;
      io::write_npy_records(partial, descr, rows, [&](std::ostream& out, std::size_t first, std::size_t count) {
        piece.resize(count * record);
        std::size_t offset = 0;
        for (const auto& c : columns) {
          const std::size_t width = c.type == OutputColumn::Type::kUint32 ? 4 : 8;
          const char* base = c.type == OutputColumn::Type::kUint32 ? reinterpret_cast<const char*>(c.u32.data())
                             : c.type == OutputColumn::Type::kInt64 ? reinterpret_cast<const char*>(c.i64.data())
                                                                    : reinterpret_cast<const char*>(c.f64.data());
          for (std::size_t r = 0; r < count; ++r) std::memcpy(piece.data() + r * record + offset, base + (first + r) * width, width);
          offset += width;
        }
        out.write(piece.data(), static_cast<std::streamsize>(piece.size()));
      });
    }
    fs::rename(partial, path);
  } catch (...) {
    std::error_code ec;
    fs::remove(partial, ec);
    throw;
  }
}

}  // namespace hashlab::owndata
