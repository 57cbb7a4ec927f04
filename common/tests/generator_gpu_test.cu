// The device generator draws exactly the host copy (GPU tests).
#include <gtest/gtest.h>

#include "hashlab/common/generator.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab {
namespace {

using gen::KeySpec;
using testing::GpuTest;

std::vector<std::uint32_t> device_keys(const KeySpec& spec, std::uint64_t seed, int columns, std::size_t n) {
  Stream stream;
  DeviceBuffer<std::uint32_t> keys(n * columns, stream);
  gen::generate_key_columns(spec, seed, columns, keys.data(), n, stream);
  return keys.to_host(stream);
}

class DeviceGenerator : public GpuTest {};

TEST_F(DeviceGenerator, EveryKeyDistributionEqualsTheHostCopy) {
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  const std::vector<std::pair<const char*, KeySpec>> specs = {
      {"sequence", KeySpec::sequence()},
      {"shuffled", KeySpec::shuffled_sequence()},
      {"unique", KeySpec::unique()},
      {"unique-small-domain", KeySpec::unique(3000000)},
      {"uniform-1000", KeySpec::uniform(1000)},
      {"uniform-all", KeySpec::uniform(1u << 22)},
      {"multiplicity-32", KeySpec::multiplicity(1000003, 32.0)},
      {"zipf-1", KeySpec::zipf(100000, 1.0)},
      {"zipf-0.5", KeySpec::zipf(1000, 0.5)},
  };
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{1000003}}) {
    for (const auto& [name, spec] : specs) {
      SCOPED_TRACE(std::string(name) + " n=" + std::to_string(n));
      EXPECT_EQ(device_keys(spec, seed, 1, n), gen::generate_keys_host(spec, seed, n));
    }
  }
}

TEST_F(DeviceGenerator, MultiColumnKeysEqualTheHostCopy) {
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  for (int columns : {2, 3, 8}) {
    SCOPED_TRACE("columns=" + std::to_string(columns));
    const KeySpec spec = KeySpec::uniform(5000);
    EXPECT_EQ(device_keys(spec, seed, columns, 100001), gen::generate_key_columns_host(spec, seed, columns, 100001));
  }
}

template <class T>
void expect_values_equal_host(T lo, T hi) {
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  Stream stream;
  const std::size_t n = 100003;
  DeviceBuffer<T> values(n, stream);
  gen::generate_values(seed, lo, hi, values.data(), n, stream);
  EXPECT_EQ(values.to_host(stream), gen::generate_values_host(seed, lo, hi, n));
}

TEST_F(DeviceGenerator, ValueColumnsEqualTheHostCopyForEveryType) {
  expect_values_equal_host<std::uint32_t>(0, 0xffffffffu);
  expect_values_equal_host<std::int32_t>(-1000, 1000);
  expect_values_equal_host<std::int64_t>(-5, 4000000000ll);
  expect_values_equal_host<float>(-1.0f, 1.0f);
  expect_values_equal_host<double>(0.0, 1e6);
}

TEST_F(DeviceGenerator, PkPkTablesEqualTheHostCopy) {
  const std::uint64_t seed = testing::test_seed();
  HASHLAB_TRACE_SEED(seed);
  for (const double rate : {0.0, 0.25, 1.0}) {
    gen::PkPkSpec spec{200000, 150001, 100000000, rate};
    Stream stream;
    DeviceBuffer<std::uint32_t> r(spec.r_rows, stream), s(spec.s_rows, stream);
    gen::generate_pkpk(spec, seed, r.data(), s.data(), stream);
    std::vector<std::uint32_t> hr, hs;
    gen::generate_pkpk_host(spec, seed, hr, hs);
    EXPECT_EQ(r.to_host(stream), hr) << "rate " << rate;
    EXPECT_EQ(s.to_host(stream), hs) << "rate " << rate;
  }
}

TEST_F(DeviceGenerator, RejectsImpossibleSpecsBeforeTouchingTheDevice) {
  Stream stream;
  DeviceBuffer<std::uint32_t> keys(16, stream);
  EXPECT_THROW(gen::generate_keys(KeySpec::unique(10), 1, keys.data(), 16, stream), std::invalid_argument);
}

}  // namespace
}  // namespace hashlab
