#include "core/text.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>

namespace mpsaudit {
namespace {

// Length of the valid UTF-8 sequence at `i`, or 0 if it is invalid.
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80)
    return 1;
  std::size_t length = 0;
  unsigned char min_second = 0x80, max_second = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0)
      min_second = 0xA0;
    if (lead == 0xED)
      max_second = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0)
      min_second = 0x90;
    if (lead == 0xF4)
      max_second = 0x8F;
  } else {
    return 0;
  }
  if (i + length > text.size())
    return 0;
  if (byte(i + 1) < min_second || byte(i + 1) > max_second)
    return 0;
  for (std::size_t k = 2; k < length; ++k)
    if ((byte(i + k) & 0xC0) != 0x80)
      return 0;
  return length;
}

} // namespace

std::size_t find_invalid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    // Fast path over ASCII, eight bytes at a time.
    while (i + 8 <= text.size()) {
      std::uint64_t chunk;
      std::memcpy(&chunk, text.data() + i, 8);
      if (chunk & 0x8080808080808080ull)
        break;
      i += 8;
    }
    if (i >= text.size())
      break;
    const std::size_t length = utf8_sequence_length(text, i);
    if (length == 0)
      return i;
    i += length;
  }
  return std::string_view::npos;
}

std::size_t count_newlines(std::string_view text) {
  // A byte of word ^ "\n\n\n\n\n\n\n\n" is zero where the text has a
  // newline; ((b & 0x7f) + 0x7f) | b has its high bit set exactly when b is
  // not zero, with no carry into the next byte.
  constexpr std::uint64_t kOnes = 0x0101010101010101ull;
  constexpr std::uint64_t kLow7 = 0x7f7f7f7f7f7f7f7full;
  constexpr std::uint64_t kHigh = 0x8080808080808080ull;
  std::size_t count = 0;
  std::size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    std::uint64_t word;
    std::memcpy(&word, text.data() + i, 8);
    const std::uint64_t x = word ^ (kOnes * '\n');
    const std::uint64_t nonzero = (((x & kLow7) + kLow7) | x) & kHigh;
    count += 8 - static_cast<std::size_t>(((nonzero >> 7) * kOnes) >> 56);
  }
  for (; i < text.size(); ++i)
    count += text[i] == '\n';
  return count;
}

bool looks_binary(std::string_view text, std::size_t probe) {
  return text.substr(0, std::min(probe, text.size())).find('\0') != std::string_view::npos;
}

std::string_view trim(std::string_view text) {
  const auto is_space = [](char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
  };
  while (!text.empty() && is_space(text.front()))
    text.remove_prefix(1);
  while (!text.empty() && is_space(text.back()))
    text.remove_suffix(1);
  return text;
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

bool is_one_of(std::string_view word, const std::vector<std::string> &words) {
  for (const std::string &listed : words)
    if (listed == word)
      return true;
  return false;
}

std::string to_hex(std::string_view bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

std::string to_lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c); });
  return out;
}

std::string parent_directory(std::string_view path, std::string_view at_top) {
  const std::size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? at_top : path.substr(0, slash));
}

std::string normalize_package_name(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  bool pending_separator = false;
  for (char c : trim(name)) {
    if (c == '-' || c == '_' || c == '.') {
      pending_separator = !out.empty();
      continue;
    }
    if (pending_separator)
      out.push_back('-');
    pending_separator = false;
    out.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c));
  }
  return out;
}

bool is_ascii_identifier(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front())))
    return false;
  for (const char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      return false;
  return true;
}

bool glob_match(std::string_view pattern, std::string_view text) {
  // Iterative matcher with single-star backtracking: linear in practice.
  std::size_t p = 0, t = 0, star = std::string_view::npos, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*')
    ++p;
  return p == pattern.size();
}

std::string sanitize_utf8(std::string_view text) {
  // Valid text, nearly all of it, is copied at once.
  std::size_t i = find_invalid_utf8(text);
  if (i == std::string_view::npos)
    return std::string(text);
  std::string out;
  out.reserve(text.size() + 2);
  out.append(text.substr(0, i));
  while (i < text.size()) {
    const std::size_t length = utf8_sequence_length(text, i);
    if (length == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  return out;
}

namespace {

// The code point of the valid UTF-8 sequence of `length` bytes at `text`.
char32_t decode_utf8(const char *text, std::size_t length) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  if (length == 1)
    return byte(0);
  char32_t code = byte(0) & (0x7F >> length);
  for (std::size_t k = 1; k < length; ++k)
    code = (code << 6) | (byte(k) & 0x3F);
  return code;
}

bool is_bidi_control(char32_t code) {
  return (code >= 0x202A && code <= 0x202E) || (code >= 0x2066 && code <= 0x2069) || code == 0x200E ||
         code == 0x200F || code == 0x061C;
}

void append_escape(std::string &out, const char *prefix, char32_t code, int digits) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += prefix;
  for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4)
    out += kHex[(code >> shift) & 0xF];
}

} // namespace

