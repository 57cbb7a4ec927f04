// collect.cuh: after prim::inclusive_scan of the flags, collect_flagged moves exactly the flagged
// items, in order, to first, first + 1, ...; in place too, as EGA's phase 2 collects.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "hashlab/common/collect.cuh"
#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/launch.cuh"
#include "hashlab/common/memory.hpp"
#include "hashlab/common/primitives.hpp"
#include "hashlab/common/sentinels.hpp"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab {
namespace {

using testing::GpuTestWithParam;

// Slots of a table, used where the key is not kEmptyKey, collected to out[first, ...).
__global__ void collect_used(const std::uint32_t* keys, std::size_t n, const std::uint32_t* scan, std::size_t first,
                             std::uint32_t* out) {
  collect_flagged(n, scan, first, [&](std::size_t i) { return keys[i] != kEmptyKey; },
                  [&](std::size_t i, std::size_t to) { out[to] = keys[i]; });
}

class CollectFlagged : public GpuTestWithParam<std::size_t> {
 protected:
  std::size_t n() const { return GetParam(); }
  testing::LazyStream stream;

  // Every third slot empty, the others hold their index.
  void make(std::vector<std::uint32_t>& keys, std::vector<std::uint32_t>& flags, std::vector<std::uint32_t>& used) {
    keys.assign(n(), kEmptyKey);
    flags.assign(n(), 0);
    used.clear();
    for (std::size_t i = 0; i < n(); ++i)
      if (i % 3 != 1) {
        keys[i] = static_cast<std::uint32_t>(i);
        flags[i] = 1;
        used.push_back(keys[i]);
      }
  }
};

TEST_P(CollectFlagged, MovesTheFlaggedItemsInOrderFromFirst) {
  std::vector<std::uint32_t> keys, flags, used;
  make(keys, flags, used);
  const std::size_t first = 5;
  auto d_keys = to_device(keys, stream);
  auto scan = to_device(flags, stream);
  prim::inclusive_scan(scan.data(), scan.data(), n(), stream);
  std::vector<std::uint32_t> expected(first + n(), 0xabcdu);  // untouched outside the collected run
  std::copy(used.begin(), used.end(), expected.begin() + first);
  auto out = to_device(std::vector<std::uint32_t>(first + n(), 0xabcdu), stream);
  collect_used<<<grid_for(n()), kDefaultBlock, 0, stream>>>(d_keys.data(), n(), scan.data(), first, out.data());
  HASHLAB_CHECK_LAUNCH();
  EXPECT_EQ(out.to_host(stream), expected);
}

// Within one array, to its end (EGA phase 2's layout): the collected run lies beyond the items it
// is collected from, so no thread overwrites an item another has still to read.
TEST_P(CollectFlagged, InPlaceToTheEndOfTheArray) {
  std::vector<std::uint32_t> keys, flags, used;
  make(keys, flags, used);
  const std::size_t length = 3 * n();
  std::vector<std::uint32_t> array(length, kEmptyKey);
  std::copy(keys.begin(), keys.end(), array.begin());
  auto d_array = to_device(array, stream);
  auto scan = to_device(flags, stream);
  prim::inclusive_scan(scan.data(), scan.data(), n(), stream);
  collect_used<<<grid_for(n()), kDefaultBlock, 0, stream>>>(d_array.data(), n(), scan.data(), length - used.size(),
                                                            d_array.data());
  HASHLAB_CHECK_LAUNCH();
  const auto got = d_array.to_host(stream);
  EXPECT_EQ(std::vector<std::uint32_t>(got.end() - used.size(), got.end()), used);
}

INSTANTIATE_TEST_SUITE_P(Sizes, CollectFlagged, ::testing::Values(0, 1, 2, 3, 1000, 100003),
                         [](const auto& info) { return "n" + std::to_string(info.param); });

}  // namespace
}  // namespace hashlab
