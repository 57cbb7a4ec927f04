// Columns from the user's files for the own-data commands (`hashlab groupby / join / table`):
// a .npy file (any integer or floating dtype numpy writes for a column), a single-column .csv
// file, or one column of a .csv file named as FILE.csv:COLUMN. Every error names the file.
//
//   KeyColumn k = read_key_column("k1.npy");        // integers in [0, 2^32)
//   ValueColumn v = read_value_column("v.csv:price");  // integers (exact) or reals
//   write_table("out.csv", {{"k1", k.data}, ...});   // .csv, or a structured .npy (numpy record array)
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "hashlab/catalogue/column.hpp"

namespace hashlab::owndata {

/// Bad input from the user (a file, a column, an option): the command exits with status 2.
class InputError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// A key column: unsigned 32-bit keys (every algorithm here hashes 32-bit keys).
struct KeyColumn {
  std::string name;    // the column's name: the file's stem, or the CSV column
  std::string source;  // what the user gave (for errors)
  std::vector<std::uint32_t> data;
};

/// A value column: integers kept exactly (in 64 bits), or reals.
struct ValueColumn {
  std::string name;
  std::string source;
  bool real = false;
  std::vector<std::int64_t> ints;  // !real
  std::vector<double> reals;       // real
  std::size_t rows() const { return real ? reals.size() : ints.size(); }
};

/// Reads integer keys; throws InputError naming the file for a floating dtype, a value outside
/// [0, 2^32), or a file that does not parse.
KeyColumn read_key_column(const std::string& source);
/// Reads values: integer dtypes exactly (uint64 above 2^63 - 1 is an error), floating ones as
/// double (NaN is an error: the group-bys have no null semantics).
ValueColumn read_value_column(const std::string& source);

/// The same for the columns of one command: a .csv file that several FILE.csv:COLUMN sources name
/// is parsed once, and kept while the reader lives.
class ColumnReader {
 public:
  ColumnReader();
  ~ColumnReader();
  KeyColumn key_column(const std::string& source);
  ValueColumn value_column(const std::string& source);

 private:
  struct CsvFiles;
  std::unique_ptr<CsvFiles> csv_;
};

/// The columns as the catalogue reads them: views of their data (which must outlive them), named
/// by the column and labelled by its file in errors.
catalogue::Column to_column(const KeyColumn& column);
catalogue::Column to_column(const ValueColumn& column);

/// Row numbers 0..rows-1 as a key column named `name` (a join or table without a value file).
KeyColumn row_numbers(std::size_t rows, const std::string& name);

/// One output column.
struct OutputColumn {
  enum class Type { kUint32, kInt64, kFloat64 };
  std::string name;
  Type type = Type::kInt64;
  std::vector<std::uint32_t> u32;
  std::vector<std::int64_t> i64;
  std::vector<double> f64;
  std::size_t rows() const;
};

/// Throws InputError unless `path` ends in .csv or .npy and its folder exists (checked before a
/// command runs, so that a typo costs no run).
void check_output_path(const std::string& path);

/// Writes the columns as a CSV file (header row, then records) or as a .npy record array
/// (numpy.load(path) gives a structured array; pandas.DataFrame(numpy.load(path)) the table).
/// Throws InputError for another extension or columns of unequal length.
void write_table(const std::string& path, const std::vector<OutputColumn>& columns);

}  // namespace hashlab::owndata
