// CPU reference maps, sets, multimaps and sorts (see hashlab/reference/lookup.hpp).
#include "hashlab/reference/lookup.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "hashlab/common/flat_map.hpp"

namespace hashlab::reference {
namespace {

void check_same_length(const std::vector<std::uint32_t>& keys, const std::vector<std::uint32_t>& values,
                       const char* what) {
  if (keys.size() != values.size())
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(keys.size()) + " keys but " +
                                std::to_string(values.size()) + " values");
}

}  // namespace

std::vector<std::uint32_t> map_lookup(const std::vector<std::uint32_t>& keys,
                                      const std::vector<std::uint32_t>& values,
                                      const std::vector<std::uint32_t>& queries) {
  check_same_length(keys, values, "map_lookup");
  cpu::FlatMap<std::uint32_t, std::uint32_t> map(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (!map.try_emplace(keys[i], values[i]).second)
      throw std::invalid_argument("map_lookup: key " + std::to_string(keys[i]) +
                                  " appears twice in the keys (a map needs unique keys; use Multimap)");
  std::vector<std::uint32_t> found(queries.size());
  for (std::size_t q = 0; q < queries.size(); ++q) {
    const std::uint32_t* value = map.find(queries[q]);
    found[q] = value ? *value : kNotFound;
  }
  return found;
}

std::vector<std::uint32_t> distinct_keys(const std::vector<std::uint32_t>& keys) {
  std::vector<std::uint32_t> distinct = sort_keys(keys);
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  return distinct;
}

std::vector<std::uint8_t> set_contains(const std::vector<std::uint32_t>& keys,
                                       const std::vector<std::uint32_t>& queries) {
  cpu::FlatMap<std::uint32_t, bool> set(keys.size());
  for (std::uint32_t key : keys) set.try_emplace(key, true);
  std::vector<std::uint8_t> found(queries.size());
  for (std::size_t q = 0; q < queries.size(); ++q) found[q] = set.find(queries[q]) ? 1 : 0;
  return found;
}

Multimap::Multimap(const std::vector<std::uint32_t>& keys, const std::vector<std::uint32_t>& values) {
  check_same_length(keys, values, "Multimap");
  for (std::size_t i = 0; i < keys.size(); ++i) map_[keys[i]].push_back(values[i]);
  for (auto& entry : map_) std::sort(entry.second.begin(), entry.second.end());
}

std::uint32_t Multimap::count(std::uint32_t key) const {
  const auto it = map_.find(key);
  return it == map_.end() ? 0 : static_cast<std::uint32_t>(it->second.size());
}

std::vector<std::uint32_t> Multimap::values(std::uint32_t key) const {
  const auto it = map_.find(key);
  return it == map_.end() ? std::vector<std::uint32_t>{} : it->second;
}

std::vector<std::uint32_t> sort_keys(std::vector<std::uint32_t> keys) {
  std::sort(keys.begin(), keys.end());
  return keys;
}

std::vector<std::pair<std::uint32_t, std::uint32_t>> sort_pairs(const std::vector<std::uint32_t>& keys,
                                                               const std::vector<std::uint32_t>& values) {
  check_same_length(keys, values, "sort_pairs");
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) pairs[i] = {keys[i], values[i]};
  std::stable_sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return pairs;
}

}  // namespace hashlab::reference
