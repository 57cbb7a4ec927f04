// Run-time choices as template arguments (host code). A kernel that is compiled once per
// choice pays nothing at run time for the branches it does not take: a counted run's tallies,
// a hash function's kind, the number of hash functions (whose slots then live in registers).
//
//   dispatch_bool(work != nullptr, [&](auto counted) {        // std::true_type or std::false_type
//     phase1_no_probe_insert<decltype(counted)::value><<<grid, block, 0, stream>>>(..., work);
//   });
//   dispatch_value<2, 3, 4, 5>(count, [&](auto k) { retrieve<decltype(k)::value><<<...>>>(...); });
#pragma once

#include <type_traits>

namespace hashlab {

/// Calls f(std::true_type{}) when `flag`, else f(std::false_type{}); returns what f returns
/// (the same type for both).
template <class F>
decltype(auto) dispatch_bool(bool flag, F&& f) {
  if (flag) return f(std::true_type{});
  return f(std::false_type{});
}

/// Calls f(std::integral_constant<decltype(v), v>{}) for the first v of kValues that equals
/// `value` (an integer or an enumerator) and returns true; returns false, calling nothing, when
/// none does (the caller says what was wrong).
template <auto... kValues, class T, class F>
bool dispatch_value(T value, F&& f) {
  return ((value == kValues ? (f(std::integral_constant<decltype(kValues), kValues>{}), true) : false) || ...);
}

}  // namespace hashlab
