// Section 3's x * 31 in its four forms (the hashcode_cost experiment's variants): each computes the
// host's chained hashcodes (GPU tests).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "hashlab/common/memory.hpp"
#include "hashlab/rapids_groupby/groupby.hpp"
#include "hashlab/rapids_groupby/hashcode_cost.hpp"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab::rapids {
namespace {

constexpr Times31 kForms[] = {Times31::kShiftSubtract, Times31::kMultiply, Times31::kAsCompiled,
                              Times31::kMultiplyConstant};

class HashcodeCost : public testing::GpuTest {
 protected:
  testing::LazyStream stream;

  /// Every form's chained hashcodes of random keys (column-major) against the host's.
  void expect_every_form_matches_the_host(std::size_t rows, int key_columns, int rounds) {
    const std::uint64_t seed = testing::test_seed();
    HASHLAB_TRACE_SEED(seed);
    SCOPED_TRACE(std::to_string(rows) + " rows, " + std::to_string(key_columns) + " columns, " +
                 std::to_string(rounds) + " rounds");
    std::mt19937_64 rng(seed);
    std::vector<std::uint32_t> keys(rows * key_columns);
    for (auto& k : keys) k = static_cast<std::uint32_t>(rng());  // the whole range: products wrap
    std::vector<std::uint32_t> expected(rows);
    std::vector<std::uint32_t> row_keys(key_columns);
    for (std::size_t row = 0; row < rows; ++row) {
      for (int c = 0; c < key_columns; ++c) row_keys[c] = keys[c * rows + row];
      expected[row] = chained_hashcode_host(row_keys.data(), key_columns, rounds);
    }
    const auto d_keys = to_device(keys, stream);
    for (const Times31 form : kForms) {
      DeviceBuffer<std::uint32_t> out(rows, stream);
      out.fill_bytes(0xab, stream);  // a row the kernel does not write shows
      chained_hashcodes(d_keys.data(), key_columns, rows, rounds, form, out.data(), stream);
      EXPECT_EQ(out.to_host(stream), expected) << to_string(form);
    }
  }
};

TEST_F(HashcodeCost, EveryFormComputesTheHostsChainedHashcodes) {
  expect_every_form_matches_the_host(100003, 2, 32);  // the experiment's 2 columns and 32 rounds
}

TEST_F(HashcodeCost, EveryFormWithOneAndWithTheMostKeyColumns) {
  expect_every_form_matches_the_host(4099, 1, 3);
  expect_every_form_matches_the_host(4099, kMaxKeyColumns, 3);
}

TEST_F(HashcodeCost, OneRoundIsSectionThreesHashcode) {
  // The group-by's own hashcode of a row (keys[0] + keys[1] * 31 + ...) is one round.
  const std::vector<std::uint32_t> keys = {7, 0xffffffffu, 123456789u};  // one row of three columns
  const std::uint32_t hashcode = 7u + 0xffffffffu * 31u + 123456789u * 31u * 31u;
  EXPECT_EQ(chained_hashcode_host(keys.data(), 3, 1), hashcode);
  const auto d_keys = to_device(keys, stream);
  for (const Times31 form : kForms) {
    DeviceBuffer<std::uint32_t> out(1, stream);
    chained_hashcodes(d_keys.data(), 3, 1, 1, form, out.data(), stream);
    EXPECT_EQ(out.to_host(stream)[0], hashcode) << to_string(form);
  }
}

TEST_F(HashcodeCost, ZeroRowsWriteNothingAndBadShapesAreRefused) {
  for (const Times31 form : kForms) EXPECT_NO_THROW(chained_hashcodes(nullptr, 2, 0, 32, form, nullptr, stream));
  DeviceBuffer<std::uint32_t> keys(8, stream), out(8, stream);
  EXPECT_THROW(chained_hashcodes(keys.data(), 0, 8, 1, Times31::kAsCompiled, out.data(), stream),
               std::invalid_argument);
  EXPECT_THROW(chained_hashcodes(keys.data(), kMaxKeyColumns + 1, 1, 1, Times31::kAsCompiled, out.data(), stream),
               std::invalid_argument);
  EXPECT_THROW(chained_hashcodes(keys.data(), 2, 4, -1, Times31::kMultiplyConstant, out.data(), stream),
               std::invalid_argument);
}

}  // namespace
}  // namespace hashlab::rapids
