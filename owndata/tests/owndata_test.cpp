// The own-data layer: column reading and writing (CPU), and every algorithm of the three
// commands against the CPU reference on the same random columns (GPU).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <unistd.h>

#include "hashlab/common/column_io.hpp"
#include "hashlab/owndata/groupby.hpp"
#include "hashlab/owndata/join.hpp"
#include "hashlab/owndata/table.hpp"
#include "hashlab/reference/cpu_baselines.hpp"
#include "hashlab/testing/gpu_test.hpp"

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

TEST(Check, EachAlgorithmRefusesWhatItCannotHold) {
  GroupByInput input;
  input.keys.push_back({"k", "k.npy", {1, 2, 0xffffffffu}});
  input.values.push_back({"v", "v.npy", false, {1, -2, 3}, {}});
  GroupByOptions options;
  EXPECT_NO_THROW(check_groupby(GroupByAlgo::kCpu, input, options));
  EXPECT_NO_THROW(check_groupby(GroupByAlgo::kRapids, input, options));
  EXPECT_THROW(check_groupby(GroupByAlgo::kSort, input, options), InputError);  // -2 is not uint32
  input.values[0].ints[1] = 2;
  EXPECT_NO_THROW(check_groupby(GroupByAlgo::kSort, input, options));
  EXPECT_THROW(check_groupby(GroupByAlgo::kSpEga, input, options), InputError);  // the empty key
  EXPECT_THROW(check_groupby(GroupByAlgo::kHash, input, options), InputError);
  input.keys.push_back(input.keys[0]);
  EXPECT_THROW(check_groupby(GroupByAlgo::kCpu, input, options), InputError);  // two key columns
  EXPECT_NO_THROW(check_groupby(GroupByAlgo::kRapids, input, options));
  input.keys[1].data.pop_back();
  EXPECT_THROW(check_groupby(GroupByAlgo::kRapids, input, options), InputError);  // ragged
}

// ---- GPU: every algorithm equals the reference --------------------------------------------------

GroupByInput random_groupby(std::size_t n, std::uint32_t groups, int key_columns, bool real) {
  std::mt19937 rng(7);
  GroupByInput input;
  for (int c = 0; c < key_columns; ++c) {
    KeyColumn k{"k" + std::to_string(c), "k.npy", std::vector<std::uint32_t>(n)};
    for (auto& x : k.data) x = rng() % groups;
    input.keys.push_back(std::move(k));
  }
  for (int c = 0; c < 2; ++c) {
    ValueColumn v{"v" + std::to_string(c), "v.npy", real, {}, {}};
    for (std::size_t i = 0; i < n; ++i) {
      if (real) v.reals.push_back(static_cast<double>(rng() % 1000) / 8);
      else v.ints.push_back(rng() % 100000);
    }
    input.values.push_back(std::move(v));
  }
  return input;
}

// The checks' answer above 2^20 rows is the sort-based group-by on all cores, equal to the
// reference over every output column (two key columns, integer and real values); up to 2^20 rows it
// is the reference, and only the first says so in its note.
TEST(OracleGroupBy, IsTheReferenceBelowTheThresholdAndEqualToItAbove) {
  GroupByOptions options;
  options.aggs = {Aggregation::kSum, Aggregation::kMin, Aggregation::kCount, Aggregation::kMean};
  for (bool real : {false, true}) {
    const GroupByInput large = random_groupby(cpu::kOracleReferenceRows + 1000, 3000, 2, real);
    std::string note;
    const auto got = oracle_groupby(large, options, &note);
    EXPECT_EQ(note, kSortedGroupByOracle);
    EXPECT_EQ(reference::compare(reference_groupby(large, options), got, 0), "") << "real " << real;
  }
  const GroupByInput small = random_groupby(5000, 30, 1, false);
  std::string note = "stale";
  EXPECT_EQ(reference::compare(reference_groupby(small, options), oracle_groupby(small, options, &note), 0), "");
  EXPECT_EQ(note, "");
}

class OwnDataGpu : public testing::GpuTest {};

