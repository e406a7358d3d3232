#include "report/json_stream.h"

#include <string>

#include "core/text.h"

namespace mpsaudit {

namespace {
constexpr int kIndent = 2; // dump(2)

// Invalid UTF-8 in paths and snippets becomes U+FFFD instead of an exception.
std::string dumped(const nlohmann::json &value, int indent) {
  return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}
constexpr char kMarginMark = '\t'; // never in an escaped JSON text: tabs are escaped

// Appends `text` as a JSON string exactly as nlohmann's dump() writes it
// (ensure_ascii off): quotes, backslashes and control characters escaped,
// the latter as \u00xx in lower case, everything else verbatim. Text that
// is not valid UTF-8 goes through nlohmann itself, whose replacement of bad
// bytes this does not try to imitate.
void append_json_string(std::string &out, std::string_view text) {
  if (find_invalid_utf8(text) != std::string_view::npos) {
    out += dumped(nlohmann::json(std::string(text)), -1);
    return;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  const auto plain = [](char c) { return static_cast<unsigned char>(c) >= 0x20 && c != '"' && c != '\\'; };
  out += '"';
  for (std::size_t i = 0; i < text.size();) {
    // Runs of characters written as they are go in at once.
    std::size_t run = i;
    while (run < text.size() && plain(text[run]))
      ++run;
    out.append(text.data() + i, run - i);
    if (run == text.size())
      break;
    const char c = text[run];
    i = run + 1;
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\b':
      out += "\\b";
      break;
    case '\f':
      out += "\\f";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default: // the other control characters
      out += "\\u00";
      out += kHex[(static_cast<unsigned char>(c) >> 4) & 0xf];
      out += kHex[static_cast<unsigned char>(c) & 0xf];
    }
  }
  out += '"';
}

} // namespace

void FlatJsonObject::key(std::string_view name) {
  text_ += text_.empty() ? "\n" : ",\n";
  text_ += kMarginMark;
  append_json_string(text_, name);
  text_ += ": ";
}

void FlatJsonObject::add(std::string_view name, std::string_view text) {
  key(name);
  append_json_string(text_, text);
}

void FlatJsonObject::add(std::string_view name, std::int64_t number) {
  key(name);
  text_ += std::to_string(number);
}

void FlatJsonObject::add(std::string_view name, bool flag) {
  key(name);
  text_ += flag ? "true" : "false";
}

void FlatJsonObject::add_nested(std::string_view name, const nlohmann::json &value) {
  add_dumped(name, dumped(value, kIndent));
}

void FlatJsonObject::add_dumped(std::string_view name, std::string_view text) {
  key(name);
  // Each later line of the value sits below this member's margin.
  std::size_t start = 0;
  for (std::size_t newline = text.find('\n'); newline != std::string_view::npos;
       newline = text.find('\n', start)) {
    text_.append(text.substr(start, newline + 1 - start));
    text_ += kMarginMark;
    start = newline + 1;
  }
  text_.append(text.substr(start));
}

void JsonStreamWriter::value(const FlatJsonObject &object) {
  element_prefix();
  if (object.empty()) {
    out_ << "{}";
    return;
  }
  // Members sit one level deeper than the object itself.
  const std::string member_margin(kIndent * (levels_.size() + 1), ' ');
  out_ << '{';
  const std::string &text = object.text();
  std::size_t start = 0;
  for (std::size_t mark = text.find(kMarginMark); mark != std::string::npos;
       mark = text.find(kMarginMark, start)) {
    out_.write(text.data() + start, static_cast<std::streamsize>(mark - start));
    out_ << member_margin;
    start = mark + 1;
  }
  out_.write(text.data() + start, static_cast<std::streamsize>(text.size() - start));
  out_ << '\n' << std::string(kIndent * levels_.size(), ' ') << '}';
}

void JsonStreamWriter::element_prefix() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (levels_.empty())
    return;
  Level &level = levels_.back();
  out_ << (level.empty ? "\n" : ",\n") << std::string(kIndent * levels_.size(), ' ');
  level.empty = false;
}

void JsonStreamWriter::key(std::string_view name) {
  element_prefix();
  out_ << dumped(nlohmann::json(std::string(name)), -1) << ": ";
  after_key_ = true;
}

void JsonStreamWriter::value(const nlohmann::json &value) {
  element_prefix();
  // A nested value's own lines are indented from column 0: shift them to
  // this depth.
  const std::string text = dumped(value, kIndent);
  const std::string margin(kIndent * levels_.size(), ' ');
  std::size_t start = 0;
  for (std::size_t newline = text.find('\n'); newline != std::string::npos;
       newline = text.find('\n', start)) {
    out_.write(text.data() + start, static_cast<std::streamsize>(newline + 1 - start));
    out_ << margin;
    start = newline + 1;
  }
  out_.write(text.data() + start, static_cast<std::streamsize>(text.size() - start));
}

void JsonStreamWriter::open(char bracket) {
  element_prefix();
  out_ << bracket;
  levels_.push_back({});
}

void JsonStreamWriter::close(char bracket) {
  const bool empty = levels_.back().empty;
  levels_.pop_back();
  if (!empty)
    out_ << '\n' << std::string(kIndent * levels_.size(), ' ');
  out_ << bracket;
}

} // namespace mpsaudit
