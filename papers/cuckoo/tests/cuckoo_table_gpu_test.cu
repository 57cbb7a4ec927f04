// The basic cuckoo table (section 4.3) against the CPU map: sizes, parameters, bad input, restarts.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "hashlab/common/generator.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/cuckoo/cost_model.hpp"
#include "hashlab/cuckoo/cuckoo_table.hpp"
#include "hashlab/reference/lookup.hpp"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab::cuckoo {
namespace {

struct Pairs {
  std::vector<std::uint32_t> keys, values, absent;
};

// n unique keys with values, and n keys not among them.
Pairs make_pairs(std::size_t n, std::uint64_t seed) {
  const auto all = gen::generate_keys_host(gen::KeySpec::unique(), seed, 2 * n);
  Pairs p;
  p.keys.assign(all.begin(), all.begin() + n);
  p.absent.assign(all.begin() + n, all.end());
  p.values = gen::generate_values_host<std::uint32_t>(seed, 0, 0xfffffffeu, n);
  return p;
}

// Builds a table over p and checks every key's value and every absent key's miss.
void build_and_check(const Pairs& p, const CuckooConfig& config, cudaStream_t stream, CuckooHashTable* out = nullptr) {
  CuckooHashTable local(config);
  CuckooHashTable& table = out ? *out : local;
  auto dk = to_device(p.keys, stream);
  auto dv = to_device(p.values, stream);
  table.build(dk.data(), dv.data(), p.keys.size(), stream);
  std::vector<std::uint32_t> queries = p.keys;
  queries.insert(queries.end(), p.absent.begin(), p.absent.end());
  auto dq = to_device(queries, stream);
  DeviceBuffer<std::uint32_t> found(queries.size(), stream);
  found.fill_bytes(0, stream);
  table.find(dq.data(), queries.size(), found.data(), stream);
  const auto got = found.to_host(stream);
  const auto expected = reference::map_lookup(p.keys, p.values, queries);
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got[i], expected[i]) << "query " << i << " key " << queries[i] << (i < p.keys.size() ? " (inserted)" : " (absent)");
}

class CuckooTableSizes : public testing::GpuTestWithParam<std::size_t> {
 protected:
  std::uint64_t seed() const { return testing::test_seed() + GetParam(); }
  testing::LazyStream stream;
};

TEST_P(CuckooTableSizes, FindsEveryInsertedKeyAndNoAbsentOne) {
  HASHLAB_TRACE_SEED(seed());
  CuckooConfig config;
  config.seed = seed();
  CuckooHashTable table(config);
  build_and_check(make_pairs(GetParam(), seed()), config, stream, &table);
  EXPECT_EQ(table.table_size(), table_size_for(GetParam(), 1.25));
  EXPECT_GE(table.stats().attempts, 1);
}

INSTANTIATE_TEST_SUITE_P(Sizes, CuckooTableSizes, ::testing::Values(0, 1, 2, 3, 7, 64, 65, 1000, 4096, 100003, 1u << 20),
                         [](const auto& info) { return "n" + std::to_string(info.param); });

struct Params {
  int functions;
  double space;
  HashKind hash;
};

void PrintTo(const Params& p, std::ostream* os) {
  *os << p.functions << " functions, " << p.space << " N, " << to_string(p.hash);
}

class CuckooTableParams : public testing::GpuTestWithParam<Params> {
 protected:
  testing::LazyStream stream;
};

TEST_P(CuckooTableParams, FindsEveryKeyWithTheseParameters) {
  const auto seed = testing::test_seed(7);
  HASHLAB_TRACE_SEED(seed);
  CuckooConfig config;
  config.num_hash_functions = GetParam().functions;
  config.space_factor = GetParam().space;
  config.hash = GetParam().hash;
  config.seed = seed;
  build_and_check(make_pairs(200000, seed), config, stream);
}

INSTANTIATE_TEST_SUITE_P(Functions, CuckooTableParams,
                         ::testing::Values(Params{2, 2.5, HashKind::kMultiply}, Params{3, 1.25, HashKind::kMultiply},
                                           Params{4, 1.25, HashKind::kMultiply}, Params{5, 1.1, HashKind::kMultiply},
                                           Params{4, 1.42, HashKind::kMultiply}, Params{4, 1.25, HashKind::kXor},
                                           Params{3, 1.5, HashKind::kXor}),
                         [](const auto& info) {
                           return std::string(to_string(info.param.hash)) + "_k" + std::to_string(info.param.functions) +
                                  "_space" + std::to_string(static_cast<int>(info.param.space * 100));
                         });

class CuckooTable : public testing::GpuTest {
 protected:
  testing::LazyStream stream;
};

