// Internal: a command's algorithms by name, one table per command (enum, name, description).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "hashlab/owndata/columns.hpp"

namespace hashlab::owndata::detail {

template <class E>
struct Named {
  E algo;
  const char* name;
  const char* description;
};

template <class E, std::size_t N>
const Named<E>& named(const Named<E> (&table)[N], E algo) {
  for (const auto& entry : table)
    if (entry.algo == algo) return entry;
  static const Named<E> unknown{algo, "unknown", ""};
  return unknown;
}

/// The algorithm called `name`; InputError naming the choices ("unknown <what> 'x' (choices: ...)").
template <class E, std::size_t N>
E parse_named(const Named<E> (&table)[N], const std::string& name, const char* what) {
  std::string choices;
  for (const auto& entry : table) {
    if (name == entry.name) return entry.algo;
    choices += choices.empty() ? entry.name : std::string(", ") + entry.name;
  }
  throw InputError(std::string("unknown ") + what + " '" + name + "' (choices: " + choices + ")");
}

template <class E, std::size_t N>
std::vector<E> all_of(const Named<E> (&table)[N]) {
  std::vector<E> all;
  for (const auto& entry : table) all.push_back(entry.algo);
  return all;
}

}  // namespace hashlab::owndata::detail
