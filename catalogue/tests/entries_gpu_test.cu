// Every entry of the catalogue against the references, on small inputs, with the columns on the
// host, on the device (used in place) and in both (GPU; skips without one).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "hashlab/catalogue/catalogue.hpp"
#include "hashlab/catalogue/servers_groupby.hpp"
#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/generator.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab::catalogue {
namespace {

using testing::GpuTest;
using testing::LazyStream;

enum class Where { kHost, kDevice, kBoth };
const char* where_name(Where w) { return w == Where::kHost ? "host" : w == Where::kDevice ? "device" : "both"; }

/// A host vector and its device copy, and the column of either or both.
struct Owned {
  std::vector<std::uint32_t> host;
  DeviceBuffer<std::uint32_t> device;
  Owned(std::vector<std::uint32_t> values, cudaStream_t stream) : host(std::move(values)), device(to_device(host, stream)) {
    HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream));  // the references read the columns on other streams
  }
  Column column(Where w, const char* name) const {
    Column c = Column::in_both(host, device.data(), name);
    if (w == Where::kHost) c.device = nullptr;
    if (w == Where::kDevice) c.host = nullptr;
    return c;
  }
};

/// A device answer brought to the host, to compare with the references (detail::downloaded, which
/// reads `groups` values of each column), its columns first checked to hold exactly `groups`.
reference::GroupByResult downloaded(const DeviceGroupByResult& d, cudaStream_t stream) {
  for (const auto& k : d.keys) EXPECT_EQ(k.size(), d.groups);
  for (const auto& a : d.aggregates) EXPECT_EQ(a.exact ? a.exact_values.size() : a.real_values.size(), d.groups);
  return detail::downloaded(d, stream);
}

/// A device lookup brought to the host.
Lookup downloaded(const DeviceLookup& d, cudaStream_t stream) {
  return {d.count.to_host(stream), d.value.to_host(stream), d.total};
}

/// Every number an entry reports is one it declares.
template <class Entry>
void expect_declared(const Entry& entry, const Statistics& s) {
  for (const auto& n : s.numbers) {
    bool declared = false;
    for (const auto& spec : entry.statistics) declared |= spec.name == n.name && !spec.array;
    EXPECT_TRUE(declared) << entry.name << " reports " << n.name << " without declaring it";
  }
  for (const auto& a : s.arrays) {
    bool declared = false;
    for (const auto& spec : entry.statistics) declared |= spec.name == a.name && spec.array;
    EXPECT_TRUE(declared) << entry.name << " reports the array " << a.name << " without declaring it";
  }
}

// ---- group-by ------------------------------------------------------------------------------------

class GroupByEntries : public GpuTest {
 protected:
  LazyStream stream_;

  void expect_all_agree(const gen::KeySpec& spec, std::size_t n, const std::vector<Aggregation>& aggs, std::uint64_t seed) {
    const Owned keys(gen::generate_keys_host(spec, seed, n), stream_);
    const Owned values(gen::generate_values_host<std::uint32_t>(seed + 1, 0, 1000000, n), stream_);
    for (Where w : {Where::kHost, Where::kDevice, Where::kBoth}) {
      GroupByInput in;
      in.keys = {keys.column(w, "k")};
      in.values = {values.column(w, "v")};
      in.aggregations = aggs;
      const auto expected = oracle_groupby(in);
      for (const auto& entry : groupby_entries()) {
        SCOPED_TRACE(entry.name + " on the " + where_name(w));
        auto g = entry.make(in, {}, stream_);
        for (int run = 0; run < 2; ++run) {  // twice: a rerun must not see the previous run's state
          g->prepare(stream_);
          g->run(stream_);
          EXPECT_EQ(reference::compare(expected, g->result(stream_), 1e-12), "") << "run " << run;
        }
        // The same groups left on the device, by every group-by that computes there.
        const auto on_device = g->device_result(stream_);
        EXPECT_EQ(on_device.has_value(), entry.needs_gpu && entry.name != "mp_ega");
        if (on_device) EXPECT_EQ(reference::compare(expected, downloaded(*on_device, stream_), 1e-12), "");
        const Statistics s = g->statistics(stream_);
        expect_declared(entry, s);
        if (const Number* groups = s.number("groups")) EXPECT_EQ(groups->value, expected.groups());
      }
    }
  }
};

