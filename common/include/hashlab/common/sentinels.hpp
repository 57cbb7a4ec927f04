// The sentinels of every hash table in the suite, in one place (cuCollections types its own the
// same way: cuco::empty_key<K>). A table marks a free slot with the key that has all bits set,
// and a lookup that misses answers the value with all bits set; so that key can never be
// stored (every table refuses it, std::invalid_argument) and the generator never draws it.
//
//   slot_keys.fill_bytes(0xff, stream);                  // every slot empty: kEmptyKey
//   if (atomicCAS(slot, kEmptyKey, key) == kEmptyKey)   // claimed an empty slot
//   out[i] = found ? value : kNotFound;
//
// Host and device code alike (constexpr scalars may be read in device code).
#pragma once

#include <cstdint>

namespace hashlab {

/// The key that marks an empty slot of a table of K keys: all bits set (0xffffffff for
/// std::uint32_t). It is never a stored key.
template <class K>
inline constexpr K empty_key = static_cast<K>(~K{0});

/// The value a lookup answers for an absent key: all bits set. A stored value equal to it
/// cannot be told apart from a miss.
template <class V>
inline constexpr V not_found = static_cast<V>(~V{0});

/// The 32-bit key and value of the suite's tables (every table here has 32-bit keys).
constexpr std::uint32_t kEmptyKey = empty_key<std::uint32_t>;
constexpr std::uint32_t kNotFound = not_found<std::uint32_t>;

}  // namespace hashlab
