// Writes JSON in exactly the layout of nlohmann::json::dump(2) while holding
// only one element of a large array at a time: the JSON and SARIF reports
// stream their findings through it instead of building the whole document
// (on a 10k-file tree the document was most of the scan's memory).
//
// The caller writes object members in sorted key order, as nlohmann's
// default object (a std::map) would print them, so that streamed and
// built documents are byte-identical (tests/unit/report checks this).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace mpsaudit {

// A flat object (no nested containers) rendered straight into dump(2)
// layout: far cheaper than an nlohmann object per element for the many
// small objects of a large report (findings, files). Members must be added
// in sorted key order, as nlohmann prints them.
class FlatJsonObject {
public:
  void add(std::string_view key, std::string_view text); // escaped; bad UTF-8 becomes U+FFFD
  void add(std::string_view key, const char *text) { add(key, std::string_view(text)); }
  void add(std::string_view key, std::int64_t number);
  void add(std::string_view key, bool flag);
  // A nested value, written as dump(2) writes it at this member's depth.
  void add_nested(std::string_view key, const nlohmann::json &value);
  // The same from the value's dump(2) text, for a value written many times.
  void add_dumped(std::string_view key, std::string_view dumped_value);
  // Members one per line, each preceded by "\n" and a placeholder margin
  // character ('\t'), which the writer replaces by the indentation of its
  // depth.
  const std::string &text() const { return text_; }
  bool empty() const { return text_.empty(); }

private:
  void key(std::string_view name);
  std::string text_;
};

class JsonStreamWriter {
public:
  explicit JsonStreamWriter(std::ostream &out) : out_(out) {}

  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }
  // An object member's key; its value follows (value(), begin_object(), ...).
  void key(std::string_view name);
  // A whole value: an array element, or the value of the last key.
  void value(const nlohmann::json &value);
  void value(const FlatJsonObject &object);
  // key() then value().
  void member(std::string_view name, const nlohmann::json &member_value) {
    key(name);
    value(member_value);
  }

private:
  struct Level {
    bool empty = true;
  };
  // Separator and indentation before an element or a key.
  void element_prefix();
  void open(char bracket);
  void close(char bracket);

  std::ostream &out_;
  std::vector<Level> levels_;
  bool after_key_ = false; // a value goes on its key's line
};

} // namespace mpsaudit
