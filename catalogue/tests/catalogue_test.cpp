// The catalogue on the CPU: its entries and names, the checks that refuse what an algorithm
// cannot take (without running it), and the CPU algorithms against the references.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "hashlab/catalogue/catalogue.hpp"
#include "hashlab/common/generator.hpp"
#include "hashlab/reference/cpu_baselines.hpp"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab::catalogue {
namespace {

// EXPECT_THROW that also checks the message.
#define EXPECT_INVALID(statement, text)                                                \
  do {                                                                                 \
    try {                                                                              \
      statement;                                                                       \
      ADD_FAILURE() << "no std::invalid_argument; expected one saying: " << (text);  \
    } catch (const std::invalid_argument& e) {                                         \
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();      \
    }                                                                                  \
  } while (0)

template <class Entries>
void expect_well_formed(const Entries& entries) {
  std::set<std::string> names;
  for (const auto& e : entries) {
    SCOPED_TRACE(e.name);
    EXPECT_TRUE(names.insert(e.name).second) << "two entries named " << e.name;
    EXPECT_FALSE(e.description.empty());
    EXPECT_FALSE(e.statistics.empty());
    EXPECT_TRUE(e.check);
    EXPECT_TRUE(e.make);
    std::set<std::string> options;
    for (const auto& o : e.options) {
      EXPECT_TRUE(options.insert(o.name).second) << "option " << o.name << " twice";
      EXPECT_FALSE(o.help.empty()) << o.name;
    }
  }
}

TEST(Entries, EveryEntryHasANameADescriptionItsStatisticsAndItsFunctions) {
  expect_well_formed(groupby_entries());
  expect_well_formed(join_entries());
  expect_well_formed(table_entries());
  std::vector<std::string> groupbys;
  for (const auto& e : groupby_entries()) groupbys.push_back(e.name);
  EXPECT_EQ(groupbys, (std::vector<std::string>{"rapids", "sp_ega", "lphga", "mp_ega", "sort", "hash", "cpu", "cpu_stl"}));
}

TEST(Entries, AnUnknownNameNamesTheChoices) {
  EXPECT_INVALID(groupby_entry("median"), "choices: rapids, sp_ega");
  EXPECT_INVALID(join_entry("nested_loop"), "bsp, sort_join");
  EXPECT_INVALID(table_entry("robin_hood"), "cuckoo, hashgraph");
}

TEST(Entries, AJoinNameMayLeaveOutItsSuffix) {
  EXPECT_EQ(join_entry("sort").name, "sort_join");
  EXPECT_EQ(join_entry("hash").name, "hash_join");
  EXPECT_EQ(join_entry("cpu").name, "cpu_join");
  EXPECT_EQ(join_entry("bsp").name, "bsp");
}

// ---- group-by ------------------------------------------------------------------------------------

struct Columns {
  std::vector<std::uint32_t> keys, keys2;
  std::vector<std::int64_t> ints;
  std::vector<double> reals;
};

Columns columns(std::size_t n, std::uint64_t seed) {
  Columns c;
  c.keys = gen::generate_keys_host(gen::KeySpec::uniform(300), seed, n);
  c.keys2 = gen::generate_keys_host(gen::KeySpec::uniform(3), seed + 1, n);
  const auto v = gen::generate_values_host<std::uint32_t>(seed + 2, 0, 2000, n);
  for (std::uint32_t x : v) {
    c.ints.push_back(static_cast<std::int64_t>(x) - 1000);  // negative values too
    c.reals.push_back(0.25 * x);
  }
  return c;
}

const std::vector<Aggregation> kAllAggregations = {Aggregation::kSum, Aggregation::kMin, Aggregation::kMax,
                                                   Aggregation::kCount, Aggregation::kMean};

reference::GroupByResult run_once(const GroupByEntry& entry, const GroupByInput& in, const Options& options = {}) {
  auto g = entry.make(in, options, nullptr);
  g->prepare(nullptr);
  g->run(nullptr);
  return g->result(nullptr);
}

TEST(CpuGroupBys, EveryAggregationOfIntegerAndRealColumnsEqualsTheReference) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const Columns c = columns(20000, seed);
  GroupByInput in;
  in.keys = {Column::on_host(c.keys, "k")};
  in.values = {Column::on_host(c.ints, "i"), Column::on_host(c.reals, "r")};
  in.aggregations = kAllAggregations;
  const auto expected = oracle_groupby(in);
  ASSERT_EQ(expected.aggregates.size(), 10u);
  for (const char* name : {"cpu", "cpu_stl"}) {
    const auto got = run_once(groupby_entry(name), in);
    EXPECT_EQ(reference::compare(expected, got, 1e-12), "") << name;
  }
  EXPECT_EQ(output_names(in), (std::vector<std::string>{"k", "sum_i", "min_i", "max_i", "count_i", "mean_i", "sum_r",
                                                        "min_r", "max_r", "count_r", "mean_r"}));
}

