#include <gtest/gtest.h>

#include "hashlab/harness/parse.hpp"

namespace hashlab::harness {
namespace {

TEST(ParseCount, AcceptsPlainScientificDecimalAndBinarySuffixes) {
  EXPECT_EQ(parse_count("0"), 0u);
  EXPECT_EQ(parse_count("1000"), 1000u);
  EXPECT_EQ(parse_count("1e6"), 1000000u);
  EXPECT_EQ(parse_count("10M"), 10000000u);
  EXPECT_EQ(parse_count("2.5K"), 2500u);
  EXPECT_EQ(parse_count("16Ki"), 16384u);
  EXPECT_EQ(parse_count("32Mi"), 33554432u);
  EXPECT_EQ(parse_count("1Gi"), 1073741824u);
}

TEST(ParseCount, RejectsMalformedNegativeFractionalAndUnknownSuffixes) {
  for (const char* bad : {"", "abc", "-5", "1.5", "10X", "M", "1e400"})
    EXPECT_THROW(parse_count(bad), std::invalid_argument) << bad;
}

TEST(ParseBytes, AcceptsDecimalAndBinaryUnits) {
  EXPECT_EQ(parse_bytes("4096"), 4096u);
  EXPECT_EQ(parse_bytes("2GiB"), 2147483648u);
  EXPECT_EQ(parse_bytes("512MiB"), 536870912u);
  EXPECT_EQ(parse_bytes("1GB"), 1000000000u);
  EXPECT_EQ(parse_bytes("1.5KiB"), 1536u);
  EXPECT_EQ(parse_bytes("2Gi"), 2147483648u);  // the size suffixes of counts work too
}

TEST(ParseBytes, RejectsUnknownUnits) {
  EXPECT_THROW(parse_bytes("2GiBs"), std::invalid_argument);
  EXPECT_THROW(parse_bytes("lots"), std::invalid_argument);
}

TEST(FormatCount, PrefersBinaryThenDecimalSuffixes) {
  EXPECT_EQ(format_count(33554432), "32Mi");
  EXPECT_EQ(format_count(1000000), "1M");
  EXPECT_EQ(format_count(16384), "16Ki");
  EXPECT_EQ(format_count(1234), "1234");
  EXPECT_EQ(format_count(0), "0");
  EXPECT_EQ(format_count(2000000000), "2G");  // as the user wrote it, not 1953125Ki
  EXPECT_EQ(format_count(10000000), "10M");
  EXPECT_EQ(format_count(1u << 30), "1Gi");
}

}  // namespace
}  // namespace hashlab::harness