TEST_F(GroupByEntries, FewGroupsEveryAggregation) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  expect_all_agree(gen::KeySpec::uniform(10), 50000,
                   {Aggregation::kSum, Aggregation::kMin, Aggregation::kMax, Aggregation::kCount, Aggregation::kMean},
                   seed);
}

TEST_F(GroupByEntries, AllDistinct) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  expect_all_agree(gen::KeySpec::unique(), 30000, {Aggregation::kSum}, seed);
}

TEST_F(GroupByEntries, ZipfSkew) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  expect_all_agree(gen::KeySpec::zipf(10000, 1.2), 40000, {Aggregation::kSum, Aggregation::kMean}, seed);
}

TEST_F(GroupByEntries, RapidsGroupsByTwoDeviceKeyColumns) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const std::size_t n = 20000;
  const Owned a(gen::generate_keys_host(gen::KeySpec::uniform(50), seed, n), stream_);
  const Owned b(gen::generate_keys_host(gen::KeySpec::uniform(7), seed + 1, n), stream_);
  const Owned v(gen::generate_values_host<std::uint32_t>(seed + 2, 0, 1000, n), stream_);
  GroupByInput in;
  in.keys = {a.column(Where::kDevice, "a"), b.column(Where::kDevice, "b")};
  in.values = {v.column(Where::kDevice, "v")};
  in.aggregations = {Aggregation::kSum, Aggregation::kMax};
  for (const char* name : {"rapids", "cpu_stl"}) {
    auto g = groupby_entry(name).make(in, {}, stream_);
    g->run(stream_);
    EXPECT_EQ(reference::compare(oracle_groupby(in), g->result(stream_)), "") << name;
    if (auto d = g->device_result(stream_))  // sorted by the key tuple on the device
      EXPECT_EQ(reference::compare(oracle_groupby(in), downloaded(*d, stream_)), "") << name;
  }
}

TEST_F(GroupByEntries, RapidsEverySamplingOnIntegersAndReals) {
  const std::size_t n = 40000;
  const Owned a(gen::generate_keys_host(gen::KeySpec::uniform(40), 21, n), stream_);
  const Owned b(gen::generate_keys_host(gen::KeySpec::uniform(3), 22, n), stream_);
  // RAPIDS aggregates int32 or float64 values: the integers stay inside int32 (the keys do not).
  std::vector<double> reals(n);
  std::vector<std::int64_t> ints(n);
  for (std::size_t i = 0; i < n; ++i) {
    reals[i] = static_cast<double>(a.host[i] % 1000) / 8;
    ints[i] = static_cast<std::int64_t>(a.host[i] % 2000000) - 1000000;
  }
  for (bool real : {false, true}) {
    GroupByInput in;
    in.keys = {a.column(Where::kHost, "a"), b.column(Where::kDevice, "b")};
    in.values = {real ? Column::on_host(reals, "v") : Column::on_host(ints, "v")};
    in.aggregations = {Aggregation::kSum, Aggregation::kMin, Aggregation::kMax, Aggregation::kCount, Aggregation::kMean};
    for (const char* sampling : {"none", "cpu", "gpu"}) {
      auto g = groupby_entry("rapids").make(in, {{"sampling", sampling}}, stream_);
      g->run(stream_);
      EXPECT_EQ(reference::compare(oracle_groupby(in), g->result(stream_), 1e-9), "")
          << "real " << real << ", sampling " << sampling;
      EXPECT_EQ(reference::compare(oracle_groupby(in), downloaded(*g->device_result(stream_), stream_), 1e-9), "")
          << "on the device: real " << real << ", sampling " << sampling;
    }
  }
}

TEST_F(GroupByEntries, MpEgaWithinASmallBudget) {
  const std::size_t n = 2000000;  // 16 MB of pairs in a budget of 4 MiB: many tiles and partitions
  const Owned keys(gen::generate_keys_host(gen::KeySpec::uniform(300000), 23, n), stream_);
  const Owned values(gen::generate_values_host<std::uint32_t>(24, 0, 1000, n), stream_);
  GroupByInput in;
  in.keys = {keys.column(Where::kHost, "k")};
  in.values = {values.column(Where::kHost, "v")};
  in.aggregations = {Aggregation::kSum, Aggregation::kMean};
  auto g = groupby_entry("mp_ega").make(in, {{"gpu_memory_budget", "4MiB"}}, stream_);
  g->run(stream_);
  EXPECT_EQ(reference::compare(oracle_groupby(in), g->result(stream_), 1e-12), "");
  EXPECT_GT(g->statistics(stream_).number("tiles")->value, 1);
}

