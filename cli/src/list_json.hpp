// `hashlab list --json` (list_json.cpp).
#pragma once

#include <string>
#include <vector>

namespace hashlab::cli {

/// The registry of `papers` (and the catalogue's entries) as one JSON document.
std::string registry_json(const std::vector<std::string>& papers);

/// The modules' names and folders in the build's order (generated from HASHLAB_MODULES).
extern const std::vector<std::pair<std::string, std::string>> kModuleFolders;

}  // namespace hashlab::cli