TEST(CpuGroupBys, CpuStlGroupsByTwoKeyColumns) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const Columns c = columns(5000, seed);
  GroupByInput in;
  in.keys = {Column::on_host(c.keys, "a"), Column::on_host(c.keys2, "b")};
  in.values = {Column::on_host(c.ints, "v")};
  in.aggregations = {Aggregation::kSum, Aggregation::kMean};
  EXPECT_EQ(reference::compare(oracle_groupby(in), run_once(groupby_entry("cpu_stl"), in)), "");
}

TEST(CpuGroupBys, StatisticsAreTheOnesTheEntryDeclares) {
  const Columns c = columns(3000, 7);
  GroupByInput in;
  in.keys = {Column::on_host(c.keys)};
  in.values = {Column::on_host(c.ints)};
  for (const char* name : {"cpu", "cpu_stl"}) {
    const GroupByEntry& entry = groupby_entry(name);
    auto g = entry.make(in, {}, nullptr);
    g->run(nullptr);
    const Statistics s = g->statistics(nullptr);
    ASSERT_NE(s.number("groups"), nullptr) << name;
    EXPECT_EQ(s.number("groups")->value, 300) << name;
    for (const auto& n : s.numbers) {
      bool declared = false;
      for (const auto& spec : entry.statistics) declared |= spec.name == n.name && !spec.array;
      EXPECT_TRUE(declared) << name << " reports " << n.name << " without declaring it";
    }
  }
}

TEST(GroupByChecks, EachEntryRefusesWhatItCannotHoldNamingTheColumnAndRow) {
  std::vector<std::uint32_t> keys = {1, 2, 3, 0xffffffffu, 5};
  const std::vector<std::uint32_t> two = {1, 2};
  const std::vector<std::int64_t> negative = {1, -2, 3, 4, 5};
  const std::vector<std::int64_t> ok = {1, 2, 3, 4, 5};
  const std::vector<std::int64_t> wide = {1, 2, std::int64_t{1} << 33, 4, 5};
  GroupByInput sentinel;
  sentinel.keys = {Column::on_host(keys, "k")};
  sentinel.keys.front().source = "k.npy";
  sentinel.values = {Column::on_host(ok, "v")};
  for (const char* name : {"sp_ega", "lphga", "mp_ega", "hash"})
    EXPECT_INVALID(groupby_entry(name).check(sentinel, {}), "k.npy: row 3 holds key 4294967295");
  groupby_entry("sort").check(sentinel, {});  // the sort and the CPU group-bys take every key
  groupby_entry("cpu").check(sentinel, {});

  GroupByInput values = sentinel;
  keys[3] = 4;
  values.values = {Column::on_host(negative, "v")};
  EXPECT_INVALID(groupby_entry("sort").check(values, {}), "v: row 1 holds -2; sort aggregates unsigned 32-bit");
  values.values = {Column::on_host(wide, "v")};
  EXPECT_INVALID(groupby_entry("rapids").check(values, {}), "rapids aggregates 32-bit");
  groupby_entry("cpu").check(values, {});

  GroupByInput two_keys = values;
  two_keys.values = {Column::on_host(ok, "v")};
  two_keys.keys.push_back(Column::on_host(keys, "k2"));
  EXPECT_INVALID(groupby_entry("cpu").check(two_keys, {}), "one 32-bit key column");
  groupby_entry("rapids").check(two_keys, {});
  groupby_entry("cpu_stl").check(two_keys, {});
  two_keys.keys.push_back(Column::on_host(two, "short"));
  EXPECT_INVALID(groupby_entry("rapids").check(two_keys, {}), "short: 2 rows, but k.npy has 5");
}