TEST_F(CuckooTable, StoresEntriesAsKeyHighValueLowAndEmptyAsAllOnesKeyZeroValue) {
  CuckooHashTable table;
  const std::vector<std::uint32_t> keys = {5}, values = {9};
  auto dk = to_device(keys, stream);
  auto dv = to_device(values, stream);
  table.build(dk.data(), dv.data(), 1, stream);
  const auto slots = copy_to_host(table.slots(), table.table_size(), stream);
  EXPECT_EQ(std::count(slots.begin(), slots.end(), (std::uint64_t{5} << 32) | 9u), 1);
  EXPECT_EQ(std::count(slots.begin(), slots.end(), std::uint64_t{0xffffffffu} << 32), static_cast<long>(slots.size()) - 1);
}

TEST_F(CuckooTable, UsesSevenLgNAsTheEvictionLimit) {
  const auto seed = testing::test_seed(11);
  HASHLAB_TRACE_SEED(seed);
  const auto p = make_pairs(100000, seed);
  CuckooConfig config;
  config.seed = seed;
  CuckooHashTable table(config);
  build_and_check(p, config, stream, &table);
  EXPECT_EQ(table.stats().max_iterations, 7u * 17u);  // 7 lg N, lg 100000 rounded up = 17
}

// Section 4.5.3: inserting N items into m slots takes about -m ln(1 - N/m) exchanges (2.01 N at
// 1.25 N, 1.15 N at 4 N; the parallel build adds a few percent), and section 4.2: the median
// chain is one or two exchanges. Broken evictions (an evicted item dropped, or re-inserted at
// the wrong slot) or a broken count move these numbers far outside the bands.
TEST_F(CuckooTable, EvictionChainsFollowTheCostModel) {
  const auto seed = testing::test_seed(12);
  HASHLAB_TRACE_SEED(seed);
  const std::size_t n = 1u << 20;
  const auto p = make_pairs(n, seed);
  for (const double space : {1.25, 4.0}) {
    SCOPED_TRACE("space " + std::to_string(space) + " N");
    CuckooConfig config;
    config.seed = seed;
    config.space_factor = space;
    config.count_evictions = true;
    CuckooHashTable table(config);
    build_and_check(p, config, stream, &table);
    const auto& s = table.stats();
    const ChainSummary chains = s.chains();
    ASSERT_EQ(s.chain_lengths.size(), s.max_iterations + std::size_t{1});
    EXPECT_EQ(s.chain_lengths[0], 0u);      // every thread makes at least one exchange
    EXPECT_EQ(chains.chains, n);            // one chain per input pair
    EXPECT_EQ(chains.exchanges, s.exchanges);
    const double model = CostModel::expected_updates(static_cast<double>(n), table.table_size()) / n;
    EXPECT_NEAR(chains.mean, model, 0.15 * model) << "exchanges per pair vs the model's " << model;
    EXPECT_GE(chains.median, 1u);
    EXPECT_LE(chains.median, 2u);
    EXPECT_LT(s.chain_lengths[1], n);       // some items were evicted and moved on
    EXPECT_GT(chains.max, 2u);
  }
}

// After all the evictions every item sits in exactly one slot, one of its own h_1 .. h_k, with
// its value; no slot holds anything else.
TEST_F(CuckooTable, EvictionsLeaveEveryItemInOneOfItsSlots) {
  const auto seed = testing::test_seed(13);
  HASHLAB_TRACE_SEED(seed);
  const auto p = make_pairs(200000, seed);
  for (const RoundRobin rule : {RoundRobin::kSkipRepeatedSlots, RoundRobin::kShortCircuit}) {
    SCOPED_TRACE(to_string(rule));
    CuckooConfig config;
    config.seed = seed;
    config.round_robin = rule;
    CuckooHashTable table(config);
    build_and_check(p, config, stream, &table);
    const auto slots = copy_to_host(table.slots(), table.table_size(), stream);
    const HashFunctions& h = table.hash_functions();
    std::map<std::uint32_t, std::uint32_t> value_of;
    for (std::size_t i = 0; i < p.keys.size(); ++i) value_of[p.keys[i]] = p.values[i];
    std::set<std::uint32_t> seen;
    std::size_t occupied = 0, misplaced = 0, foreign = 0, wrong_value = 0, repeated = 0;
    for (std::uint32_t s = 0; s < slots.size(); ++s) {
      if (slots[s] == kEmptyEntry) continue;
      ++occupied;
      const std::uint32_t key = get_key(slots[s]);
      const auto it = value_of.find(key);
      if (it == value_of.end()) {
        ++foreign;
        continue;
      }
      wrong_value += get_value(slots[s]) != it->second;
      repeated += !seen.insert(key).second;
      bool own = false;
      for (int i = 0; i < h.count; ++i) own = own || h(i, key) == s;
      misplaced += !own;
    }
    EXPECT_EQ(occupied, p.keys.size());
    EXPECT_EQ(seen.size(), p.keys.size());
    EXPECT_EQ(foreign, 0u);
    EXPECT_EQ(wrong_value, 0u);
    EXPECT_EQ(repeated, 0u);
    EXPECT_EQ(misplaced, 0u);
  }
}

