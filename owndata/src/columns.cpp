#include "hashlab/owndata/columns.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <numeric>
#include <type_traits>

#include "hashlab/common/column_io.hpp"

namespace hashlab::owndata {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// FILE.csv:COLUMN splits into the file and the column; anything else is the file alone.
std::pair<std::string, std::string> split_source(const std::string& source) {
  const auto colon = source.rfind(':');
  if (colon != std::string::npos && ends_with(source.substr(0, colon), ".csv"))
    return {source.substr(0, colon), source.substr(colon + 1)};
  return {source, ""};
}

/// A column as read: integers (exact) or reals, with its name.
struct RawColumn {
  std::string name;
  bool real = false;
  std::vector<std::int64_t> ints;
  std::vector<double> reals;
};

RawColumn read_npy_column(const std::string& path, const std::string& source) {
  const std::string dtype = io::npy_file_dtype(path);
  RawColumn column;
  column.name = std::filesystem::path(path).stem().string();
  const auto to_ints = [&](auto values) { column.ints.assign(values.begin(), values.end()); };
  if (dtype == "<u4") to_ints(io::read_npy<std::uint32_t>(path));
  else if (dtype == "<i4") to_ints(io::read_npy<std::int32_t>(path));
  else if (dtype == "<i8") column.ints = io::read_npy<std::int64_t>(path);
  else if (dtype == "<u8") {
    const auto values = io::read_npy<std::uint64_t>(path);
    for (std::size_t i = 0; i < values.size(); ++i)
      if (values[i] > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        throw InputError(source + ": row " + std::to_string(i) + " holds " + std::to_string(values[i]) +
                         ", beyond the 64-bit signed integers the commands read");
    to_ints(values);
  } else if (dtype == "<f4" || dtype == "<f8") {
    column.real = true;
    if (dtype == "<f4") {
      const auto values = io::read_npy<float>(path);
      column.reals.assign(values.begin(), values.end());
    } else {
      column.reals = io::read_npy<double>(path);
    }
  } else {
    throw InputError(source + ": dtype '" + dtype +
                     "' is not read here (accepted: uint32, int32, uint64, int64, float32, float64; "
                     "numpy: a.astype('int64') or a.astype('float64'))");
  }
  return column;
}

/// A .csv file as parsed: integers when every field is one (exact), else reals.
struct CsvTable {
  bool real = false;
  io::Columns<std::int64_t> ints;
  io::Columns<double> reals;
  const std::vector<std::string>& names() const { return real ? reals.names : ints.names; }
};

CsvTable parse_csv(const std::string& path) {
  CsvTable table;
  try {
    table.ints = io::read_csv<std::int64_t>(path);
  } catch (const io::FormatError&) {
    table.real = true;
    table.reals = io::read_csv<double>(path);  // throws FormatError naming the line if not numbers
  }
  return table;
}

RawColumn csv_column(const CsvTable& table, const std::string& path, const std::string& wanted,
                     const std::string& source) {
  const auto& header = table.names();
  std::size_t index = 0;
  if (wanted.empty()) {
    if (header.size() != 1)
      throw InputError(source + ": holds " + std::to_string(header.size()) + " columns; name one as " + path +
                       ":<column>");
  } else {
    const auto it = std::find(header.begin(), header.end(), wanted);
    if (it == header.end()) {
      std::string known;
      for (const auto& n : header) known += (known.empty() ? "" : ", ") + n;
      throw InputError(source + ": no column '" + wanted + "' (columns: " + known + ")");
    }
    index = static_cast<std::size_t>(it - header.begin());
  }
  RawColumn column;
  column.name = header[index];
  if (!table.real) {
    column.ints = table.ints.columns[index];
    return column;
  }
  // A column whose every number is an integer (exactly representable) is still integers.
  const auto& reals = table.reals.columns[index];
  const bool integral = std::all_of(reals.begin(), reals.end(), [](double x) {
    return std::floor(x) == x && std::fabs(x) <= 9007199254740992.0;
  });
  column.real = !integral;
  if (integral) column.ints.assign(reals.begin(), reals.end());
  else column.reals = reals;
  return column;
}

/// `csv(path)` gives the file's parsed table (ColumnReader keeps each one it parsed).
template <class CsvOf>
RawColumn read_raw(const std::string& source, CsvOf&& csv) {
  const auto [path, wanted] = split_source(source);
  if (!std::filesystem::exists(path)) throw InputError(source + ": no such file");
  try {
    if (ends_with(path, ".npy")) {
      if (!wanted.empty()) throw InputError(source + ": a .npy file holds one column; give the file alone");
      return read_npy_column(path, source);
    }
    if (ends_with(path, ".csv")) return csv_column(csv(path), path, wanted, source);
  } catch (const io::FormatError& e) {
    throw InputError(e.what());
  }
  throw InputError(source + ": unknown file type (expected .npy or .csv; scripts/to_npy.py converts "
                            "Parquet, Arrow and pandas data)");
}

KeyColumn key_from(RawColumn raw, const std::string& source) {
  if (raw.real) throw InputError(source + ": keys must be integers; the file holds floating-point numbers");
  KeyColumn key{raw.name, source, {}};
  key.data.resize(raw.ints.size());
  for (std::size_t i = 0; i < raw.ints.size(); ++i) {
    const std::int64_t v = raw.ints[i];
    if (v < 0 || v > 0xffffffffll)
      throw InputError(source + ": row " + std::to_string(i) + " holds key " + std::to_string(v) +
                       "; keys are unsigned 32-bit integers, 0 to 4294967295");
    key.data[i] = static_cast<std::uint32_t>(v);
  }
  return key;
}

ValueColumn value_from(RawColumn raw, const std::string& source) {
  ValueColumn column{raw.name, source, raw.real, std::move(raw.ints), std::move(raw.reals)};
  for (std::size_t i = 0; i < column.reals.size(); ++i)
    if (std::isnan(column.reals[i]))
      throw InputError(source + ": row " + std::to_string(i) + " is NaN; the commands have no null values");
  return column;
}

}  // namespace

struct ColumnReader::CsvFiles {
  std::map<std::string, CsvTable> parsed;
  const CsvTable& operator()(const std::string& path) {
    auto it = parsed.find(path);
    if (it == parsed.end()) it = parsed.emplace(path, parse_csv(path)).first;
    return it->second;
  }
};

ColumnReader::ColumnReader() : csv_(std::make_unique<CsvFiles>()) {}
ColumnReader::~ColumnReader() = default;

KeyColumn ColumnReader::key_column(const std::string& source) { return key_from(read_raw(source, *csv_), source); }
ValueColumn ColumnReader::value_column(const std::string& source) {
  return value_from(read_raw(source, *csv_), source);
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

void check_output_path(const std::string& path) {
  if (!ends_with(path, ".csv") && !ends_with(path, ".npy"))
    throw InputError(path + ": unknown output type (expected .csv or .npy)");
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty() && !std::filesystem::is_directory(parent))
    throw InputError(path + ": the folder " + parent.string() + " does not exist");
  if (std::filesystem::is_directory(path)) throw InputError(path + ": is a folder; --out names a file");
}

void write_table(const std::string& path, const std::vector<OutputColumn>& columns) {
  const std::size_t rows = columns.empty() ? 0 : columns.front().rows();
  for (const auto& c : columns)
    if (c.rows() != rows) throw InputError(path + ": output columns of unequal length (a bug; please report)");
  check_output_path(path);
  try {
    if (ends_with(path, ".csv")) {
      std::ofstream out(path);
      if (!out) throw InputError(path + ": cannot open for writing");
      out.precision(std::numeric_limits<double>::max_digits10);
      for (std::size_t c = 0; c < columns.size(); ++c) out << (c ? "," : "") << columns[c].name;
      out << '\n';
      for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t c = 0; c < columns.size(); ++c) {
          if (c) out << ',';
          const auto& col = columns[c];
          if (col.type == OutputColumn::Type::kUint32) out << col.u32[r];
          else if (col.type == OutputColumn::Type::kInt64) out << col.i64[r];
          else out << col.f64[r];
        }
        out << '\n';
      }
      if (!out) throw InputError(path + ": write failed");
      return;
    }
    if (ends_with(path, ".npy")) {
      std::string descr = "[";
      std::size_t record = 0;
      for (const auto& c : columns) {
        const bool u = c.type == OutputColumn::Type::kUint32;
        descr += "('" + c.name + "', '" + (u ? "<u4" : c.type == OutputColumn::Type::kInt64 ? "<i8" : "<f8") + "'), ";
        record += u ? 4 : 8;
      }
      descr += "]";
      std::vector<unsigned char> bytes(rows * record);
      std::size_t offset = 0;
      for (const auto& c : columns) {
        const void* base = c.type == OutputColumn::Type::kUint32 ? static_cast<const void*>(c.u32.data())
                           : c.type == OutputColumn::Type::kInt64 ? static_cast<const void*>(c.i64.data())
                                                                  : static_cast<const void*>(c.f64.data());
        const std::size_t width = c.type == OutputColumn::Type::kUint32 ? 4 : 8;
        for (std::size_t r = 0; r < rows; ++r)
          std::memcpy(bytes.data() + r * record + offset, static_cast<const unsigned char*>(base) + r * width, width);
        offset += width;
      }
      io::write_npy_bytes(path, descr, rows, bytes.data(), bytes.size());
      return;
    }
  } catch (const io::FormatError& e) {
    throw InputError(e.what());
  }
  throw InputError(path + ": unknown output type (expected .csv or .npy)");
}

}  // namespace hashlab::owndata
