// A minimal JSON writer for the result sidecars and device.json (objects, arrays, strings,
// numbers, booleans), and a flat reader for the numbers of device.json.
#pragma once

#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace hashlab::harness {

class JsonWriter {
 public:
  JsonWriter& begin_object(const std::string& key = "");
  JsonWriter& end_object();
  JsonWriter& begin_array(const std::string& key = "");
  JsonWriter& end_array();
  JsonWriter& field(const std::string& key, const std::string& value);
  JsonWriter& field(const std::string& key, const char* value) { return field(key, std::string(value)); }
  JsonWriter& field(const std::string& key, double value);
  JsonWriter& field(const std::string& key, long long value);
  JsonWriter& field(const std::string& key, int value) { return field(key, static_cast<long long>(value)); }
  JsonWriter& field(const std::string& key, unsigned long long value) { return field(key, static_cast<long long>(value)); }
  JsonWriter& field(const std::string& key, unsigned long value) { return field(key, static_cast<long long>(value)); }
  JsonWriter& field(const std::string& key, bool value);
  JsonWriter& raw(const std::string& key, const std::string& json);  // an already-formatted value
  std::string str() const { return out_.str(); }

  static std::string quote(const std::string& text);

 private:
  void separator(const std::string& key);
  std::ostringstream out_;
  std::vector<bool> first_{true};
  int depth_ = 0;
};

/// Every "key": number pair of a JSON text, flattened by the innermost key ("a": {"b": 1} gives
/// b = 1); enough for device.json. Strings are returned in `strings`.
void read_flat_json(const std::string& text, std::map<std::string, double>& numbers,
                    std::map<std::string, std::string>& strings);

}  // namespace hashlab::harness