TEST_F(GroupByEntries, LphgaNearAFullTableSaysSoAndLengthFactorAvoidsIt) {
  const std::size_t n = 20000;
  const Owned keys(gen::generate_keys_host(gen::KeySpec::unique(), 3, n), stream_);
  const Owned values(gen::generate_values_host<std::uint32_t>(4, 0, 1000, n), stream_);
  GroupByInput in;
  in.keys = {keys.column(Where::kDevice, "k")};
  in.values = {values.column(Where::kDevice, "v")};
  auto full = groupby_entry("lphga").make(in, {}, stream_);
  full->prepare(stream_);
  full->run(stream_);
  ASSERT_EQ(full->warnings().size(), 1u);
  EXPECT_NE(full->warnings()[0].find("length_factor=2"), std::string::npos) << full->warnings()[0];
  auto roomy = groupby_entry("lphga").make(in, {{"length_factor", "2"}}, stream_);
  roomy->prepare(stream_);
  roomy->run(stream_);
  EXPECT_TRUE(roomy->warnings().empty());
  EXPECT_EQ(reference::compare(oracle_groupby(in), roomy->result(stream_)), "");
}

TEST_F(GroupByEntries, ADeviceColumnOfAnotherTypeOrTheEmptyKeyIsRefused) {
  const std::vector<std::int64_t> wide(10, 1);
  DeviceBuffer<std::int64_t> d_wide = to_device(wide, stream_);
  std::vector<std::uint32_t> k(10, 1);
  k[6] = 0xffffffffu;
  const Owned keys(k, stream_);
  GroupByInput in;
  in.keys = {keys.column(Where::kDevice, "k")};
  in.values = {Column::on_device(d_wide.data(), 10, "w")};
  EXPECT_THROW(groupby_entry("sort").make(in, {}, stream_), std::invalid_argument);  // int64 on the device
  const Owned v(std::vector<std::uint32_t>(10, 2), stream_);
  in.values = {v.column(Where::kDevice, "v")};
  EXPECT_THROW(groupby_entry("sp_ega").make(in, {}, stream_), std::invalid_argument);  // found on the device
}

// A device column is read where it is: every GPU group-by reads the caller's addresses (RAPIDS with
// one value column and one aggregation: several make it a column-major matrix), the host ones
// (mp_ega: its data lies in host memory; the CPU group-bys) read none.
TEST_F(GroupByEntries, ADeviceColumnIsReadInPlaceNotCopied) {
  const std::size_t n = 30000;
  const Owned keys(gen::generate_keys_host(gen::KeySpec::uniform(500), 31, n), stream_);
  const Owned values(gen::generate_values_host<std::uint32_t>(32, 0, 1000, n), stream_);
  GroupByInput in;
  in.keys = {keys.column(Where::kDevice, "k")};
  in.values = {values.column(Where::kDevice, "v")};
  for (const auto& entry : groupby_entries()) {
    auto g = entry.make(in, {}, stream_);
    const bool in_place = entry.needs_gpu && entry.name != "mp_ega";
    const std::vector<const void*> expected = in_place ? std::vector<const void*>{keys.device.data(), values.device.data()}
                                                       : std::vector<const void*>{};
    EXPECT_EQ(g->device_inputs(), expected) << entry.name;
  }
  // A host column is uploaded: the group-by reads its own copy.
  in.values = {values.column(Where::kHost, "v")};
  auto g = groupby_entry("sort").make(in, {}, stream_);
  ASSERT_EQ(g->device_inputs().size(), 2u);
  EXPECT_EQ(g->device_inputs()[0], keys.device.data());
  EXPECT_NE(g->device_inputs()[1], nullptr);
  EXPECT_NE(g->device_inputs()[1], static_cast<const void*>(values.device.data()));  // not the column given
}