// No group-by has null values: a NaN is refused by every entry's check and make, naming its row,
// before any algorithm reads it (entries_gpu_test.cu: the same for a device-only column).
TEST(GroupByChecks, ANaNIsRefusedNamingItsRow) {
  const std::vector<std::uint32_t> keys = {1, 2, 3, 4, 5};
  std::vector<double> reals = {0.5, 1.5, 2.5, 3.5, 4.5};
  GroupByInput in;
  in.keys = {Column::on_host(keys, "k")};
  in.values = {Column::on_host(reals, "r")};
  in.values.front().source = "r.npy";
  for (const auto& entry : groupby_entries()) {
    SCOPED_TRACE(entry.name);
    reals[3] = std::nan("");
    EXPECT_INVALID(entry.check(in, {}), "r.npy: row 3 is NaN; " + entry.name + " has no null values");
    if (!entry.needs_gpu) EXPECT_INVALID(entry.make(in, {}, nullptr), "r.npy: row 3 is NaN");
    reals[3] = 3.5;
    if (!entry.needs_gpu) run_once(entry, in);  // the same column without the NaN is taken
  }
}

TEST(GroupByChecks, OptionsAreTheEntrysOwnAndInRange) {
  const std::vector<std::uint32_t> keys = {1, 2, 3};
  GroupByInput in;
  in.keys = {Column::on_host(keys, "k")};
  in.values = {Column::on_host(keys, "v")};
  EXPECT_INVALID(groupby_entry("sort").check(in, {{"load", "0.5"}}), "sort takes no option 'load' (it takes none)");
  EXPECT_INVALID(groupby_entry("hash").check(in, {{"load", "2"}}), "hash: --load 2: must lie in (0, 1]");
  EXPECT_INVALID(groupby_entry("lphga").check(in, {{"length_factor", "0.5"}}), "at least 1");
  EXPECT_INVALID(groupby_entry("rapids").check(in, {{"sampling", "maybe"}}), "one of gpu, cpu, none");
  EXPECT_INVALID(groupby_entry("mp_ega").check(in, {{"streams", "0"}}), "from 1 to 64");
  EXPECT_INVALID(groupby_entry("cpu").check(in, {{"threds", "2"}}), "it takes: threads");
  groupby_entry("hash").check(in, {{"load", "1"}});
}

// The checks' answer above 2^20 rows is the sort-based group-by on all cores, equal to the
// reference over every output column (two key columns, integer and real values); up to 2^20 rows it
// is the reference, and only the first says so in its note.
TEST(OracleGroupBy, IsTheReferenceBelowTheThresholdAndEqualToItAbove) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const Columns large = columns(cpu::kOracleReferenceRows + 1000, seed);
  for (bool real : {false, true}) {
    GroupByInput in;
    in.keys = {Column::on_host(large.keys), Column::on_host(large.keys2)};
    in.values = {real ? Column::on_host(large.reals) : Column::on_host(large.ints)};
    in.aggregations = {Aggregation::kSum, Aggregation::kMin, Aggregation::kCount, Aggregation::kMean};
    std::string note;
    const auto got = oracle_groupby(in, &note);
    EXPECT_EQ(note, kSortedGroupByOracle);
    auto reference = run_once(groupby_entry("cpu_stl"), in);  // the references' own algorithm
    EXPECT_EQ(reference::compare(reference, got, 0), "") << "real " << real;
  }
  const Columns small = columns(5000, seed);
  GroupByInput in;
  in.keys = {Column::on_host(small.keys)};
  in.values = {Column::on_host(small.ints)};
  std::string note = "stale";
  EXPECT_EQ(reference::compare(run_once(groupby_entry("cpu_stl"), in), oracle_groupby(in, &note), 0), "");
  EXPECT_EQ(note, "");
}

// ---- joins and tables ----------------------------------------------------------------------------

TEST(CpuJoin, EqualsTheReferenceRows) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  gen::PkPkSpec spec;
  spec.r_rows = 3000;
  spec.s_rows = 2000;
  spec.match_rate = 0.5;
  std::vector<std::uint32_t> r, s;
  gen::generate_pkpk_host(spec, seed, r, s);
  const auto rv = gen::generate_values_host<std::uint32_t>(seed + 1, 0, 1000, r.size());
  const auto sv = gen::generate_values_host<std::uint32_t>(seed + 2, 0, 1000, s.size());
  const JoinInput in{Column::on_host(r), Column::on_host(rv), Column::on_host(s), Column::on_host(sv)};
  auto join = join_entry("cpu").make(in, {}, nullptr);
  join->run(nullptr);
  const auto got = join->result(nullptr);
  EXPECT_EQ(compare_rows(oracle_join(in), got), "");
  EXPECT_EQ(join->statistics(nullptr).number("rows_out")->value, static_cast<double>(got.size()));
}

