// Bad input is refused with a message that says what and why (no GPU needed).
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "hashlab/rapids_groupby/groupby.hpp"
#include "../src/dataset.hpp"
#include "../src/table.cuh"

namespace hashlab::rapids {
namespace {

const std::uint32_t kKeys[4] = {1, 2, 3, 4};
const std::int32_t kValues[4] = {1, 2, 3, 4};

GroupByInput<std::int32_t> small_input() {
  GroupByInput<std::int32_t> in;
  in.keys = kKeys;
  in.key_columns = 1;
  in.values = kValues;
  in.value_columns = 1;
  in.rows = 4;
  return in;
}

std::string message_of(const GroupByInput<std::int32_t>& in, const std::vector<Aggregation>& ops,
                       const GroupByOptions& opt = {}) {
  try {
    validate(in, ops, opt);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(RapidsValidation, AcceptsAWellFormedInput) { EXPECT_EQ(message_of(small_input(), {Aggregation::kSum}), ""); }

TEST(RapidsValidation, RejectsColumnCountMismatches) {
  EXPECT_NE(message_of(small_input(), {Aggregation::kSum, Aggregation::kMin}).find("2 reductions for 1 value"),
            std::string::npos);
  EXPECT_NE(message_of(small_input(), {}).find("0 reductions"), std::string::npos);
  auto in = small_input();
  in.key_columns = 0;
  EXPECT_NE(message_of(in, {Aggregation::kSum}).find("0 key columns"), std::string::npos);
  in.key_columns = 9;
  EXPECT_NE(message_of(in, {Aggregation::kSum}).find("9 key columns"), std::string::npos);
  in = small_input();
  in.value_columns = 0;
  EXPECT_NE(message_of(in, {}).find("0 value columns"), std::string::npos);
}

TEST(RapidsValidation, RejectsUnknownReductions) {
  EXPECT_NE(message_of(small_input(), {static_cast<Aggregation>(7)}).find("unknown reduction"), std::string::npos);
  EXPECT_THROW(reference::parse_aggregation("median"), std::invalid_argument);
}

TEST(RapidsValidation, RejectsMissingDataAndBadTableOptions) {
  auto in = small_input();
  in.keys = nullptr;
  EXPECT_NE(message_of(in, {Aggregation::kSum}).find("null"), std::string::npos);
  GroupByOptions cpu;
  cpu.sampling = Sampling::kCpu;
  EXPECT_NE(message_of(small_input(), {Aggregation::kSum}, cpu).find("host copy"), std::string::npos);
  GroupByOptions fixed;
  fixed.sampling = Sampling::kNone;
  EXPECT_NE(message_of(small_input(), {Aggregation::kSum}, fixed).find("fixed table size 0"), std::string::npos);
  GroupByOptions factor;
  factor.table_factor = 0.5;
  EXPECT_NE(message_of(small_input(), {Aggregation::kSum}, factor).find("table factor"), std::string::npos);
}

TEST(RapidsValidation, RejectsMoreRowsThanRowIndicesHold) {
  auto in = small_input();
  in.rows = std::size_t{1} << 31;
  EXPECT_NE(message_of(in, {Aggregation::kSum}).find("32-bit row indices"), std::string::npos);
}

TEST(RapidsValidation, EmptyInputIsValid) {
  auto in = small_input();
  in.rows = 0;
  in.keys = nullptr;
  in.values = nullptr;
  EXPECT_EQ(message_of(in, {Aggregation::kSum}), "");
}

TEST(RapidsPackedOps, SixteenOpsRoundTripAndCountColumnOnlyWhenNeeded) {
  std::vector<Aggregation> ops;
  for (int v = 0; v < detail::kMaxValueColumns; ++v) ops.push_back(static_cast<Aggregation>(v % 5));
  const detail::PackedOps packed = detail::pack(ops);
  ASSERT_EQ(packed.count, detail::kMaxValueColumns);
  for (int v = 0; v < packed.count; ++v) EXPECT_EQ(packed.at(v), ops[v]) << "column " << v;
  EXPECT_TRUE(packed.needs_count);
  EXPECT_FALSE(detail::pack({Aggregation::kSum, Aggregation::kSum, Aggregation::kMin}).needs_count);
  EXPECT_TRUE(detail::pack({Aggregation::kMean}).needs_count);
}

TEST(Dataset, SplitHostColumnsCutsTheColumnMajorArraysIntoOneVectorPerColumn) {
  Dataset<std::int32_t> d;
  d.rows = 3;
  d.key_columns = 2;
  d.value_columns = 2;
  d.host_keys = {1, 2, 3, 10, 20, 30};
  d.host_values = {-1, -2, -3, 7, 8, 9};
  d.split_host_columns();
  EXPECT_EQ(d.key_columns_host, (std::vector<std::vector<std::uint32_t>>{{1, 2, 3}, {10, 20, 30}}));
  EXPECT_EQ(d.value_columns_host, (std::vector<std::vector<std::int32_t>>{{-1, -2, -3}, {7, 8, 9}}));
  d.split_host_columns();  // again: the same, not appended
  EXPECT_EQ(d.key_columns_host.size(), 2u);
}

}  // namespace
}  // namespace hashlab::rapids
