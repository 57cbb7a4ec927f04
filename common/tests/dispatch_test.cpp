// dispatch.hpp: run-time choices reach the callee as compile-time constants, exactly one call
// per dispatch, and an unknown value calls nothing.
#include <gtest/gtest.h>

#include <type_traits>
#include <vector>

#include "hashlab/common/dispatch.hpp"

namespace hashlab {
namespace {

enum class Colour { kRed, kGreen, kBlue };

TEST(DispatchBool, PassesTheFlagAsATypeAndReturnsWhatTheCalleeReturns) {
  const auto as_int = [](auto flag) {
    static_assert(std::is_same_v<decltype(flag), std::true_type> || std::is_same_v<decltype(flag), std::false_type>);
    return decltype(flag)::value ? 1 : 0;
  };
  EXPECT_EQ(dispatch_bool(true, as_int), 1);
  EXPECT_EQ(dispatch_bool(false, as_int), 0);
}

TEST(DispatchBool, NestedFlagsReachEveryCombinationOnce) {
  std::vector<int> seen;
  for (const bool a : {false, true})
    for (const bool b : {false, true})
      dispatch_bool(a, [&](auto a_c) {
        dispatch_bool(b, [&](auto b_c) { seen.push_back(2 * decltype(a_c)::value + decltype(b_c)::value); });
      });
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 2, 3}));
}

TEST(DispatchValue, CallsOnceWithTheMatchingIntegerAsAConstant) {
  for (int count = 2; count <= 5; ++count) {
    int calls = 0, got = 0;
    const bool known = dispatch_value<2, 3, 4, 5>(count, [&](auto k) {
      static_assert(std::is_same_v<typename decltype(k)::value_type, int>);
      ++calls;
      got = decltype(k)::value;
    });
    EXPECT_TRUE(known);
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(got, count);
  }
}

TEST(DispatchValue, TakesEnumerators) {
  Colour got = Colour::kRed;
  const bool known = dispatch_value<Colour::kRed, Colour::kGreen, Colour::kBlue>(Colour::kBlue, [&](auto c) {
    static_assert(std::is_same_v<typename decltype(c)::value_type, Colour>);
    got = decltype(c)::value;
  });
  EXPECT_TRUE(known);
  EXPECT_EQ(got, Colour::kBlue);
}

TEST(DispatchValue, AnUnlistedValueCallsNothingAndReturnsFalse) {
  int calls = 0;
  const auto count = [&](auto) { ++calls; };
  EXPECT_FALSE((dispatch_value<2, 3, 4, 5>(6, count)));
  EXPECT_FALSE((dispatch_value<2, 3, 4, 5>(-1, count)));
  EXPECT_FALSE((dispatch_value<Colour::kRed>(Colour::kGreen, count)));
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace hashlab
