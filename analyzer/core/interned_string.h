// InternedString: a string kept once per process, held by pointer.
//
// A large tree yields hundreds of thousands of findings whose path, rule ID,
// name and message repeat: every finding of a file names the same path, and
// one rule meeting one API writes the same message in every file. Held as
// std::string, each copy costs 32 bytes plus its heap text; interned, a copy
// costs 8 bytes and the text is stored once (docs/performance.md, "Memory").
//
// The pool only grows: interned texts live until the process ends. Intern
// what repeats and lives as long as the scan's result; keep unique, passing
// texts (a source line) as std::string.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>

namespace mpsaudit {

class InternedString {
public:
  InternedString() noexcept;
  // Implicit, so that code assigning a std::string reads as before.
  InternedString(std::string_view text);
  InternedString(const std::string &text) : InternedString(std::string_view(text)) {}
  InternedString(const char *text) : InternedString(std::string_view(text)) {}

  const std::string &str() const noexcept { return *text_; }
  operator const std::string &() const noexcept { return *text_; }
  operator std::string_view() const noexcept { return *text_; }

  bool empty() const noexcept { return text_->empty(); }
  std::size_t size() const noexcept { return text_->size(); }
  const char *c_str() const noexcept { return text_->c_str(); }
  const char *data() const noexcept { return text_->data(); }
  char front() const noexcept { return text_->front(); }
  char back() const noexcept { return text_->back(); }
  std::string::const_iterator begin() const noexcept { return text_->begin(); }
  std::string::const_iterator end() const noexcept { return text_->end(); }
  std::string substr(std::size_t position, std::size_t count = std::string::npos) const {
    return text_->substr(position, count);
  }
  std::size_t find(std::string_view what, std::size_t from = 0) const noexcept {
    return std::string_view(*text_).find(what, from);
  }
  std::size_t rfind(std::string_view what, std::size_t from = std::string::npos) const noexcept {
    return std::string_view(*text_).rfind(what, from);
  }
  std::size_t find(char what, std::size_t from = 0) const noexcept { return text_->find(what, from); }
  std::size_t rfind(char what, std::size_t from = std::string::npos) const noexcept {
    return text_->rfind(what, from);
  }

  // Equal texts are usually the same pointer; the text comparison covers a
  // second pool (a plugin linking its own copy of this library).
  friend bool operator==(const InternedString &a, const InternedString &b) noexcept {
    return a.text_ == b.text_ || *a.text_ == *b.text_;
  }
  friend bool operator<(const InternedString &a, const InternedString &b) noexcept {
    return a.text_ != b.text_ && *a.text_ < *b.text_;
  }
  friend bool operator!=(const InternedString &a, const InternedString &b) noexcept { return !(a == b); }
  friend bool operator>(const InternedString &a, const InternedString &b) noexcept { return b < a; }
  friend bool operator<=(const InternedString &a, const InternedString &b) noexcept { return !(b < a); }
  friend bool operator>=(const InternedString &a, const InternedString &b) noexcept { return !(a < b); }

  // Comparisons with plain texts, written out so that neither side is
  // converted to the other (which would be ambiguous). Hidden friends: found
  // only where an InternedString takes part.
#define MPSAUDIT_INTERNED_COMPARISONS(Other)                                                                 \
  friend bool operator==(const InternedString &a, Other b) { return std::string_view(a) == b; }              \
  friend bool operator==(Other a, const InternedString &b) { return a == std::string_view(b); }              \
  friend bool operator!=(const InternedString &a, Other b) { return std::string_view(a) != b; }              \
  friend bool operator!=(Other a, const InternedString &b) { return a != std::string_view(b); }              \
  friend bool operator<(const InternedString &a, Other b) { return std::string_view(a) < b; }                \
  friend bool operator<(Other a, const InternedString &b) { return a < std::string_view(b); }
  MPSAUDIT_INTERNED_COMPARISONS(std::string_view)
  MPSAUDIT_INTERNED_COMPARISONS(const std::string &)
  MPSAUDIT_INTERNED_COMPARISONS(const char *)
#undef MPSAUDIT_INTERNED_COMPARISONS

  friend std::string operator+(const InternedString &a, std::string_view b) {
    return a.str() + std::string(b);
  }
  friend std::string operator+(const InternedString &a, const std::string &b) { return a.str() + b; }
  friend std::string operator+(const InternedString &a, const char *b) { return a.str() + b; }
  friend std::string operator+(const InternedString &a, char b) { return a.str() + b; }
  friend std::string operator+(const std::string &a, const InternedString &b) { return a + b.str(); }
  friend std::string operator+(const char *a, const InternedString &b) { return a + b.str(); }
  friend std::string operator+(char a, const InternedString &b) { return a + b.str(); }
  friend std::ostream &operator<<(std::ostream &out, const InternedString &text) { return out << text.str(); }

private:
  const std::string *text_;
};

} // namespace mpsaudit

template <> struct std::hash<mpsaudit::InternedString> {
  std::size_t operator()(const mpsaudit::InternedString &text) const noexcept {
    return std::hash<std::string_view>{}(text);
  }
};
