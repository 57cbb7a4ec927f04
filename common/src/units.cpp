#include "hashlab/common/units.hpp"

#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <utility>

namespace hashlab {
namespace {

// Splits "12.5Mi" into 12.5 and "Mi"; throws if the number part is missing or malformed.
std::pair<double, std::string> split_number(const std::string& text, const char* what) {
  if (text.empty()) throw std::invalid_argument(std::string("empty ") + what);
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !std::isfinite(value) || value < 0)
    throw std::invalid_argument(std::string("'") + text + "' is not a valid " + what);
  return {value, std::string(end)};
}

std::uint64_t to_integer(double value, const std::string& text, const char* what) {
  if (value > 1.8e19) throw std::invalid_argument(std::string("'") + text + "' is too large a " + what);
  const double rounded = std::round(value);
  if (std::fabs(rounded - value) > 1e-9 * std::max(1.0, value))
    throw std::invalid_argument(std::string("'") + text + "' is not a whole " + what);
  return static_cast<std::uint64_t>(rounded);
}

}  // namespace

std::uint64_t parse_count(const std::string& text) {
  auto [value, suffix] = split_number(text, "count");
  double scale = 1;
  if (suffix.empty()) scale = 1;
  else if (suffix == "K" || suffix == "k") scale = 1e3;
  else if (suffix == "M") scale = 1e6;
  else if (suffix == "G") scale = 1e9;
  else if (suffix == "Ki") scale = 1024.0;
  else if (suffix == "Mi") scale = 1024.0 * 1024;
  else if (suffix == "Gi") scale = 1024.0 * 1024 * 1024;
  else
    throw std::invalid_argument("'" + text + "' has an unknown suffix '" + suffix +
                                "' (use K, M, G for powers of ten or Ki, Mi, Gi for powers of two)");
  return to_integer(value * scale, text, "count");
}

std::uint64_t parse_bytes(const std::string& text) {
  auto [value, suffix] = split_number(text, "byte size");
  double scale = 1;
  if (suffix.empty() || suffix == "B") scale = 1;
  else if (suffix == "KB") scale = 1e3;
  else if (suffix == "MB") scale = 1e6;
  else if (suffix == "GB") scale = 1e9;
  else if (suffix == "KiB" || suffix == "Ki") scale = 1024.0;  // Ki, Mi, Gi as for counts
  else if (suffix == "MiB" || suffix == "Mi") scale = 1024.0 * 1024;
  else if (suffix == "GiB" || suffix == "Gi") scale = 1024.0 * 1024 * 1024;
  else
    throw std::invalid_argument("'" + text + "' has an unknown unit '" + suffix +
                                "' (use B, KB, MB, GB, KiB, MiB or GiB)");
  return static_cast<std::uint64_t>(std::llround(value * scale));
}

std::string format_count(std::uint64_t n) {
  // The shorter of the binary and the decimal spelling (2G, not 1953125Ki; 32Mi, not 33554432);
  // binary on a tie.
  const auto spell = [n](const std::pair<std::uint64_t, const char*>* units) {
    for (int i = 0; i < 3; ++i)
      if (n >= units[i].first && n % units[i].first == 0) return std::to_string(n / units[i].first) + units[i].second;
    return std::to_string(n);
  };
  const std::pair<std::uint64_t, const char*> binary[] = {{1ull << 30, "Gi"}, {1ull << 20, "Mi"}, {1ull << 10, "Ki"}};
  const std::pair<std::uint64_t, const char*> decimal[] = {{1000000000ull, "G"}, {1000000ull, "M"}, {1000ull, "K"}};
  const std::string b = spell(binary), d = spell(decimal);
  return d.size() < b.size() ? d : b;
}

}  // namespace hashlab