// A device-only float64 column gets the host column's NaN check, on the device, before any
// algorithm reads it; the same column without the NaN is taken.
TEST_F(GroupByEntries, ADeviceNaNIsRefusedNamingItsRow) {
  const std::size_t n = 5000;
  const Owned keys(gen::generate_keys_host(gen::KeySpec::uniform(50), 33, n), stream_);
  std::vector<double> reals(n, 1.25);
  reals[4321] = std::nan("");
  DeviceBuffer<double> with_nan = to_device(reals, stream_);
  reals[4321] = 1.25;
  DeviceBuffer<double> clean = to_device(reals, stream_);
  HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream_));
  GroupByInput in;
  in.keys = {keys.column(Where::kDevice, "k")};
  for (const char* name : {"rapids", "cpu", "cpu_stl"}) {
    in.values = {Column::on_device(with_nan.data(), n, "r")};
    try {
      groupby_entry(name).make(in, {}, stream_);
      ADD_FAILURE() << name << " took a NaN";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("r: row 4321 is NaN"), std::string::npos) << e.what();
    }
    in.values = {Column::on_device(clean.data(), n, "r")};
    auto g = groupby_entry(name).make(in, {}, stream_);
    g->run(stream_);
    EXPECT_EQ(reference::compare(oracle_groupby(in), g->result(stream_), 1e-12), "") << name;
  }
}

// ---- joins ---------------------------------------------------------------------------------------

class JoinEntries : public GpuTest {
 protected:
  LazyStream stream_;
};

TEST_F(JoinEntries, EveryJoinGivesTheReferenceRows) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  for (double rate : {0.0, 0.3, 1.0}) {
    gen::PkPkSpec spec;
    spec.r_rows = 20000;
    spec.s_rows = 15000;
    spec.match_rate = rate;
    std::vector<std::uint32_t> r_keys, s_keys;
    gen::generate_pkpk_host(spec, seed, r_keys, s_keys);
    const Owned r(r_keys, stream_), s(s_keys, stream_);
    const Owned rv(gen::generate_values_host<std::uint32_t>(seed + 1, 0, 0xfffffffeu, spec.r_rows), stream_);
    const Owned sv(gen::generate_values_host<std::uint32_t>(seed + 2, 0, 0xfffffffeu, spec.s_rows), stream_);
    for (Where w : {Where::kHost, Where::kDevice}) {
      const JoinInput in{r.column(w, "r"), rv.column(w, "rv"), s.column(w, "s"), sv.column(w, "sv")};
      const auto expected = oracle_join(in);
      for (const auto& entry : join_entries()) {
        SCOPED_TRACE(entry.name + std::string(" on the ") + where_name(w) + " at match rate " + std::to_string(rate));
        auto join = entry.make(in, {}, stream_);
        join->run(stream_);
        EXPECT_EQ(compare_rows(expected, join->result(stream_)), "");
        expect_declared(entry, join->statistics(stream_));
        EXPECT_EQ(join->device_rows() == nullptr, !entry.needs_gpu);
      }
    }
  }
}

// Every GPU join reads the caller's device columns where they are (the CPU join reads none).
TEST_F(JoinEntries, ADeviceColumnIsReadInPlaceNotCopied) {
  gen::PkPkSpec spec;
  spec.r_rows = 20000;
  spec.s_rows = 10000;
  std::vector<std::uint32_t> r_keys, s_keys;
  gen::generate_pkpk_host(spec, 34, r_keys, s_keys);
  const Owned r(r_keys, stream_), s(s_keys, stream_);
  const Owned rv(gen::generate_values_host<std::uint32_t>(35, 0, 1000, spec.r_rows), stream_);
  const Owned sv(gen::generate_values_host<std::uint32_t>(36, 0, 1000, spec.s_rows), stream_);
  const JoinInput in{r.column(Where::kDevice, "r"), rv.column(Where::kDevice, "rv"), s.column(Where::kDevice, "s"),
                     sv.column(Where::kDevice, "sv")};
  for (const auto& entry : join_entries()) {
    auto join = entry.make(in, {}, stream_);
    const std::vector<const void*> expected =
        entry.needs_gpu ? std::vector<const void*>{r.device.data(), rv.device.data(), s.device.data(), sv.device.data()}
                        : std::vector<const void*>{};
    EXPECT_EQ(join->device_inputs(), expected) << entry.name;
  }
}

