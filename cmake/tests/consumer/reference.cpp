// hashlab::common from another project: the CPU reference group-by of a few rows.
#include <cstdio>
#include <vector>

#include "hashlab/reference/groupby.hpp"

int main() {
  using hashlab::reference::Aggregation;
  const std::vector<std::uint32_t> keys = {3, 1, 3, 2, 1, 3};
  const std::vector<std::int64_t> values = {10, 20, 30, 40, 50, 60};
  const auto groups = hashlab::reference::groupby(keys, values, Aggregation::kSum);
  const bool right = groups.keys.at(0) == std::vector<std::uint32_t>{1, 2, 3} &&
                     groups.aggregates.at(0).exact == std::vector<std::int64_t>{70, 40, 100};
  std::printf("hashlab reference group-by: %zu groups, %s\n", groups.groups(), right ? "right" : "WRONG");
  return right ? 0 : 1;
}
