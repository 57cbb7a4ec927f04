// CPU reference maps, sets, multimaps and sorts: the oracles for the hash tables.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "hashlab/common/sentinels.hpp"

namespace hashlab::reference {

/// What a lookup returns for a key that is not present (cuckoo Listing 4.2's NOT_FOUND).
using hashlab::kNotFound;

/// Map lookup: keys are unique (throws std::invalid_argument naming a repeated key); returns,
/// per query, the value stored with it or kNotFound.
std::vector<std::uint32_t> map_lookup(const std::vector<std::uint32_t>& keys,
                                      const std::vector<std::uint32_t>& values,
                                      const std::vector<std::uint32_t>& queries);

/// The distinct keys, ascending (a set built from keys with duplicates).
std::vector<std::uint32_t> distinct_keys(const std::vector<std::uint32_t>& keys);

/// Per query: 1 if the key is in `keys`, else 0.
std::vector<std::uint8_t> set_contains(const std::vector<std::uint32_t>& keys,
                                       const std::vector<std::uint32_t>& queries);

/// A multimap from each key to all values stored with it.
class Multimap {
 public:
  Multimap(const std::vector<std::uint32_t>& keys, const std::vector<std::uint32_t>& values);
  /// How many values `key` has (0 if absent).
  std::uint32_t count(std::uint32_t key) const;
  /// The values of `key`, ascending (empty if absent).
  std::vector<std::uint32_t> values(std::uint32_t key) const;

 private:
  std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> map_;
};

/// Keys in ascending order.
std::vector<std::uint32_t> sort_keys(std::vector<std::uint32_t> keys);

/// Pairs sorted by key; pairs with equal keys keep their input order (a stable sort).
std::vector<std::pair<std::uint32_t, std::uint32_t>> sort_pairs(const std::vector<std::uint32_t>& keys,
                                                               const std::vector<std::uint32_t>& values);

}  // namespace hashlab::reference
