// The CPU hash map of the suite (the references, MP-EGA's CPU finish): open addressing with
// linear probing over one array of slots. std::unordered_map would be simpler to read, but it
// costs two to three cache misses per operation (bucket, node, key) and an allocation per entry,
// which made a reference over 10^8 rows take minutes; this map makes one miss and no allocations.
//
//   hashlab::cpu::FlatMap<std::uint32_t, std::uint64_t> sums(expected_groups);
//   auto [sum, inserted] = sums.try_emplace(key, value);  if (!inserted) sum += value;
//   sums.for_each([](std::uint32_t key, std::uint64_t sum) { ... });
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "hashlab/common/hash.hpp"

namespace hashlab::cpu {

/// The default hash of a 32-bit key: MurmurHash3's 64-bit finaliser spreads any key pattern
/// (sequences, multiples of a power of two) over the slots.
struct KeyHash {
  std::uint64_t operator()(std::uint32_t key) const { return hash::fmix64(key); }
};

/// A map from Key to Value; Hash returns 64 bits: the low ones choose the slot, the high 32 are
/// kept in the slot as a tag that rules out most other keys without comparing them. Every key is
/// legal (none is reserved as the empty marker: a slot is empty when its tag is 0, and stored
/// tags are odd).
template <class Key, class Value, class Hash = KeyHash, class Equal = std::equal_to<Key>>
class FlatMap {
 public:
  /// A map that holds `expected` entries without growing.
  explicit FlatMap(std::size_t expected = 0, Hash hash = Hash(), Equal equal = Equal())
      : hash_(std::move(hash)), equal_(std::move(equal)) {
    std::size_t capacity = 16;
    while (capacity < 2 * expected) capacity *= 2;
    slots_.resize(capacity);
  }

  /// Inserts (key, value) unless the key is present. Returns the key's value (valid until the
  /// next insertion) and whether it was inserted.
  std::pair<Value&, bool> try_emplace(const Key& key, const Value& value) {
    const std::uint64_t h = hash_(key);
    const std::uint32_t t = tag(h);
    std::size_t i = h & mask();
    for (; slots_[i].tag != 0; i = (i + 1) & mask())
      if (slots_[i].tag == t && equal_(slots_[i].key, key)) return {slots_[i].value, false};
    if (2 * (size_ + 1) > slots_.size()) {  // keep the load at most 1/2: probes stay short
      grow();
      return try_emplace(key, value);
    }
    slots_[i] = Slot{t, key, value};
    ++size_;
    return {slots_[i].value, true};
  }

  /// The key's value, or nullptr.
  const Value* find(const Key& key) const {
    const std::uint64_t h = hash_(key);
    const std::uint32_t t = tag(h);
    for (std::size_t i = h & mask(); slots_[i].tag != 0; i = (i + 1) & mask())
      if (slots_[i].tag == t && equal_(slots_[i].key, key)) return &slots_[i].value;
    return nullptr;
  }

  std::size_t size() const { return size_; }

  /// Calls fn(key, value) for every entry, in slot order.
  template <class Fn>
  void for_each(Fn&& fn) const {
    for (const Slot& slot : slots_)
      if (slot.tag != 0) fn(slot.key, slot.value);
  }

 private:
  struct Slot {
    std::uint32_t tag = 0;  // 0: empty
    Key key{};
    Value value{};
  };

  static std::uint32_t tag(std::uint64_t h) { return static_cast<std::uint32_t>(h >> 32) | 1u; }
  std::size_t mask() const { return slots_.size() - 1; }

  // Slots keep only the tag, so moving them rehashes their keys.
  void grow() {
    std::vector<Slot> old(2 * slots_.size());
    old.swap(slots_);
    for (Slot& slot : old) {
      if (slot.tag == 0) continue;
      std::size_t i = hash_(slot.key) & mask();
      while (slots_[i].tag != 0) i = (i + 1) & mask();
      slots_[i] = std::move(slot);
    }
  }

  Hash hash_;
  Equal equal_;
  std::vector<Slot> slots_;
  std::size_t size_ = 0;
};

}  // namespace hashlab::cpu
