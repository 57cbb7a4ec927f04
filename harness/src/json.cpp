#include "hashlab/harness/json.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace hashlab::harness {

std::string JsonWriter::quote(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

void JsonWriter::separator(const std::string& key) {
  if (!first_.back()) out_ << ",";
  first_.back() = false;
  out_ << "\n" << std::string(2 * depth_, ' ');
  if (!key.empty()) out_ << quote(key) << ": ";
}

JsonWriter& JsonWriter::begin_object(const std::string& key) {
  if (depth_ > 0 || !first_.back()) separator(key);
  out_ << "{";
  first_.push_back(true);
  ++depth_;
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  --depth_;
  first_.pop_back();
  out_ << "\n" << std::string(2 * depth_, ' ') << "}";
  return *this;
}

JsonWriter& JsonWriter::begin_array(const std::string& key) {
  separator(key);
  out_ << "[";
  first_.push_back(true);
  ++depth_;
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  --depth_;
  first_.pop_back();
  out_ << "\n" << std::string(2 * depth_, ' ') << "]";
  return *this;
}

JsonWriter& JsonWriter::field(const std::string& key, const std::string& value) {
  separator(key);
  out_ << quote(value);
  return *this;
}

JsonWriter& JsonWriter::field(const std::string& key, double value) {
  separator(key);
  if (std::isfinite(value)) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.10g", value);
    out_ << buf;
  } else {
    out_ << "null";
  }
  return *this;
}

JsonWriter& JsonWriter::field(const std::string& key, long long value) {
  separator(key);
  out_ << value;
  return *this;
}

JsonWriter& JsonWriter::field(const std::string& key, bool value) {
  separator(key);
  out_ << (value ? "true" : "false");
  return *this;
}

JsonWriter& JsonWriter::raw(const std::string& key, const std::string& json) {
  separator(key);
  out_ << json;
  return *this;
}

void read_flat_json(const std::string& text, std::map<std::string, double>& numbers,
                    std::map<std::string, std::string>& strings) {
  std::size_t i = 0;
  auto read_string = [&](std::string& out) {
    out.clear();
    ++i;  // opening quote
    while (i < text.size() && text[i] != '"') {
      if (text[i] == '\\' && i + 1 < text.size()) ++i;
      out += text[i++];
    }
    ++i;  // closing quote
  };
  std::string key, value;
  while (i < text.size()) {
    if (text[i] != '"') {
      ++i;
      continue;
    }
    read_string(key);
    std::size_t j = i;
    while (j < text.size() && std::isspace(static_cast<unsigned char>(text[j]))) ++j;
    if (j >= text.size() || text[j] != ':') continue;  // a string value, not a key
    ++j;
    while (j < text.size() && std::isspace(static_cast<unsigned char>(text[j]))) ++j;
    i = j;
    if (i < text.size() && text[i] == '"') {
      read_string(value);
      strings[key] = value;
    } else if (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '-')) {
      char* end = nullptr;
      numbers[key] = std::strtod(text.c_str() + i, &end);
      i = static_cast<std::size_t>(end - text.c_str());
    }
  }
}

}  // namespace hashlab::harness
