// Columns from the user's files for the own-data commands (`hashlab groupby / join / table`):
// a .npy file (a one-dimensional array of any integer, bool or float dtype numpy writes), a
// single-column .csv file, or one column of a .csv file named as FILE.csv:COLUMN. A column is
// read exactly or refused: every error names the file, and the row (.npy, counted from 0 as numpy
// does) or the line (.csv, counted from 1 as editors do). README.md, "Your own data", says what is
// read and what is refused; tests/test_inputs.py holds every case against pandas.
//
//   KeyColumn k = read_key_column("k1.npy");        // integers in [0, 2^32)
//   ValueColumn v = read_value_column("v.csv:price");  // integers (exact) or reals
//   write_table("out.csv", {{"k1", k.data}, ...});   // .csv, or a structured .npy (numpy record array)
//
// A .csv file: a header row of names, then rows of as many comma-separated fields. Each column
// takes its own type: integers when every field is an integer (-?[0-9]+, read exactly in 64 bits),
// else reals (-?[0-9]+(.[0-9]+)?([eE][+-]?[0-9]+)?, as float64; an integer there must be exact
// in a float64). Anything else is refused: a sign '+', spaces around a number, 0x10, inf, nan,
// an empty field, 1,000, quotes in a data row, a blank line between rows. A UTF-8 byte-order mark
// and CRLF line ends are read; names may be quoted as CSV quotes them ("a,b").
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

/// Reads integer keys (any integer or bool dtype, or a .csv column of integers); throws
/// InputError naming the file for a float dtype or column, a value outside [0, 2^32), or a file
/// that does not parse.
KeyColumn read_key_column(const std::string& source);
/// Reads values: integers exactly (uint64 above 2^63 - 1 is an error), floats as double (float16
/// and float32 widened exactly); NaN and infinities are errors (the commands have no nulls).
ValueColumn read_value_column(const std::string& source);

/// The same for the columns of one command: a .csv file that several FILE.csv:COLUMN sources name
/// is parsed once, and kept while the reader lives. Constructed with the sources it will be asked
/// for, it keeps only those columns of each .csv file.
class ColumnReader {
 public:
  ColumnReader();
  explicit ColumnReader(const std::vector<std::string>& sources);
  ~ColumnReader();
  KeyColumn key_column(const std::string& source);
  /// An unsigned 32-bit column, `what` ("values") naming it in errors (key_column: "keys").
  KeyColumn uint32_column(const std::string& source, const char* what);
  ValueColumn value_column(const std::string& source);

 private:
  struct CsvFiles;
  std::unique_ptr<CsvFiles> csv_;
};

/// The columns as the catalogue reads them: views of their data (which must outlive them), named
/// by the column and labelled by its file in errors.
catalogue::Column to_column(const KeyColumn& column);
catalogue::Column to_column(const ValueColumn& column);

/// The file of a source: "t.csv" of "t.csv:price", the source itself otherwise.
std::string source_file(const std::string& source);

/// Throws InputError unless the source's file exists and is a .npy or .csv file (checked before
/// any is read, so that a typo in the last one costs no reading).
void check_source(const std::string& source);

/// About how many rows the source holds, read from a .npy header or estimated from a .csv file's
/// size and first lines, and the host memory that reading it takes (`key`: as keys, else as
/// values), for the host-memory check before reading.
std::size_t estimated_rows(const std::string& source);
std::size_t bytes_to_read(const std::string& source, bool key);

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

/// Throws InputError unless `path` ends in .csv or .npy, its folder exists, and it is none of
/// the input files (`sources`; the same file through another path, a link or a hard link
/// included): checked before a command reads or runs anything, so that a typo costs no run and
/// no input is overwritten.
void check_output_path(const std::string& path, const std::vector<std::string>& sources = {});

/// Throws InputError unless `names` can name the output's columns: each non-empty, valid UTF-8
/// without NUL, and no two alike (numpy refuses a record array with a repeated field name).
/// `origin` (optional, one per name) says where each name came from, for the error.
void check_output_names(const std::vector<std::string>& names, const std::vector<std::string>& origin = {});

/// Writes the columns as a CSV file (header row, then records) or as a .npy record array
/// (numpy.load(path) gives a structured array; pandas.DataFrame(numpy.load(path)) the table).
/// A CSV name holding a comma, a quote or a line break is quoted as CSV quotes it; reals are
/// written in the fewest digits that read back to the same float64 (with ".0" or an exponent, so
/// that pandas reads them as floats). The file is written beside `path` and renamed over it when
/// complete: a failed write leaves what was there. Throws InputError for another extension,
/// names check_output_names refuses, or columns of unequal length.
void write_table(const std::string& path, const std::vector<OutputColumn>& columns);

}  // namespace hashlab::owndata
