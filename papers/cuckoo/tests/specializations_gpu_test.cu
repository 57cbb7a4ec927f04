// Section 4.4's specializations against the CPU references: the set, the compacting table and
// the multivalue table, and the sort-based structures of section 4.5.2 they are compared with.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "hashlab/common/generator.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/cuckoo/multivalue.hpp"
#include "hashlab/cuckoo/set.hpp"
#include "hashlab/reference/lookup.hpp"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab::cuckoo {
namespace {

struct Case {
  std::size_t n;
  double multiplicity;
};

void PrintTo(const Case& c, std::ostream* os) { *os << "n=" << c.n << " multiplicity=" << c.multiplicity; }

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return "n" + std::to_string(info.param.n) + "_mult" + std::to_string(static_cast<int>(info.param.multiplicity));
}

// Keys with repeats, and keys absent from them (drawn from a disjoint domain).
struct Input {
  std::vector<std::uint32_t> keys, values, absent;
};

Input make_input(const Case& c, std::uint64_t seed) {
  Input in;
  in.keys = gen::generate_keys_host(gen::KeySpec::multiplicity(c.n, c.multiplicity, 1u << 31), seed, c.n);
  in.values = gen::generate_values_host<std::uint32_t>(seed, 0, 0xfffffffeu, c.n);
  in.absent = gen::generate_keys_host(gen::KeySpec::unique(1u << 30), seed + 1, std::min<std::size_t>(c.n, 1000));
  for (auto& k : in.absent) k |= 0x80000000u;  // >= 2^31: never among the keys
  return in;
}

class Specializations : public testing::GpuTestWithParam<Case> {
 protected:
  std::uint64_t seed() const { return testing::test_seed() + GetParam().n; }
  testing::LazyStream stream;
};

TEST_P(Specializations, SetHoldsEachDistinctKeyOnceAndNothingElse) {
  HASHLAB_TRACE_SEED(seed());
  const auto in = make_input(GetParam(), seed());
  CuckooConfig config;
  config.seed = seed();
  CuckooSet set(config);
  auto dk = to_device(in.keys, stream);
  set.build(dk.data(), in.keys.size(), stream);
  // The cleanup left exactly one copy of every distinct key.
  auto slots = copy_to_host(set.slots(), set.table_size(), stream);
  slots.erase(std::remove(slots.begin(), slots.end(), kEmptyKey), slots.end());
  std::sort(slots.begin(), slots.end());
  EXPECT_EQ(slots, reference::distinct_keys(in.keys));
  std::vector<std::uint32_t> queries = in.keys;
  queries.insert(queries.end(), in.absent.begin(), in.absent.end());
  auto dq = to_device(queries, stream);
  DeviceBuffer<std::uint8_t> out(queries.size(), stream);
  out.fill_bytes(7, stream);
  set.contains(dq.data(), queries.size(), out.data(), stream);
  EXPECT_EQ(out.to_host(stream), reference::set_contains(in.keys, queries));
}

// The IDs a compacting structure gives: 0..u-1, one per distinct key, keys()[ID] = key.
template <class Table>
void check_compacting(Table& table, const Input& in, cudaStream_t stream) {
  auto dk = to_device(in.keys, stream);
  table.build(dk.data(), in.keys.size(), stream);
  const auto distinct = reference::distinct_keys(in.keys);
  ASSERT_EQ(table.unique_keys(), distinct.size());
  std::vector<std::uint32_t> queries = in.keys;
  queries.insert(queries.end(), in.absent.begin(), in.absent.end());
  auto dq = to_device(queries, stream);
  DeviceBuffer<std::uint32_t> ids(queries.size(), stream);
  ids.fill_bytes(0, stream);
  table.find(dq.data(), queries.size(), ids.data(), stream);
  const auto got = ids.to_host(stream);
  const auto compacted = copy_to_host(table.keys(), table.unique_keys(), stream);
  auto sorted = compacted;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, distinct) << "the compacted list holds each distinct key once";
  for (std::size_t i = 0; i < in.keys.size(); ++i) {
    ASSERT_LT(got[i], compacted.size()) << "key " << in.keys[i];
    ASSERT_EQ(compacted[got[i]], in.keys[i]) << "ID " << got[i] << " does not translate back";
  }
  for (std::size_t i = in.keys.size(); i < queries.size(); ++i) ASSERT_EQ(got[i], kNotFound) << queries[i];
}

TEST_P(Specializations, CompactingTableGivesEachDistinctKeyOneIdBothWays) {
  HASHLAB_TRACE_SEED(seed());
  CuckooConfig config;
  config.seed = seed();
  CompactingHashTable table(config);
  check_compacting(table, make_input(GetParam(), seed()), stream);
}

TEST_P(Specializations, SortedCompactingGivesEachDistinctKeyOneIdBothWays) {
  HASHLAB_TRACE_SEED(seed());
  SortedCompacting table;
  check_compacting(table, make_input(GetParam(), seed()), stream);
}

