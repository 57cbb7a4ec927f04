#include <gtest/gtest.h>

#include "hashlab/harness/json.hpp"

namespace hashlab::harness {
namespace {

TEST(Json, WriterOutputReadsBackThroughTheFlatReader) {
  JsonWriter json;
  json.begin_object();
  json.field("device", "NVIDIA \"H100\"");
  json.field("copy_gbps", 2999.5);
  json.field("count", 42);
  json.begin_object("nested");
  json.field("inner", -1.25);
  json.end_object();
  json.field("ok", true);
  json.end_object();
  std::map<std::string, double> numbers;
  std::map<std::string, std::string> strings;
  read_flat_json(json.str(), numbers, strings);
  EXPECT_EQ(strings["device"], "NVIDIA \"H100\"");
  EXPECT_DOUBLE_EQ(numbers["copy_gbps"], 2999.5);
  EXPECT_DOUBLE_EQ(numbers["count"], 42);
  EXPECT_DOUBLE_EQ(numbers["inner"], -1.25);
}

TEST(Json, QuoteEscapesControlCharactersAndQuotes) {
  EXPECT_EQ(JsonWriter::quote("a\"b\\c\nd"), "\"a\\\"b\\\\c\\nd\"");
}

TEST(Json, NonFiniteNumbersBecomeNull) {
  JsonWriter json;
  json.begin_object();
  json.field("x", 1.0 / 0.0);
  json.end_object();
  EXPECT_NE(json.str().find("null"), std::string::npos);
}

}  // namespace
}  // namespace hashlab::harness
