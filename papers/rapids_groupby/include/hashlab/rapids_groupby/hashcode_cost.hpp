// Section 3's remark on hashcode(): "multiply by 31 can be implemented with left shift
// operations, followed by a subtraction, as x times 31 equals to (x << 5) - x. This operation is
// relatively cheaper to compute in binary than multiplication." Measured by the `hashcode_cost`
// experiment: the same chained hashcodes computed with each form of x * 31. The paper's claim is
// about its two forms with the constant 31 (kMultiplyConstant against kAsCompiled); the run-time
// forms show what each instruction sequence costs when the compiler cannot choose.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace hashlab::rapids {

/// How one step of hashcode() multiplies by 31.
enum class Times31 {
  kShiftSubtract,  // (x << s) - x with s = 5 passed at run time: the compiler must shift and subtract
  kMultiply,       // x * m with m = 31 passed at run time: the compiler must multiply
  kAsCompiled,     // hash::times31, (x << 5) - x with constants: what the group-by runs, and the
                   // paper's form (the compiler picks the instructions)
  kMultiplyConstant,  // x * 31 with the constant: the multiplication the paper compares it with
                      // (the compiler picks the instructions here too)
};
const char* to_string(Times31 form);

/// For each row, `rounds` passes of Horner's rule over its key tuple: h = h * 31 + keys[c] for
/// c = key_columns - 1 .. 0, `rounds` times over, from h = 0 (one round is section 3's hashcode).
/// Keys column-major (key_columns x rows, 1 <= key_columns <= kMaxKeyColumns); out[row] = h.
void chained_hashcodes(const std::uint32_t* keys, int key_columns, std::size_t rows, int rounds, Times31 form,
                       std::uint32_t* out, cudaStream_t stream);

/// The same for one row on the host (the oracle): `row_keys[c]` is key column c of the row.
std::uint32_t chained_hashcode_host(const std::uint32_t* row_keys, int key_columns, int rounds);

}  // namespace hashlab::rapids
