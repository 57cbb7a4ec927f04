// Column files: .npy and .csv round trips for every type, and malformed files each rejected
// with an io::FormatError that names the file and the problem.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "hashlab/common/column_io.hpp"
#include "hashlab/common/generator.hpp"
#include "hashlab/testing/gpu_test.hpp"
#include "hashlab/testing/errors.hpp"

namespace hashlab::io {
namespace {

using hashlab::testing::error_of;
using hashlab::testing::mentions;

using hashlab::testing::test_seed;

/// A fresh path under the test temp directory, unique per test.
std::string temp_path(const std::string& name) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string file = std::string("hashlab_") + info->test_suite_name() + "_" + info->name() + "_" + name;
  std::replace(file.begin(), file.end(), '/', '_');  // typed-test suite names hold a '/'
  const std::string path = ::testing::TempDir() + file;
  std::remove(path.c_str());
  return path;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

/// A .npy file with the given header dict and `data_bytes` bytes of data.
void write_raw_npy(const std::string& path, const std::string& dict, std::size_t data_bytes) {
  std::string header = dict;
  while ((10 + header.size() + 1) % 64 != 0) header.push_back(' ');
  header.push_back('\n');
  std::string file = std::string("\x93NUMPY", 6);
  file.push_back('\x01');
  file.push_back('\x00');
  file.push_back(static_cast<char>(header.size() & 0xff));
  file.push_back(static_cast<char>(header.size() >> 8));
  file += header;
  file.append(data_bytes, '\x01');
  write_text(path, file);
}

// ---- round trips ------------------------------------------------------------------------------

template <class T>
class ColumnIoRoundTrip : public ::testing::Test {};

using IoTypes = ::testing::Types<std::uint32_t, std::int32_t, std::uint64_t, std::int64_t, float, double>;
TYPED_TEST_SUITE(ColumnIoRoundTrip, IoTypes);

/// Values of T that exercise its whole range: extremes, zero, and (for floats) fractions.
template <class T>
std::vector<T> interesting_values() {
  using L = std::numeric_limits<T>;
  std::vector<T> v = {L::min(), L::max(), L::lowest(), T(0), T(1), T(42)};
  if constexpr (std::is_signed_v<T>) v.push_back(T(-7));
  if constexpr (std::is_floating_point_v<T>) {
    v.insert(v.end(), {T(0.1), T(1) / T(3), T(-2.5e-30), L::epsilon(), T(-0.0)});
  }
  return v;
}

TYPED_TEST(ColumnIoRoundTrip, NpyReturnsTheValuesWritten) {
  const std::string path = temp_path("column.npy");
  const auto values = interesting_values<TypeParam>();
  write_npy(path, values);
  EXPECT_EQ(read_npy<TypeParam>(path), values);
}

TYPED_TEST(ColumnIoRoundTrip, NpyRoundTripsAnEmptyArray) {
  const std::string path = temp_path("empty.npy");
  write_npy(path, std::vector<TypeParam>{});
  EXPECT_TRUE(read_npy<TypeParam>(path).empty());
}

TYPED_TEST(ColumnIoRoundTrip, NpyRoundTripsALargeArray) {
  const std::string path = temp_path("large.npy");
  std::vector<TypeParam> values(100003);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<TypeParam>(i * 7 % 1000);
  write_npy(path, values);
  EXPECT_EQ(read_npy<TypeParam>(path), values);
}

TYPED_TEST(ColumnIoRoundTrip, CsvReturnsTheValuesWritten) {
  const std::string path = temp_path("column.csv");
  auto values = interesting_values<TypeParam>();
  write_column(path, "x", values);
  const auto back = read_column<TypeParam>(path);
  ASSERT_EQ(back.size(), values.size());
  for (std::size_t i = 0; i < values.size(); ++i) EXPECT_EQ(back[i], values[i]) << "row " << i;
}

TYPED_TEST(ColumnIoRoundTrip, NpyHeaderNamesTheType) {
  const std::string path = temp_path("dtype.npy");
  write_npy(path, std::vector<TypeParam>{TypeParam(1)});
  std::ifstream in(path, std::ios::binary);
  const std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(file.find(npy_dtype<TypeParam>()), std::string::npos);
  EXPECT_EQ(file.size() % 64, sizeof(TypeParam) % 64);  // the header is padded to 64 bytes
}

template <class T>
void expect_subnormals_round_trip_through_csv(const std::string& path) {
  using L = std::numeric_limits<T>;
  const std::vector<T> values = {L::denorm_min(), L::min() / T(4), -L::denorm_min()};
  write_column(path, "x", values);
  EXPECT_EQ(read_column<T>(path), values);
}

TEST(ColumnIo, CsvRoundTripsSubnormalFloats) {
  expect_subnormals_round_trip_through_csv<float>(temp_path("subnormal.csv"));
}

TEST(ColumnIo, CsvRoundTripsSubnormalDoubles) {
  expect_subnormals_round_trip_through_csv<double>(temp_path("subnormal.csv"));
}

TEST(ColumnIo, NpyDtypeStringsAreNumpys) {
  EXPECT_STREQ(npy_dtype<std::uint32_t>(), "<u4");
  EXPECT_STREQ(npy_dtype<std::int32_t>(), "<i4");
  EXPECT_STREQ(npy_dtype<std::uint64_t>(), "<u8");
  EXPECT_STREQ(npy_dtype<std::int64_t>(), "<i8");
  EXPECT_STREQ(npy_dtype<float>(), "<f4");
  EXPECT_STREQ(npy_dtype<double>(), "<f8");
}

TEST(ColumnIo, CsvRoundTripsAMultiColumnTable) {
  const std::string path = temp_path("table.csv");
  Columns<std::int64_t> table;
  table.names = {"key", "value", "other"};
  table.columns = {{1, 2, 3, 4}, {-5, 0, 1LL << 40, std::numeric_limits<std::int64_t>::min()}, {7, 7, 7, 7}};
  write_csv(path, table);
  const auto back = read_csv<std::int64_t>(path);
  EXPECT_EQ(back.names, table.names);
  EXPECT_EQ(back.columns, table.columns);
  EXPECT_EQ(back.rows(), 4u);
}

TEST(ColumnIo, CsvRoundTripsRandomDoublesExactly) {
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  const std::string path = temp_path("doubles.csv");
  Columns<double> table;
  table.names = {"a", "b"};
  table.columns = {gen::generate_values_host<double>(seed, -1e6, 1e6, 2000),
                   gen::generate_values_host<double>(seed + 1, -1e-3, 1e-3, 2000)};
  write_csv(path, table);
  EXPECT_EQ(read_csv<double>(path).columns, table.columns);
}

TEST(ColumnIo, CsvRoundTripsRandomFloatsExactly) {
  const std::uint64_t seed = test_seed();
  HASHLAB_TRACE_SEED(seed);
  const std::string path = temp_path("floats.csv");
  const auto values = gen::generate_values_host<float>(seed, -1000.0f, 1000.0f, 5000);
  write_column(path, "f", values);
  EXPECT_EQ(read_column<float>(path), values);
}

TEST(ColumnIo, CsvRoundTripsAnEmptyColumn) {
  const std::string path = temp_path("empty.csv");
  write_column(path, "x", std::vector<std::uint32_t>{});
  EXPECT_TRUE(read_column<std::uint32_t>(path).empty());
}

TEST(ColumnIo, ReadColumnChoosesTheFormatByExtension) {
  const std::vector<std::uint32_t> values = {5, 4, 3, 2, 1};
  const std::string npy = temp_path("column.npy");
  const std::string csv = temp_path("column.csv");
  write_column(npy, "x", values);
  write_column(csv, "x", values);
  EXPECT_EQ(read_column<std::uint32_t>(npy), values);
  EXPECT_EQ(read_column<std::uint32_t>(csv), values);
  EXPECT_EQ(read_npy<std::uint32_t>(npy), values);  // the .npy really is NumPy's format
  EXPECT_EQ(read_csv<std::uint32_t>(csv).names, std::vector<std::string>{"x"});
}

TEST(ColumnIo, ReadsACsvWrittenByHand) {
  const std::string path = temp_path("hand.csv");
  write_text(path, "key, value\r\n1, 10\n\n2,20\r\n");
  const auto table = read_csv<std::uint32_t>(path);
  EXPECT_EQ(table.names, (std::vector<std::string>{"key", "value"}));
  EXPECT_EQ(table.columns, (std::vector<std::vector<std::uint32_t>>{{1, 2}, {10, 20}}));
}

// ---- malformed files --------------------------------------------------------------------------

TEST(ColumnIoErrors, MissingFileNamesTheFile) {
  const std::string path = temp_path("missing.npy");
  const std::string why = error_of<FormatError>([&] { read_npy<std::uint32_t>(path); });
  EXPECT_TRUE(mentions(why, path));
  EXPECT_TRUE(mentions(error_of<FormatError>([&] { read_csv<std::uint32_t>(path + ".csv"); }), path + ".csv"));
}

TEST(ColumnIoErrors, BadMagicNamesTheFileAndTheProblem) {
  const std::string path = temp_path("bad_magic.npy");
  write_text(path, "PK\x03\x04 this is a zip file, not an array");
  const std::string why = error_of<FormatError>([&] { read_npy<std::uint32_t>(path); });
  EXPECT_TRUE(mentions(why, path));
  EXPECT_TRUE(mentions(why, "magic"));
}

TEST(ColumnIoErrors, TruncatedDataNamesTheFileAndTheSizes) {
  const std::string path = temp_path("truncated.npy");
  write_raw_npy(path, "{'descr': '<u4', 'fortran_order': False, 'shape': (10,), }", 4 * 10 - 3);
  const std::string why = error_of<FormatError>([&] { read_npy<std::uint32_t>(path); });
  EXPECT_TRUE(mentions(why, path));
  EXPECT_TRUE(mentions(why, "10 elements"));
  EXPECT_TRUE(mentions(why, "37"));
}

TEST(ColumnIoErrors, TruncatedHeaderIsAFormatError) {
  const std::string path = temp_path("short_header.npy");
  write_text(path, std::string("\x93NUMPY\x01\x00\x76\x00{'descr'", 17));
  EXPECT_TRUE(mentions(error_of<FormatError>([&] { read_npy<std::uint32_t>(path); }), path));
}

TEST(ColumnIoErrors, WrongDtypeNamesBothTypes) {
  const std::string path = temp_path("doubles.npy");
  write_npy(path, std::vector<double>{1.0, 2.0});
  const std::string why = error_of<FormatError>([&] { read_npy<std::uint32_t>(path); });
  EXPECT_TRUE(mentions(why, path));
  EXPECT_TRUE(mentions(why, "<f8"));
  EXPECT_TRUE(mentions(why, "<u4"));
}

TEST(ColumnIoErrors, TwoDimensionalArrayIsRejected) {
  const std::string path = temp_path("matrix.npy");
  write_raw_npy(path, "{'descr': '<u4', 'fortran_order': False, 'shape': (2, 3), }", 4 * 6);
  const std::string why = error_of<FormatError>([&] { read_npy<std::uint32_t>(path); });
  EXPECT_TRUE(mentions(why, path));
  EXPECT_TRUE(mentions(why, "(2, 3)"));
}

// ---- headers as written, and record arrays whose names need escaping ----------------------------

TEST(NpyHeader, ReadsTheDtypeShapeOrderAndWhereTheDataBegin) {
  const std::string path = temp_path("header.npy");
  write_raw_npy(path, "{'descr': '>i2', 'fortran_order': True, 'shape': (5,), }", 10);
  const NpyHeader h = read_npy_header(path);
  EXPECT_EQ(h.descr, ">i2");
  EXPECT_FALSE(h.structured);
  EXPECT_TRUE(h.fortran_order);
  EXPECT_EQ(h.shape, std::vector<std::size_t>{5});
  EXPECT_EQ(h.data_offset % 64, 0u);  // write_raw_npy pads as numpy does
  EXPECT_EQ(h.data_bytes, 10u);
  write_raw_npy(path, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", 8);
  EXPECT_TRUE(read_npy_header(path).shape.empty());
  write_raw_npy(path, "{'descr': '<u4', 'fortran_order': False, 'shape': (2, 3), }", 24);
  EXPECT_EQ(read_npy_header(path).shape, (std::vector<std::size_t>{2, 3}));
}

// A field named 'shape' inside a record array's field list is not the dict's shape.
TEST(NpyHeader, ReadsOnlyTheDictsOwnKeys) {
  const std::string path = temp_path("fields.npy");
  write_raw_npy(path, "{'descr': [('shape', '<i4'), ('descr', '<f8')], 'fortran_order': False, 'shape': (3,), }", 36);
  const NpyHeader h = read_npy_header(path);
  EXPECT_TRUE(h.structured);
  EXPECT_EQ(h.descr, "[('shape', '<i4'), ('descr', '<f8')]");
  EXPECT_EQ(h.shape, std::vector<std::size_t>{3});
}

TEST(NpyFieldName, IsAPythonStringLiteral) {
  EXPECT_EQ(npy_field_name("sum_v"), "'sum_v'");
  EXPECT_EQ(npy_field_name("it's"), "'it\\'s'");
  EXPECT_EQ(npy_field_name("a\\b"), "'a\\\\b'");
  EXPECT_EQ(npy_field_name("a\nb"), "'a\\x0ab'");
  EXPECT_EQ(npy_field_name("prix_\xc3\xa9"), "'prix_\xc3\xa9'");  // UTF-8 as it is
}

// Non-ASCII field names need format 3.0 (a UTF-8 header); ASCII ones stay in 1.0; every header
// ends in a newline at a multiple of 64 bytes.
TEST(NpyWrite, PicksTheFormatVersionTheHeaderNeeds) {
  const std::string ascii = temp_path("ascii.npy"), utf8 = temp_path("utf8.npy");
  const std::uint32_t data[2] = {7, 8};
  write_npy_bytes(ascii, "[('k', '<u4')]", 2, data, sizeof data);
  write_npy_bytes(utf8, "[(" + npy_field_name("cl\xc3\xa9") + ", '<u4')]", 2, data, sizeof data);
  for (const auto& [path, version] : {std::pair<std::string, int>{ascii, 1}, {utf8, 3}}) {
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_GT(bytes.size(), 8u);
    EXPECT_EQ(static_cast<int>(bytes[6]), version) << path;
    const NpyHeader h = read_npy_header(path);
    EXPECT_EQ(h.data_offset % 64, 0u) << path;
    EXPECT_EQ(bytes[h.data_offset - 1], '\n') << path;
    EXPECT_EQ(h.data_bytes, sizeof data) << path;
  }
  EXPECT_NE(read_npy_header(utf8).descr.find("cl\xc3\xa9"), std::string::npos);
}

TEST(NpyWrite, RecordsInPiecesEqualTheRecordsInOne) {
  const std::string whole = temp_path("whole.npy"), pieces = temp_path("pieces.npy");
  std::vector<std::uint32_t> values(200000);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::uint32_t>(i * 2654435761u);
  write_npy_bytes(whole, "'<u4'", values.size(), values.data(), values.size() * 4);
  write_npy_records(pieces, "'<u4'", values.size(), [&](std::ostream& out, std::size_t first, std::size_t count) {
    out.write(reinterpret_cast<const char*>(values.data() + first), static_cast<std::streamsize>(count * 4));
  });
  EXPECT_EQ(read_npy<std::uint32_t>(pieces), values);
  std::ifstream a(whole, std::ios::binary), b(pieces, std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(a), {}), std::string(std::istreambuf_iterator<char>(b), {}));
}

TEST(ColumnIoErrors, EmptyCsvFileIsRejected) {
  const std::string path = temp_path("empty_file.csv");
  write_text(path, "");
  const std::string why = error_of<FormatError>([&] { read_csv<std::uint32_t>(path); });
  EXPECT_TRUE(mentions(why, path));
  EXPECT_TRUE(mentions(why, "empty"));
}

TEST(ColumnIoErrors, RaggedCsvRowNamesItsLine) {
  const std::string path = temp_path("ragged.csv");
  write_text(path, "a,b\n1,2\n3\n4,5\n");
  const std::string why = error_of<FormatError>([&] { read_csv<std::uint32_t>(path); });
  EXPECT_TRUE(mentions(why, path));
  EXPECT_TRUE(mentions(why, "line 3"));
}

TEST(ColumnIoErrors, NonNumericCsvFieldNamesTheField) {
  const std::string path = temp_path("word.csv");
  write_text(path, "a,b\n1,2\n3,four\n");
  const std::string why = error_of<FormatError>([&] { read_csv<std::int32_t>(path); });
  EXPECT_TRUE(mentions(why, path));
  EXPECT_TRUE(mentions(why, "line 3"));
  EXPECT_TRUE(mentions(why, "four"));
}

TEST(ColumnIoErrors, NegativeNumberIsNotAUint32) {
  const std::string path = temp_path("negative.csv");
  write_text(path, "a\n1\n-5\n");
  const std::string why = error_of<FormatError>([&] { read_column<std::uint32_t>(path); });
  EXPECT_TRUE(mentions(why, path));
  EXPECT_TRUE(mentions(why, "-5"));
  EXPECT_EQ(read_column<std::int32_t>(path), (std::vector<std::int32_t>{1, -5}));
}

TEST(ColumnIoErrors, OutOfRangeNumberIsRejected) {
  const std::string path = temp_path("too_big.csv");
  write_text(path, "a\n4294967296\n");
  EXPECT_TRUE(mentions(error_of<FormatError>([&] { read_column<std::uint32_t>(path); }), "4294967296"));
}

TEST(ColumnIoErrors, UnknownExtensionNamesTheFile) {
  const std::string path = temp_path("column.txt");
  write_text(path, "a\n1\n");
  const std::string why = error_of<FormatError>([&] { read_column<std::uint32_t>(path); });
  EXPECT_TRUE(mentions(why, path));
  EXPECT_TRUE(mentions(error_of<FormatError>([&] { write_column(path, "a", std::vector<std::uint32_t>{1}); }), path));
}

TEST(ColumnIoErrors, MultiColumnCsvIsNotAColumn) {
  const std::string path = temp_path("two.csv");
  write_text(path, "a,b\n1,2\n");
  EXPECT_TRUE(mentions(error_of<FormatError>([&] { read_column<std::uint32_t>(path); }), path));
}

}  // namespace
}  // namespace hashlab::io