TEST_F(CuckooTable, AnEvictionLimitTooShortFailsEveryAttempt) {
  // 50000 items in 1.25 N slots: many share their h_1 slot, so a chain of two exchanges is
  // certain; a limit of 1 must fail every attempt, a limit of 40 must not.
  const auto p = make_pairs(50000, 3);
  CuckooConfig config;
  config.max_iterations = 1;
  config.max_attempts = 3;
  CuckooHashTable tight(config);
  auto dk = to_device(p.keys, stream);
  auto dv = to_device(p.values, stream);
  EXPECT_THROW(tight.build(dk.data(), dv.data(), p.keys.size(), stream), BuildFailure);
  config.max_iterations = 40;
  config.max_attempts = kDefaultMaxAttempts;
  config.count_evictions = true;
  CuckooHashTable table(config);
  build_and_check(p, config, stream, &table);
  EXPECT_EQ(table.stats().max_iterations, 40u);
  EXPECT_GT(table.stats().longest_chain, 1u);
}

TEST_F(CuckooTable, RestartsThenFailsCleanlyWhenTheTableCannotBeBuilt) {
  // Two functions in exactly N slots: far below the ~2.1 N the chapter found practical.
  const auto p = make_pairs(20000, 5);
  CuckooConfig config;
  config.num_hash_functions = 2;
  config.space_factor = 1.0;
  config.max_attempts = 3;
  CuckooHashTable table(config);
  auto dk = to_device(p.keys, stream);
  auto dv = to_device(p.values, stream);
  try {
    table.build(dk.data(), dv.data(), p.keys.size(), stream);
    FAIL() << "the build should have failed";
  } catch (const BuildFailure& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("N = 20000"), std::string::npos) << what;
    EXPECT_NE(what.find("table size = 20000"), std::string::npos) << what;
    EXPECT_NE(what.find("2 hash functions"), std::string::npos) << what;
    EXPECT_NE(what.find("3 attempts"), std::string::npos) << what;
  }
  // The failed table answers no queries (it would drop keys).
  DeviceBuffer<std::uint32_t> found(p.keys.size(), stream);
  EXPECT_THROW(table.find(dk.data(), p.keys.size(), found.data(), stream), std::logic_error);
  // The table is usable again afterwards with workable parameters.
  CuckooHashTable ok;
  ok.build(dk.data(), dv.data(), p.keys.size(), stream);
  EXPECT_EQ(ok.stats().n, 20000u);
}

TEST_F(CuckooTable, CountsRestartsAndRebuildsWithNewConstants) {
  // Two keys in 3 slots with an eviction limit of 1: an attempt fails exactly when h_1 sends
  // both keys to the same slot (probability 1/3), so 40 builds restart at least once (the seeds
  // are fixed, so this is deterministic), and every build that returns is correct.
  Pairs p;
  p.keys = {100, 200};
  p.values = {1, 2};
  p.absent = {300};
  CuckooConfig config;
  config.space_factor = 1.5;
  config.max_iterations = 1;
  config.max_attempts = 100;
  int restarts = 0;
  for (int b = 0; b < 40; ++b) {
    config.seed = 100 + b;
    CuckooHashTable table(config);
    build_and_check(p, config, stream, &table);
    EXPECT_EQ(table.stats().restarts(), table.stats().attempts - 1);
    restarts += table.stats().restarts();
  }
  EXPECT_GT(restarts, 0);
}

TEST_F(CuckooTable, RejectsTheEmptyKeyClearly) {
  std::vector<std::uint32_t> keys = {1, 2, kEmptyKey, 4}, values = {1, 2, 3, 4};
  auto dk = to_device(keys, stream);
  auto dv = to_device(values, stream);
  CuckooHashTable table;
  try {
    table.build(dk.data(), dv.data(), keys.size(), stream);
    FAIL() << "key 0xffffffff must be refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("0xffffffff"), std::string::npos) << e.what();
  }
}