// join --verify's answer: the reference at this size (no note).
TEST(OracleJoin, IsTheReferenceOnSmallTables) {
  const std::vector<std::uint32_t> rk = {5, 1, 9}, rv = {50, 10, 90}, sk = {9, 2, 5}, sv = {900, 200, 500};
  std::string note = "stale";
  const auto rows = oracle_join({Column::on_host(rk), Column::on_host(rv), Column::on_host(sk), Column::on_host(sv)}, &note);
  EXPECT_EQ(rows, (std::vector<pkpk::JoinedRow>{{5, 50, 500}, {9, 90, 900}}));
  EXPECT_EQ(note, "");
}

TEST(JoinChecks, RepeatedKeysEmptyTablesAndTheSentinelAreRefused) {
  const std::vector<std::uint32_t> dup = {4, 5, 4}, keys = {1, 2, 3}, values = {7, 8, 9}, none;
  const std::vector<std::uint32_t> sentinel = {1, 0xffffffffu, 3};
  for (const auto& e : join_entries()) {
    EXPECT_INVALID(e.check({Column::on_host(dup, "r"), Column::on_host(values), Column::on_host(keys), Column::on_host(values)}, {}),
                   "r: key 4 appears at rows 0 and 2");
    EXPECT_INVALID(e.check({Column::on_host(none, "r"), Column::on_host(none), Column::on_host(keys), Column::on_host(values)}, {}),
                   "no rows");
  }
  const JoinInput with_sentinel{Column::on_host(sentinel, "r"), Column::on_host(values), Column::on_host(keys),
                                Column::on_host(values)};
  EXPECT_INVALID(join_entry("hash_join").check(with_sentinel, {}), "r: row 1 holds key 4294967295");
  join_entry("bsp").check(with_sentinel, {});
  EXPECT_INVALID(join_entry("sort_join_hmap").check(with_sentinel, {{"key_domain", "100"}}), "outside key_domain 100");
}

TEST(TableChecks, UniqueTablesRefuseRepeatsWhichTheMultivalueFormsAndHashGraphTake) {
  const std::vector<std::uint32_t> dup = {4, 5, 4}, values = {7, 8, 9}, queries = {4};
  const TableInput in{Column::on_host(dup, "keys"), Column::on_host(values), Column::on_host(queries)};
  for (const char* name : {"cuckoo", "linear_probing", "sorted_array"}) {
    EXPECT_INVALID(table_entry(name).check(in, {}), "keys: key 4 appears at rows 0 and 2");
    table_entry(name).check(in, {{"multivalue", "true"}});
    EXPECT_EQ(table_entry(name).answers({{"multivalue", "true"}}) == Answers::kValue, false) << name;
  }
  table_entry("hashgraph").check(in, {});
  EXPECT_EQ(table_entry("hashgraph").answers({{"answer", "total"}}), Answers::kTotal);
  const std::vector<std::uint32_t> unique = {4, 5, 6}, marker = {7, 0xffffffffu, 9};
  EXPECT_INVALID(table_entry("cuckoo").check({Column::on_host(unique), Column::on_host(marker, "vals"), Column::on_host(queries)}, {}),
                 "vals: row 1 holds 4294967295, the not-found answer");
  EXPECT_INVALID(table_entry("cuckoo").check({Column::on_host(unique), Column::on_host(values), Column::on_host(queries)},
                                             {{"load", "1.5"}}),
                 "a load in (0, 1]");
  EXPECT_INVALID(table_entry("cuckoo").check({Column::on_host(unique), Column::on_host(values), Column::on_host(queries)},
                                             {{"functions", "7"}}),
                 "cuckoo: ");
}

TEST(CompareLookup, ComparesWhatTheProbeComputed) {
  const std::vector<std::uint32_t> keys = {1, 2, 2}, values = {10, 30, 20}, queries = {2, 9, 1};
  const auto ref = make_lookup_reference(keys, values, queries);
  EXPECT_EQ(compare_lookup(ref, Lookup{{2, 0, 1}, {20, 0, 10}, 3}, queries), "");
  EXPECT_EQ(compare_lookup(ref, Lookup{{2, 0, 1}, {}, 3}, queries), "");  // counts only
  EXPECT_EQ(compare_lookup(ref, Lookup{{}, {}, 3}, queries), "");         // the total only
  EXPECT_NE(compare_lookup(ref, Lookup{{2, 0, 1}, {30, 0, 10}, 3}, queries).find("query 0 (key 2): value 30"),
            std::string::npos);
  EXPECT_NE(compare_lookup(ref, Lookup{{}, {}, 4}, queries).find("counted 4 matches, reference 3"), std::string::npos);
}

}  // namespace
}  // namespace hashlab::catalogue
