// Point estimates from a committed reference run (see estimates.hpp).
#include "hashlab/harness/estimates.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

namespace hashlab::harness {

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else if (c != '\r') {
      fields.back() += c;
    }
  }
  return fields;
}

namespace {

// Adds the points of one reference CSV to `table`; a point it already holds keeps its estimate.
template <class Table>
void read_estimates(const std::filesystem::path& csv, Table& table) {
  std::ifstream in(csv);
  std::string line;
  if (!std::getline(in, line)) return;
  const auto header = split_csv_line(line);
  auto column = [&](const char* wanted) {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == wanted) return static_cast<int>(i);
    return -1;
  };
  const int variant = column("variant"), n = column("n"), pname = column("param_name"),
            pvalue = column("param_value"), wall = column("wall_s"), peak = column("device_peak_bytes");
  if (variant < 0 || n < 0 || pname < 0 || pvalue < 0 || wall < 0 || peak < 0) return;
  const int last = std::max({variant, n, pname, pvalue, wall, peak});
  while (std::getline(in, line)) {
    const auto f = split_csv_line(line);
    if (static_cast<int>(f.size()) <= last || f[wall].empty()) continue;
    try {
      Estimate est;
      est.device_bytes = static_cast<std::uint64_t>(std::stod(f[peak]));
      est.wall_s = std::stod(f[wall]);
      table[{f[variant], f[pname], f[pvalue]}].emplace(std::stoull(f[n]), est);  // the first row of a point
    } catch (const std::exception&) {
      continue;  // a row this version cannot read gives no estimate
    }
  }
}

}  // namespace

const std::map<Estimates::Key, Estimates::Sizes>& Estimates::load(const Experiment& e) {
  const std::string name = e.paper + "/" + e.name;
  auto it = loaded_.find(name);
  if (it != loaded_.end()) return it->second;
  auto& table = loaded_[name];
  if (dir_.empty()) return table;
  const std::filesystem::path csv = std::filesystem::path(e.paper) / (e.name + ".csv");
  if (full_) read_estimates(std::filesystem::path(dir_) / "full" / csv, table);
  read_estimates(std::filesystem::path(dir_) / csv, table);
  return table;
}

std::optional<Estimate> Estimates::find(const Experiment& e, const Point& p) {
  const auto& table = load(e);
  // The CSV keeps 6 significant digits of a number: match within that; a name matches exactly.
  const auto same_value = [&p](const std::string& written) {
    if (p.param_name.empty()) return true;
    if (!p.param_text.empty()) return written == p.param_text;
    char* end = nullptr;
    const double value = std::strtod(written.c_str(), &end);
    if (written.empty() || end != written.c_str() + written.size()) return false;
    return std::abs(value - p.param_value) <= 1e-5 * std::max(1.0, std::abs(p.param_value));
  };
  for (const auto& [key, sizes] : table) {
    const auto& [variant, pname, pvalue] = key;
    if (variant != p.variant || pname != p.param_name || !same_value(pvalue)) continue;
    if (sizes.empty()) continue;
    auto exact = sizes.find(p.n);
    if (exact != sizes.end()) return exact->second;
    // The nearest size measured, scaled linearly in n (memory and time of these algorithms are).
    auto nearest = sizes.begin();
    for (auto s = sizes.begin(); s != sizes.end(); ++s)
      if (std::abs(std::log(static_cast<double>(s->first) / p.n)) <
          std::abs(std::log(static_cast<double>(nearest->first) / p.n)))
        nearest = s;
    const double f = static_cast<double>(p.n) / static_cast<double>(nearest->first);
    Estimate est{static_cast<std::uint64_t>(nearest->second.device_bytes * f), nearest->second.wall_s * f, true};
    return est;
  }
  return std::nullopt;
}

}  // namespace hashlab::harness