TEST_F(CuckooTable, QueryingTheEmptyKeyIsAMiss) {
  std::vector<std::uint32_t> keys = {1, 2}, values = {10, 20}, queries = {kEmptyKey, 2};
  auto dk = to_device(keys, stream);
  auto dv = to_device(values, stream);
  auto dq = to_device(queries, stream);
  CuckooHashTable table;
  table.build(dk.data(), dv.data(), 2, stream);
  DeviceBuffer<std::uint32_t> out(2, stream);
  table.find(dq.data(), 2, out.data(), stream);
  EXPECT_EQ(out.to_host(stream), (std::vector<std::uint32_t>{kNotFound, 20}));
}

TEST_F(CuckooTable, DuplicateKeysKeepEveryCopyAndFindReturnsOneOfTheirValues) {
  // Documented behaviour (README): the basic table assumes unique keys; a repeated key takes one
  // slot per copy and a lookup returns the value of one of the copies.
  std::vector<std::uint32_t> keys = {7, 8, 7, 9}, values = {1, 2, 3, 4};
  auto dk = to_device(keys, stream);
  auto dv = to_device(values, stream);
  CuckooHashTable table;
  table.build(dk.data(), dv.data(), keys.size(), stream);
  std::vector<std::uint32_t> queries = {7, 8, 9};
  auto dq = to_device(queries, stream);
  DeviceBuffer<std::uint32_t> out(3, stream);
  table.find(dq.data(), 3, out.data(), stream);
  const auto got = out.to_host(stream);
  EXPECT_TRUE(got[0] == 1 || got[0] == 3) << got[0];
  EXPECT_EQ(got[1], 2u);
  EXPECT_EQ(got[2], 4u);
  const auto slots = copy_to_host(table.slots(), table.table_size(), stream);
  EXPECT_EQ(std::count_if(slots.begin(), slots.end(), [](std::uint64_t e) { return get_key(e) == 7; }), 2);
}

TEST_F(CuckooTable, MoreCopiesOfAKeyThanFunctionsFailWithAClearError) {
  std::vector<std::uint32_t> keys(5, 42u), values = {1, 2, 3, 4, 5};
  keys.push_back(1);
  values.push_back(6);
  auto dk = to_device(keys, stream);
  auto dv = to_device(values, stream);
  CuckooConfig config;
  config.max_attempts = 2;
  CuckooHashTable table(config);
  try {
    table.build(dk.data(), dv.data(), keys.size(), stream);
    FAIL() << "5 copies of one key cannot fit in its 4 slots";
  } catch (const BuildFailure& e) {
    EXPECT_NE(std::string(e.what()).find("unique"), std::string::npos) << e.what();
  }
}

TEST_F(CuckooTable, ExactArithmeticFailsOnKeysEqualModP) {
  // 13 keys k + j p (all < 2^32) are equal mod p: the exact form maps them to the same 4 slots,
  // the chapter's 32-bit form spreads them.
  std::vector<std::uint32_t> keys, values;
  for (std::uint32_t j = 0; j < 12; ++j) {
    keys.push_back(12345u + j * kPrime);
    values.push_back(j);
  }
  auto dk = to_device(keys, stream);
  auto dv = to_device(values, stream);
  CuckooConfig exact;
  exact.hash = HashKind::kMultiplyExact;
  exact.max_attempts = 3;
  CuckooHashTable bad(exact);
  EXPECT_THROW(bad.build(dk.data(), dv.data(), keys.size(), stream), BuildFailure);
  Pairs p;
  p.keys = keys;
  p.values = values;
  p.absent = {12345u + 12 * kPrime, 1};
  build_and_check(p, CuckooConfig{}, stream);
}

TEST_F(CuckooTable, BuildsWithEveryBlockSize) {
  const auto p = make_pairs(30000, 13);
  for (int block : {32, 64, 128, 256, 1024}) {
    CuckooConfig config;
    config.block_size = block;
    build_and_check(p, config, stream);
  }
}

TEST_F(CuckooTable, RebuildReplacesTheContents) {
  const auto a = make_pairs(5000, 21);
  const auto b = make_pairs(7000, 22);
  CuckooHashTable table;
  build_and_check(a, CuckooConfig{}, stream, &table);
  build_and_check(b, CuckooConfig{}, stream, &table);
}

class CuckooTableLarge : public testing::GpuTest {
 protected:
  testing::LazyStream stream;
};

TEST_F(CuckooTableLarge, TenMillionRandomPairs) {
  const auto seed = testing::test_seed(10);
  HASHLAB_TRACE_SEED(seed);
  CuckooConfig config;
  config.seed = seed;
  build_and_check(make_pairs(10000000, seed), config, stream);
}

}  // namespace
}  // namespace hashlab::cuckoo
