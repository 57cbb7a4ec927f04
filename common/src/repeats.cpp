// The first repeated key of a host column (see repeats.hpp).
#include "hashlab/common/repeats.hpp"

#include <vector>

#include "hashlab/common/radix_sort.hpp"

namespace hashlab::cpu {

std::optional<Repeat> first_repeat(const std::uint32_t* keys, std::size_t n) {
  if (n < 2) return std::nullopt;
  std::vector<std::uint32_t> sorted(keys, keys + n);
  radix_sort(sorted, [](std::uint32_t k) { return k; });
  std::size_t p = 1;
  while (p < n && sorted[p] != sorted[p - 1]) ++p;
  if (p == n) return std::nullopt;
  Repeat r;
  r.key = sorted[p];
  std::size_t row = 0;
  while (keys[row] != r.key) ++row;
  r.first_row = row++;
  while (keys[row] != r.key) ++row;
  r.second_row = row;
  return r;
}

}  // namespace hashlab::cpu
