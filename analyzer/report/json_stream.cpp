#include "report/json_stream.h"

#include <string>

namespace mpsaudit {

namespace {
constexpr int kIndent = 2; // dump(2)

// Invalid UTF-8 in paths and snippets becomes U+FFFD instead of an exception.
std::string dumped(const nlohmann::json &value, int indent) {
  return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}
} // namespace

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