TEST_F(OwnDataGpu, EveryGroupByEqualsTheReference) {
  GroupByOptions options;
  options.aggs = {Aggregation::kSum, Aggregation::kMin, Aggregation::kMax, Aggregation::kCount, Aggregation::kMean};
  options.gpu_memory_budget = std::size_t{64} << 20;
  for (std::uint32_t groups : {1u, 50u, 30000u}) {
    const GroupByInput input = random_groupby(40000, groups, 1, false);
    const auto expected = reference_groupby(input, options);
    for (GroupByAlgo algo : all_groupby_algos()) {
      auto g = make_groupby(algo, input, options, nullptr);
      g->prepare(nullptr);
      g->run(nullptr);
      g->run(nullptr);  // a second run replaces the first's groups
      EXPECT_EQ(reference::compare(expected, g->result(nullptr), 1e-9), "") << to_string(algo) << ", " << groups;
    }
  }
  // RAPIDS on two key columns and on reals, every sampling.
  for (bool real : {false, true}) {
    const GroupByInput input = random_groupby(40000, 40, 2, real);
    for (auto sampling : {rapids::Sampling::kNone, rapids::Sampling::kCpu, rapids::Sampling::kGpu}) {
      options.sampling = sampling;
      auto g = make_groupby(GroupByAlgo::kRapids, input, options, nullptr);
      g->run(nullptr);
      EXPECT_EQ(reference::compare(reference_groupby(input, options), g->result(nullptr), 1e-9), "")
          << "real " << real << ", sampling " << rapids::to_string(sampling);
    }
  }
}

// join --verify's answer: the reference at this size (no note), the sort-merge join above 2^20 rows
// a table (pkpk's tests hold it equal to the reference there).
TEST(OwnDataJoin, OracleJoinIsTheReferenceOnSmallTables) {
  JoinInput join;
  join.r.keys = {"rk", "rk.npy", {5, 1, 9}};
  join.r.values = {"rv", "rv.npy", {50, 10, 90}};
  join.s.keys = {"sk", "sk.npy", {9, 2, 5}};
  join.s.values = {"sv", "sv.npy", {900, 200, 500}};
  std::string note = "stale";
  const auto rows = oracle_join(join, &note);
  EXPECT_EQ(compare_rows(reference_join(join), rows), "");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].key, 5u);
  EXPECT_EQ(rows[1].value2, 900u);
  EXPECT_EQ(note, "");
}

TEST_F(OwnDataGpu, EveryJoinAndTableEqualsTheReference) {
  std::mt19937 rng(3);
  const std::size_t n = 20000;
  std::vector<std::uint32_t> domain(3 * n);
  for (std::size_t i = 0; i < domain.size(); ++i) domain[i] = static_cast<std::uint32_t>(i * 7919u % 1000003u);
  std::shuffle(domain.begin(), domain.end(), rng);
  JoinInput join;
  join.r.keys = {"rk", "rk.npy", {domain.begin(), domain.begin() + n}};
  join.s.keys = {"sk", "sk.npy", {domain.begin() + n / 2, domain.begin() + n / 2 + n}};
  join.r.values = row_numbers(n, "r_row");
  join.s.values = {"sv", "sv.npy", std::vector<std::uint32_t>(n)};
  for (auto& v : join.s.values.data) v = rng();
  const auto expected = reference_join(join);
  ASSERT_EQ(expected.size(), n / 2);
  for (JoinAlgo algo : all_join_algos()) {
    auto j = make_join(algo, join, nullptr);
    j->run(nullptr);
    EXPECT_EQ(compare_rows(expected, j->result(nullptr)), "") << to_string(algo);
  }
  TableInput table;
  table.keys = join.r.keys;
  table.values = join.s.values;
  table.values.data.resize(n);
  for (auto& v : table.values.data) v %= 0xfffffff0u;
  table.queries = join.s.keys;
  const Lookup expected_lookup = reference_lookup(table);
  for (TableAlgo algo : all_table_algos()) {
    auto t = make_table(algo, table, TableOptions{}, nullptr);
    t->build(nullptr);
    t->probe(nullptr);
    EXPECT_EQ(compare_lookup(expected_lookup, t->result(nullptr), table), "") << to_string(algo);
  }
  // HashGraph with repeated build keys: counts and the smallest value.
  table.keys.data[1] = table.keys.data[0];
  table.keys.data[2] = table.keys.data[0];
  table.queries.data[0] = table.keys.data[0];
  auto t = make_table(TableAlgo::kHashGraph, table, TableOptions{}, nullptr);
  t->build(nullptr);
  t->probe(nullptr);
  const Lookup got = t->result(nullptr);
  EXPECT_EQ(got.count[0], 3u);
  EXPECT_EQ(compare_lookup(reference_lookup(table), got, table), "");
  EXPECT_THROW(make_table(TableAlgo::kCuckoo, table, TableOptions{}, nullptr), InputError);
}

}  // namespace
}  // namespace hashlab::owndata
