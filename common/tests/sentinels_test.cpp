// sentinels.hpp: the empty key and the not-found value have all bits set at every width, and
// the generator's largest key domain leaves out exactly the empty key (generator_test.cpp checks
// that no distribution draws it).
#include <gtest/gtest.h>

#include <cstdint>

#include "hashlab/common/generator.hpp"
#include "hashlab/common/sentinels.hpp"

namespace hashlab {
namespace {

TEST(Sentinels, AllBitsSetAtEveryWidth) {
  EXPECT_EQ(empty_key<std::uint8_t>, 0xffu);
  EXPECT_EQ(empty_key<std::uint16_t>, 0xffffu);
  EXPECT_EQ(empty_key<std::uint32_t>, 0xffffffffu);
  EXPECT_EQ(empty_key<std::uint64_t>, 0xffffffffffffffffull);
  EXPECT_EQ(not_found<std::uint32_t>, 0xffffffffu);
  EXPECT_EQ(not_found<std::uint64_t>, 0xffffffffffffffffull);
  EXPECT_EQ(kEmptyKey, empty_key<std::uint32_t>);
  EXPECT_EQ(kNotFound, not_found<std::uint32_t>);
}

TEST(Sentinels, TheLargestKeyDomainIsEveryKeyButTheEmptyOne) {
  EXPECT_EQ(gen::kMaxKeyDomain, std::uint64_t{kEmptyKey});  // keys lie in [0, kMaxKeyDomain)
}

}  // namespace
}  // namespace hashlab