template <class Table>
void check_multivalue(Table& table, const Input& in, cudaStream_t stream) {
  auto dk = to_device(in.keys, stream);
  auto dv = to_device(in.values, stream);
  table.build(dk.data(), dv.data(), in.keys.size(), stream);
  const reference::Multimap expected(in.keys, in.values);
  EXPECT_EQ(table.unique_keys(), reference::distinct_keys(in.keys).size());
  std::vector<std::uint32_t> queries = in.keys;
  queries.insert(queries.end(), in.absent.begin(), in.absent.end());
  auto dq = to_device(queries, stream);
  DeviceBuffer<KeyInfo> out(queries.size(), stream);
  out.fill_bytes(0, stream);
  table.find(dq.data(), queries.size(), out.data(), stream);
  const auto info = out.to_host(stream);
  const auto sorted_values = copy_to_host(table.sorted_values(), in.keys.size(), stream);
  std::map<std::uint32_t, bool> checked;
  for (std::size_t i = 0; i < in.keys.size(); ++i) {
    ASSERT_EQ(info[i].count, expected.count(in.keys[i])) << "key " << in.keys[i];
    if (checked[in.keys[i]]) continue;
    checked[in.keys[i]] = true;
    ASSERT_LE(std::size_t{info[i].offset} + info[i].count, sorted_values.size());
    std::vector<std::uint32_t> values(sorted_values.begin() + info[i].offset,
                                      sorted_values.begin() + info[i].offset + info[i].count);
    std::sort(values.begin(), values.end());
    ASSERT_EQ(values, expected.values(in.keys[i])) << "key " << in.keys[i];
  }
  for (std::size_t i = in.keys.size(); i < queries.size(); ++i) {
    ASSERT_EQ(info[i].count, 0u);
    ASSERT_EQ(info[i].offset, kNotFound);
  }
}

TEST_P(Specializations, MultivalueTableReturnsEveryValueOfEachKey) {
  HASHLAB_TRACE_SEED(seed());
  CuckooConfig config;
  config.seed = seed();
  MultivalueHashTable table(config);
  check_multivalue(table, make_input(GetParam(), seed()), stream);
}

TEST_P(Specializations, SortedMultivalueReturnsEveryValueOfEachKey) {
  HASHLAB_TRACE_SEED(seed());
  SortedMultivalue table;
  check_multivalue(table, make_input(GetParam(), seed()), stream);
}

INSTANTIATE_TEST_SUITE_P(Inputs, Specializations,
                         ::testing::Values(Case{0, 1}, Case{1, 1}, Case{7, 1}, Case{1000, 1}, Case{1000, 10},
                                           Case{100003, 1}, Case{100003, 4}, Case{100003, 64}, Case{262144, 1000},
                                           Case{5000, 5000}),
                         case_name);

class SpecializationErrors : public testing::GpuTest {
 protected:
  testing::LazyStream stream;
};

TEST_F(SpecializationErrors, SetRefusesTheEmptyKey) {
  std::vector<std::uint32_t> keys = {3, kEmptyKey};
  auto dk = to_device(keys, stream);
  CuckooSet set;
  EXPECT_THROW(set.build(dk.data(), 2, stream), std::invalid_argument);
  CompactingHashTable compacting;
  EXPECT_THROW(compacting.build(dk.data(), 2, stream), std::invalid_argument);
}

TEST_F(SpecializationErrors, MultivalueRefusesTheEmptyKey) {
  std::vector<std::uint32_t> keys = {kEmptyKey, 3, 3}, values = {1, 2, 3};
  auto dk = to_device(keys, stream);
  auto dv = to_device(values, stream);
  MultivalueHashTable table;
  EXPECT_THROW(table.build(dk.data(), dv.data(), 3, stream), std::invalid_argument);
}

TEST_F(SpecializationErrors, SetOfManyCopiesOfOneKeyBuilds) {
  // Copies stop when they exchange two copies of the same key: any multiplicity builds.
  std::vector<std::uint32_t> keys(10000, 99u);
  auto dk = to_device(keys, stream);
  CuckooSet set;
  set.build(dk.data(), keys.size(), stream);
  auto slots = copy_to_host(set.slots(), set.table_size(), stream);
  EXPECT_EQ(std::count(slots.begin(), slots.end(), 99u), 1);
}

class SpecializationsLarge : public testing::GpuTest {
 protected:
  testing::LazyStream stream;
};

TEST_F(SpecializationsLarge, TenMillionKeysMultiplicityEight) {
  const Case c{10000000, 8};
  const auto in = make_input(c, testing::test_seed(3));
  CompactingHashTable compacting;
  check_compacting(compacting, in, stream);
  MultivalueHashTable multivalue;
  check_multivalue(multivalue, in, stream);
}

}  // namespace
}  // namespace hashlab::cuckoo