std::string terminal_safe(std::string_view text, KeepLayout keep) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    const bool tab_kept = keep != KeepLayout::None && c == '\t';
    const bool line_end_kept = keep == KeepLayout::TabAndNewline &&
                               (c == '\n' || (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n'));
    if (tab_kept || line_end_kept) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    if (c < 0x80) { // C0 controls and DEL
      append_escape(out, "\\x", c, 2);
      ++i;
      continue;
    }
    const std::size_t length = utf8_sequence_length(text, i);
    if (length == 0) {
      append_escape(out, "\\x", c, 2);
      ++i;
      continue;
    }
    const char32_t code = decode_utf8(text.data() + i, length);
    if (code <= 0x9F || is_bidi_control(code))
      append_escape(out, "\\u", code, 4);
    else
      out.append(text.substr(i, length));
    i += length;
  }
  return out;
}

std::string counted(std::size_t count, std::string_view singular, std::string_view plural) {
  std::string text = std::to_string(count) + " ";
  if (count == 1)
    return text.append(singular);
  if (plural.empty())
    return text.append(singular).append("s");
  return text.append(plural);
}

namespace {

// The length of the colour sequence at `at` (ESC [ digits and ; then m), or 0.
std::size_t colour_sequence_at(std::string_view text, std::size_t at) {
  if (at + 2 >= text.size() || text[at] != '\x1b' || text[at + 1] != '[')
    return 0;
  std::size_t end = at + 2;
  while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == ';'))
    ++end;
  return end < text.size() && text[end] == 'm' ? end + 1 - at : 0;
}

bool continues_code_point(char byte) {
  return (static_cast<unsigned char>(byte) & 0xC0) == 0x80;
}

} // namespace

std::size_t display_width(std::string_view text) {
  std::size_t width = 0;
  for (std::size_t at = 0; at < text.size();) {
    if (const std::size_t sequence = colour_sequence_at(text, at)) {
      at += sequence;
      continue;
    }
    width += continues_code_point(text[at]) ? 0 : 1;
    ++at;
  }
  return width;
}

std::string cut_to_width(std::string_view text, std::size_t width) {
  if (display_width(text) <= width)
    return std::string(text);
  std::string cut;
  std::size_t used = 0;
  bool painted = false;
  for (std::size_t at = 0; at < text.size();) {
    if (const std::size_t sequence = colour_sequence_at(text, at)) {
      const std::string_view colour = text.substr(at, sequence);
      painted = colour != "\x1b[0m";
      cut += colour;
      at += sequence;
      continue;
    }
    if (!continues_code_point(text[at]) && used + 1 >= width)
      break; // the last column is the ellipsis
    used += continues_code_point(text[at]) ? 0 : 1;
    cut += text[at++];
  }
  if (width > 0)
    cut += "\u2026";
  if (painted)
    cut += "\x1b[0m";
  return cut;
}

std::string wrap_to_width(std::string_view text, std::size_t width, std::size_t indent) {
  if (width <= indent + 1 || display_width(text) <= width)
    return std::string(text);
  const std::string margin(indent, ' ');
  std::string wrapped, line;
  std::size_t line_width = 0;
  // The leading spaces belong to the first line.
  std::size_t at = text.find_first_not_of(' ');
  line = std::string(text.substr(0, at == std::string_view::npos ? text.size() : at));
  line_width = line.size();
  bool line_has_word = false;
  while (at != std::string_view::npos && at < text.size()) {
    const std::size_t end = std::min(text.find(' ', at), text.size());
    const std::string_view word = text.substr(at, end - at);
    const std::size_t word_width = display_width(word);
    if (line_has_word && line_width + 1 + word_width > width) {
      wrapped += line + "\n";
      line = margin;
      line_width = indent;
      line_has_word = false;
    }
    if (line_has_word) {
      line += ' ';
      ++line_width;
    }
    const std::string placed = cut_to_width(word, width - line_width);
    line += placed;
    line_width += display_width(placed);
    line_has_word = true;
    at = text.find_first_not_of(' ', end);
  }
  return wrapped + line;
}

} // namespace mpsaudit
