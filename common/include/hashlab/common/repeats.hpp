// A repeated key in a column that must hold unique keys (a map's keys, a Pk-Pk join's tables),
// found the same way on the host and on the device, so that both name the same key and rows:
// the smallest key that appears at two rows or more, and the first two rows that hold it.
//
//   if (const auto r = prim::first_repeat(d_keys, n, stream))   // or cpu::first_repeat(keys, n)
//     throw std::invalid_argument("key " + std::to_string(r->key) + " appears at rows " + ...);
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <optional>

namespace hashlab {

/// A key that appears more than once, and the two lowest rows that hold it (first_row < second_row).
struct Repeat {
  std::uint32_t key = 0;
  std::size_t first_row = 0;
  std::size_t second_row = 0;
};

namespace cpu {
/// The smallest key of keys[0, n) that appears at two rows or more, with its first two rows;
/// nothing when every key is unique. Sorts a copy of the keys (4 n bytes, cpu::radix_sort).
std::optional<Repeat> first_repeat(const std::uint32_t* keys, std::size_t n);
}  // namespace cpu

namespace prim {
/// cpu::first_repeat on a device column: a sorted copy of the keys (4 n bytes and the sort's
/// 4 n more, from the pool) gives the key, two passes over the column its first two rows.
/// The column is only read. Synchronises `stream`.
std::optional<Repeat> first_repeat(const std::uint32_t* keys, std::size_t n, cudaStream_t stream);
}  // namespace prim

}  // namespace hashlab
