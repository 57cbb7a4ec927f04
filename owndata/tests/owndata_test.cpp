// The own-data layer: column reading and writing, and the columns as the catalogue reads them (the
// algorithms themselves are the catalogue's, tested there).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <unistd.h>

#include "hashlab/common/column_io.hpp"
#include "hashlab/owndata/columns.hpp"

namespace hashlab::owndata {
namespace {

namespace fs = std::filesystem;

class Files : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("owndata_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

TEST_F(Files, KeysOfAnyIntegerDtypeInRange) {
  io::write_npy(path("a.npy"), std::vector<std::int64_t>{0, 7, 4294967295ll});
  EXPECT_EQ(io::npy_file_rows(path("a.npy")), 3u);  // from the header alone
  const KeyColumn k = read_key_column(path("a.npy"));
  EXPECT_EQ(k.name, "a");
  EXPECT_EQ(k.data, (std::vector<std::uint32_t>{0, 7, 4294967295u}));
  io::write_npy(path("b.npy"), std::vector<std::int64_t>{1, -1});
  try {
    read_key_column(path("b.npy"));
    FAIL() << "a negative key was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("b.npy: row 1 holds key -1"), std::string::npos) << e.what();
  }
  io::write_npy(path("c.npy"), std::vector<double>{1.0});
  EXPECT_THROW(read_key_column(path("c.npy")), InputError);
}

TEST_F(Files, CsvColumnsByNameAndRealsByContent) {
  {
    std::ofstream out(path("t.csv"));
    out << "k,price\n1,2.5\n2,3\n";
  }
  const KeyColumn k = read_key_column(path("t.csv") + ":k");
  EXPECT_EQ(k.data, (std::vector<std::uint32_t>{1, 2}));
  const ValueColumn v = read_value_column(path("t.csv") + ":price");
  EXPECT_TRUE(v.real);
  EXPECT_EQ(v.reals, (std::vector<double>{2.5, 3.0}));
  EXPECT_THROW(read_key_column(path("t.csv")), InputError);            // two columns, none named
  EXPECT_THROW(read_key_column(path("t.csv") + ":nope"), InputError);  // no such column
  EXPECT_THROW(read_key_column(path("missing.npy")), InputError);
}

// One reader parses a CSV once for all the columns a command names from it: a second column comes
// from the same parse (here, from before the file changed); a new reader sees the file as it is.
TEST_F(Files, AReaderParsesEachCsvOnceForAllItsColumns) {
  const auto write = [&](const char* text) {
    std::ofstream out(path("m.csv"));
    out << text;
  };
  write("a,b\n1,10\n2,20\n");
  ColumnReader reader;
  EXPECT_EQ(reader.key_column(path("m.csv") + ":a").data, (std::vector<std::uint32_t>{1, 2}));
  write("a,b\n7,70\n");
  EXPECT_EQ(reader.value_column(path("m.csv") + ":b").ints, (std::vector<std::int64_t>{10, 20}));
  EXPECT_EQ(reader.key_column(path("m.csv") + ":a").data, (std::vector<std::uint32_t>{1, 2}));  // asked twice
  EXPECT_THROW(reader.key_column(path("m.csv") + ":c"), InputError);
  EXPECT_EQ(ColumnReader().value_column(path("m.csv") + ":b").ints, (std::vector<std::int64_t>{70}));
}

TEST_F(Files, RecordArrayHoldsEveryColumn) {
  std::vector<OutputColumn> columns(2);
  columns[0].name = "k";
  columns[0].type = OutputColumn::Type::kUint32;
  columns[0].u32 = {3, 4};
  columns[1].name = "s";
  columns[1].type = OutputColumn::Type::kInt64;
  columns[1].i64 = {-5, 6};
  write_table(path("r.npy"), columns);
  EXPECT_EQ(io::npy_file_dtype(path("r.npy")), "[('k', '<u4'), ('s', '<i8'), ]");
  EXPECT_THROW(read_key_column(path("r.npy")), InputError);  // a record array is not a column
  EXPECT_EQ(fs::file_size(path("r.npy")), 128u + 2 * 12);
  columns[1].i64.pop_back();
  EXPECT_THROW(write_table(path("bad.npy"), columns), InputError);
}

TEST(Columns, AreTheCatalogueColumnsOfTheirData) {
  const KeyColumn k{"store", "data/store.npy", {4, 5}};
  const ValueColumn v{"amount", "data/amount.npy", true, {}, {1.5, 2.5}};
  const catalogue::Column kc = to_column(k), vc = to_column(v);
  EXPECT_EQ(kc.name, "store");
  EXPECT_EQ(kc.label(), "data/store.npy");
  EXPECT_EQ(kc.dtype, catalogue::DType::kUint32);
  EXPECT_EQ(kc.host, k.data.data());
  EXPECT_EQ(kc.device, nullptr);
  EXPECT_EQ(vc.dtype, catalogue::DType::kFloat64);
  EXPECT_EQ(vc.rows, 2u);
  const KeyColumn rows = row_numbers(3, "r_row");
  EXPECT_EQ(rows.data, (std::vector<std::uint32_t>{0, 1, 2}));
}

}  // namespace
}  // namespace hashlab::owndata
