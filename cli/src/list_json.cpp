// `hashlab list --json`: the registry as data, the one source of the facts that Python, the docs'
// checks and the claims' test read (modules, their titles and folders, experiments, figures,
// variants, the points of each profile with their named axes, options, the catalogue's entries,
// and the hardware limits the probe measures).
#include "list_json.hpp"

#include <algorithm>
#include <cstdio>

#include "hashlab/catalogue/catalogue.hpp"
#include "hashlab/harness/experiment.hpp"
#include "hashlab/harness/json.hpp"
#include "hashlab/harness/probe.hpp"
#include "hashlab/harness/runner.hpp"

namespace hashlab::cli {
namespace {

using harness::JsonWriter;

// A point as one line: [variant, n, param_name, value] (value: the number, the name of a named
// axis, or null when only n is swept).
std::string point_json(const harness::Point& p) {
  std::string value = "null";
  if (!p.param_text.empty()) {
    value = JsonWriter::quote(p.param_text);
  } else if (!p.param_name.empty()) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.10g", p.param_value);
    value = buf;
  }
  return "[" + JsonWriter::quote(p.variant) + ", " + std::to_string(p.n) + ", " + JsonWriter::quote(p.param_name) +
         ", " + value + "]";
}

void write_profile(JsonWriter& json, const char* key, const harness::Experiment& e, const harness::RunOptions& options) {
  const auto points = e.plan(options);
  json.begin_object(key);
  json.begin_array("points");
  for (const auto& p : points) json.raw("", point_json(p));
  json.end_array();
  // The named axes: n, and the swept parameter(s) with their values in plan order.
  std::vector<std::uint64_t> sizes;
  for (const auto& p : points)
    if (std::find(sizes.begin(), sizes.end(), p.n) == sizes.end()) sizes.push_back(p.n);
  json.begin_array("sizes");
  for (auto n : sizes) json.field("", static_cast<unsigned long long>(n));
  json.end_array();
  json.begin_object("axes");
  std::vector<std::string> names;
  for (const auto& p : points)
    if (!p.param_name.empty() && std::find(names.begin(), names.end(), p.param_name) == names.end())
      names.push_back(p.param_name);
  for (const auto& name : names) {
    json.begin_array(name);
    std::vector<std::string> seen;
    for (const auto& p : points) {
      if (p.param_name != name) continue;
      const std::string key = p.param_text.empty() ? std::to_string(p.param_value) : "text:" + p.param_text;
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
      seen.push_back(key);
      if (!p.param_text.empty()) json.field("", p.param_text);
      else json.field("", p.param_value);
    }
    json.end_array();
  }
  json.end_object();
  json.end_object();
}

// An option, a module's or a catalogue entry's: {name, help, default}.
template <class Option>
void write_option(JsonWriter& json, const Option& o) {
  json.begin_object();
  json.field("name", o.name);
  json.field("help", o.help);
  json.field("default", o.default_value);
  json.end_object();
}

// One entry: {name, description, needs_gpu, options, statistics}, then what only its kind has
// (`extra(json, entry)`: a clock, a key-column limit, a sorted output, a load limit).
template <class Entry, class Extra>
void write_entries(JsonWriter& json, const char* kind, const std::vector<Entry>& entries, Extra&& extra) {
  json.begin_array(kind);
  for (const auto& e : entries) {
    json.begin_object();
    json.field("name", e.name);
    json.field("description", e.description);
    json.field("needs_gpu", e.needs_gpu);
    json.begin_array("options");
    for (const auto& o : e.options) write_option(json, o);
    json.end_array();
    json.begin_array("statistics");
    for (const auto& s : e.statistics) {
      json.begin_object();
      json.field("name", s.name);
      json.field("unit", s.unit);
      json.field("array", s.array);
      json.field("description", s.description);
      json.end_object();
    }
    json.end_array();
    extra(json, e);
    json.end_object();
  }
  json.end_array();
}

void write_catalogue(JsonWriter& json) {
  json.begin_object("catalogue");
  write_entries(json, "groupby", catalogue::groupby_entries(), [](JsonWriter& j, const catalogue::GroupByEntry& e) {
    j.field("clock", harness::to_string(e.clock));
    j.field("max_key_columns", e.max_key_columns);
    j.field("across_servers", e.across_servers);
  });
  write_entries(json, "join", catalogue::join_entries(), [](JsonWriter& j, const catalogue::JoinEntry& e) {
    j.field("clock", harness::to_string(e.clock));
    j.field("sorted_output", e.sorted_output);
    j.field("across_servers", e.across_servers);
  });
  write_entries(json, "table", catalogue::table_entries(),
                [](JsonWriter& j, const catalogue::TableEntry& e) { j.field("max_load", e.max_load); });
  json.end_object();
}

// The limits `hashlab probe` measures (device.json's keys, a claim's `limit`), and the key pattern
// of the NCCL all-to-all limits it measures on a host with several GPUs.
void write_hardware_limits(JsonWriter& json) {
  json.begin_object("hardware_limits");
  json.begin_array("fields");
  for (const auto& f : harness::limit_fields()) {
    json.begin_object();
    json.field("key", std::string(f.key));
    json.field("label", std::string(f.label));
    json.field("unit", std::string(f.unit));
    json.end_object();
  }
  json.end_array();
  json.begin_object("all_to_all");
  json.field("key", std::string(harness::kAllToAllKeyPattern));
  json.field("label", std::string(harness::kAllToAllLabelPattern));
  json.field("unit", std::string(harness::kAllToAllUnit));
  json.end_object();
  json.end_object();
}

}  // namespace

std::string registry_json(const std::vector<std::string>& papers) {
  const auto& registry = harness::Registry::instance();
  harness::RunOptions quick, full;
  full.profile = harness::Profile::kFull;
  for (const auto& o : registry.options()) quick.module_options[o.name] = full.module_options[o.name] = o.default_value;
  const auto all = registry.papers();
  JsonWriter json;
  json.begin_object();
  json.field("revision", harness::git_sha());
  json.begin_array("modules");
  for (const auto& name : papers) {
    const harness::Module m = registry.module(name);
    json.begin_object();
    json.field("name", m.name);
    json.field("title", m.title);
    json.field("folder", m.folder);
    json.field("order", static_cast<int>(std::find(all.begin(), all.end(), name) - all.begin()));
    if (const harness::Demo* d = registry.demo(name)) json.field("demo", d->description);
    json.begin_array("options");
    for (const auto& o : registry.options())
      if (o.paper == name) write_option(json, o);
    json.end_array();
    json.begin_array("experiments");
    for (const harness::Experiment* e : registry.experiments(name)) {
      json.begin_object();
      json.field("name", e->name);
      json.field("figure", e->figure);
      json.field("description", e->description);
      json.field("needs_gpu", e->needs_gpu);
      json.begin_array("variants");
      for (const auto& v : e->variants) json.field("", v);
      json.end_array();
      json.begin_object("profiles");
      write_profile(json, "quick", *e, quick);
      write_profile(json, "full", *e, full);
      json.end_object();
      json.end_object();
    }
    json.end_array();
    json.end_object();
  }
  json.end_array();
  write_catalogue(json);
  write_hardware_limits(json);
  json.end_object();
  return json.str() + "\n";
}

}  // namespace hashlab::cli