/// The message of the std::invalid_argument `make` throws, or "" when it takes the input.
template <class Make>
std::string refusal(Make&& make) {
  try {
    make();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

// A repeated key in a device-only column is refused by make(), on the device, with the words the
// host check gives for the same column (the smallest repeated key, its first two rows); the host
// check() cannot see it. The same tables without the repeat are taken.
TEST_F(JoinEntries, ARepeatedKeyInADeviceColumnIsRefusedAsOnTheHost) {
  const std::size_t n = 70000;
  std::vector<std::uint32_t> keys(n);
  std::iota(keys.begin(), keys.end(), 10u);
  auto repeated = keys;
  repeated[65000] = repeated[777];
  repeated[69000] = repeated[65000];
  const Owned unique(keys, stream_), dup(repeated, stream_), values(std::vector<std::uint32_t>(n, 3), stream_);
  const std::string words = "r: key 787 appears at rows 777 and 65000; a Pk-Pk join needs unique keys in each table";
  for (const auto& entry : join_entries()) {
    SCOPED_TRACE(entry.name);
    const JoinInput on_host{dup.column(Where::kHost, "r"), values.column(Where::kHost, "rv"),
                            unique.column(Where::kHost, "s"), values.column(Where::kHost, "sv")};
    EXPECT_EQ(refusal([&] { entry.check(on_host, {}); }), words);
    const JoinInput on_device{dup.column(Where::kDevice, "r"), values.column(Where::kDevice, "rv"),
                              unique.column(Where::kDevice, "s"), values.column(Where::kDevice, "sv")};
    entry.check(on_device, {});  // check() reads host columns only
    EXPECT_EQ(refusal([&] { entry.make(on_device, {}, stream_); }), words);
    const JoinInput s_repeats{unique.column(Where::kDevice, "r"), values.column(Where::kDevice, "rv"),
                              dup.column(Where::kDevice, "s"), values.column(Where::kDevice, "sv")};
    EXPECT_EQ(refusal([&] { entry.make(s_repeats, {}, stream_); }),
              "s: key 787 appears at rows 777 and 65000; a Pk-Pk join needs unique keys in each table");
    const JoinInput fine{unique.column(Where::kDevice, "r"), values.column(Where::kDevice, "rv"),
                         unique.column(Where::kDevice, "s"), values.column(Where::kDevice, "sv")};
    EXPECT_EQ(refusal([&] { entry.make(fine, {}, stream_); }), "");
  }
  // sort_join_hmap's key_domain, on a device column: its largest key.
  const JoinInput on_device{unique.column(Where::kDevice, "r"), values.column(Where::kDevice, "rv"),
                            unique.column(Where::kDevice, "s"), values.column(Where::kDevice, "sv")};
  EXPECT_EQ(refusal([&] { join_entry("sort_join_hmap").make(on_device, {{"key_domain", "1000"}}, stream_); }),
            "r: the device column holds key " + std::to_string(n + 9) + ", outside key_domain 1000");
}

TEST_F(JoinEntries, ATracedBspJoinReportsItsBucketLoads) {
  gen::PkPkSpec spec;
  spec.r_rows = 100000;
  spec.s_rows = 80000;
  std::vector<std::uint32_t> r_keys, s_keys;
  gen::generate_pkpk_host(spec, 5, r_keys, s_keys);
  std::vector<std::uint32_t> rows(r_keys.size());
  std::iota(rows.begin(), rows.end(), 0u);
  const Owned r(r_keys, stream_), s(s_keys, stream_), rv(rows, stream_);
  const Owned sv(std::vector<std::uint32_t>(rows.begin(), rows.begin() + s_keys.size()), stream_);
  const JoinInput in{r.column(Where::kDevice, "r"), rv.column(Where::kDevice, "rv"), s.column(Where::kDevice, "s"),
                     sv.column(Where::kDevice, "sv")};
  auto join = join_entry("bsp").make(in, {{"trace", "true"}}, stream_);
  join->run(stream_);
  const Statistics st = join->statistics(stream_);
  const Array* buckets = st.array("bucket_sizes");
  ASSERT_NE(buckets, nullptr);
  EXPECT_EQ(std::accumulate(buckets->values.begin(), buckets->values.end(), 0.0), double(spec.r_rows + spec.s_rows));
  EXPECT_EQ(static_cast<double>(buckets->values.size()), st.number("partitions")->value);
}

// ---- tables --------------------------------------------------------------------------------------

class TableEntries : public GpuTest {
 protected:
  LazyStream stream_;

  /// Builds `name` over n pairs drawn as `spec`, probes every key and some absent ones, checks.
  std::string build_probe_check(const std::string& name, const Options& options, const gen::KeySpec& spec,
                                std::size_t n, Where w, std::uint64_t seed) {
    const Owned keys(gen::generate_keys_host(spec, seed, n), stream_);
    const Owned values(gen::generate_values_host<std::uint32_t>(seed + 1, 0, 0xfffffffeu, n), stream_);
    auto q = keys.host;
    for (std::size_t i = 0; i < n / 10; ++i) q[i] = static_cast<std::uint32_t>(i * 7919u);  // mostly absent
    const Owned queries(q, stream_);
    const TableInput in{keys.column(w, "k"), values.column(w, "v"), queries.column(w, "q")};
    const TableEntry& entry = table_entry(name);
    auto table = entry.make(in, options, stream_);
    table->reset(stream_);
    table->build(stream_);
    table->probe(stream_);
    EXPECT_GT(table->bytes(), 0u);
    expect_declared(entry, table->statistics(stream_));
    if (w == Where::kDevice)  // read in place, not copied
      EXPECT_EQ(table->device_inputs(),
                (std::vector<const void*>{keys.device.data(), values.device.data(), queries.device.data()}));
    // The answers left on the device are the host answers, put in the same form there.
    const Lookup on_host = table->result(stream_);
    const auto on_device = table->device_result(stream_);
    EXPECT_TRUE(on_device.has_value());
    if (on_device) {
      const Lookup got = downloaded(*on_device, stream_);
      EXPECT_EQ(got.count, on_host.count);
      EXPECT_EQ(got.value, on_host.value);
      EXPECT_EQ(got.total, on_host.total);
    }
    return table->check(make_lookup_reference(keys.host, values.host, q), stream_);
  }
};

TEST_F(TableEntries, EveryTableAnswersEveryQueryOfUniqueKeys) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  for (Where w : {Where::kHost, Where::kDevice})
    for (const auto& entry : table_entries())
      EXPECT_EQ(build_probe_check(entry.name, {}, gen::KeySpec::unique(), 10000, w, seed), "")
          << entry.name << " on the " << where_name(w);
}

TEST_F(TableEntries, EveryMultivalueFormCountsRepeatedKeys) {
  const auto seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const auto spec = gen::KeySpec::multiplicity(12000, 6);
  for (const char* name : {"cuckoo", "linear_probing", "sorted_array"})
    EXPECT_EQ(build_probe_check(name, {{"multivalue", "true"}}, spec, 12000, Where::kDevice, seed), "") << name;
  for (const char* version : {"v1", "v2"})
    for (const char* probe : {"standard", "new"})
      for (const char* answer : {"pairs", "total"})
        EXPECT_EQ(build_probe_check("hashgraph", {{"version", version}, {"probe", probe}, {"answer", answer}, {"load", "4"}},
                                    spec, 12000, Where::kDevice, seed),
                  "")
            << version << " " << probe << " " << answer;
}

TEST_F(TableEntries, TheCheckCatchesAWrongReference) {
  const std::size_t n = 4000;
  const Owned keys(gen::generate_keys_host(gen::KeySpec::unique(), 9, n), stream_);
  const Owned values(gen::generate_values_host<std::uint32_t>(10, 0, 1000, n), stream_);
  auto other = values.host;
  other[n / 2] += 1;
  const auto wrong = make_lookup_reference(keys.host, other, keys.host);
  const TableInput in{keys.column(Where::kDevice, "k"), values.column(Where::kDevice, "v"), keys.column(Where::kDevice, "q")};
  for (const auto& entry : table_entries()) {
    auto table = entry.make(in, {}, stream_);
    table->build(stream_);
    table->probe(stream_);
    EXPECT_NE(table->check(wrong, stream_), "") << entry.name;
  }
}

// The tables that hold one value per key refuse a device-only key column with a repeat in make(),
// as check() does a host one, and a device value column holding the not-found answer; the
// multivalue forms and HashGraph take the repeats.
TEST_F(TableEntries, ARepeatedKeyInADeviceColumnIsRefusedAsOnTheHost) {
  const std::size_t n = 5000;
  auto keys = gen::generate_keys_host(gen::KeySpec::unique(), 13, n);
  keys[4000] = keys[123];
  const Owned dup(keys, stream_), values(gen::generate_values_host<std::uint32_t>(14, 0, 1000, n), stream_);
  auto marked = values.host;
  marked[2500] = 0xffffffffu;
  keys[4000] = 1;  // unique again: a key the column does not hold
  while (std::count(keys.begin(), keys.end(), keys[4000]) > 1) ++keys[4000];
  const Owned unique(keys, stream_), marker(marked, stream_);
  const std::string key = std::to_string(keys[123]);
  for (const char* name : {"cuckoo", "linear_probing", "sorted_array"}) {
    SCOPED_TRACE(name);
    const TableEntry& entry = table_entry(name);
    const std::string words = "k: key " + key + " appears at rows 123 and 4000; " + name +
                              " holds one value per key (multivalue=true, or hashgraph, takes repeated keys)";
    const TableInput on_host{dup.column(Where::kHost, "k"), values.column(Where::kHost, "v"), dup.column(Where::kHost, "q")};
    EXPECT_EQ(refusal([&] { entry.check(on_host, {}); }), words);
    const TableInput on_device{dup.column(Where::kDevice, "k"), values.column(Where::kDevice, "v"),
                               dup.column(Where::kDevice, "q")};
    EXPECT_EQ(refusal([&] { entry.make(on_device, {}, stream_); }), words);
    EXPECT_EQ(refusal([&] { entry.make(on_device, {{"multivalue", "true"}}, stream_); }), "");
    const TableInput not_found{unique.column(Where::kDevice, "k"), marker.column(Where::kDevice, "v"),
                               unique.column(Where::kDevice, "q")};
    EXPECT_EQ(refusal([&] { entry.make(not_found, {}, stream_); }),
              std::string("v: the device column holds 4294967295, the not-found answer of ") + name);
    const TableInput fine{unique.column(Where::kDevice, "k"), values.column(Where::kDevice, "v"),
                          unique.column(Where::kDevice, "q")};
    EXPECT_EQ(refusal([&] { entry.make(fine, {}, stream_); }), "");
  }
  const TableInput on_device{dup.column(Where::kDevice, "k"), values.column(Where::kDevice, "v"),
                             dup.column(Where::kDevice, "q")};
  EXPECT_EQ(refusal([&] { table_entry("hashgraph").make(on_device, {}, stream_); }), "");
}

TEST_F(TableEntries, StatisticsArraysAddUpToTheInput) {
  const std::size_t n = 50000;
  const Owned keys(gen::generate_keys_host(gen::KeySpec::unique(), 11, n), stream_);
  const Owned values(gen::generate_values_host<std::uint32_t>(12, 0, 1000, n), stream_);
  const TableInput in{keys.column(Where::kDevice, "k"), values.column(Where::kDevice, "v"), keys.column(Where::kDevice, "q")};
  const auto sum = [](const Array* a) { return a ? std::accumulate(a->values.begin(), a->values.end(), 0.0) : -1.0; };
  auto cuckoo = table_entry("cuckoo").make(in, {{"count_evictions", "true"}}, stream_);
  cuckoo->build(stream_);
  EXPECT_EQ(sum(cuckoo->statistics(stream_).array("chain_lengths")), double(n));  // one chain per thread
  auto graph = table_entry("hashgraph").make(in, {}, stream_);
  graph->build(stream_);
  const Statistics s = graph->statistics(stream_);
  EXPECT_EQ(sum(s.array("vertex_sizes")), double(n));
  EXPECT_EQ(sum(s.array("bin_sizes")), double(n));
  EXPECT_TRUE(graph->statistics(stream_, false).arrays.empty());
}

}  // namespace
}  // namespace hashlab::catalogue
