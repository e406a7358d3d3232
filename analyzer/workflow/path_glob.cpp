#include "workflow/path_glob.h"

#include <string>

namespace mpsaudit {
namespace {

// Matches one character class starting at pattern[p] == '['; sets `next` to
// the index after ']'. A '[' without a closing ']' is a literal.
bool match_class(std::string_view pattern, std::size_t p, char c, std::size_t &next, bool &is_class) {
  std::size_t i = p + 1;
  bool negate = false;
  if (i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^')) {
    negate = true;
    ++i;
  }
  bool matched = false;
  bool first = true;
  for (; i < pattern.size() && (first || pattern[i] != ']'); ++i, first = false) {
    if (i + 2 < pattern.size() && pattern[i + 1] == '-' && pattern[i + 2] != ']') {
      if (c >= pattern[i] && c <= pattern[i + 2])
        matched = true;
      i += 2;
    } else if (pattern[i] == c) {
      matched = true;
    }
  }
  if (i >= pattern.size()) {
    is_class = false;
    return false;
  }
  is_class = true;
  next = i + 1;
  return matched != negate && c != '/';
}

// Whole-string match of `text` against `pattern` with segment-aware stars.
bool match_here(std::string_view pattern, std::string_view text) {
  std::size_t p = 0, t = 0;
  // Backtracking points for the last single '*' (cannot cross '/').
  std::size_t star_p = std::string_view::npos, star_t = 0;
  while (t < text.size() || p < pattern.size()) {
    if (p < pattern.size()) {
      const char pc = pattern[p];
      if (pc == '*' && p + 1 < pattern.size() && pattern[p + 1] == '*') {
        // "**": any number of segments. "**/" may also match nothing.
        std::size_t after = p + 2;
        const bool slash_follows = after < pattern.size() && pattern[after] == '/';
        if (slash_follows)
          ++after;
        const std::string_view rest = pattern.substr(after);
        for (std::size_t start = t; start <= text.size(); ++start) {
          // With "**/", the remainder must start at a segment boundary.
          if (slash_follows && start != t && text[start - 1] != '/')
            continue;
          if (match_here(rest, text.substr(start)))
            return true;
        }
        // No split worked; an earlier '*' may still take more characters.
        if (star_p != std::string_view::npos && star_t < text.size() && text[star_t] != '/') {
          p = star_p + 1;
          t = ++star_t;
          continue;
        }
        return false;
      }
      if (pc == '*') {
        star_p = p++;
        star_t = t;
        continue;
      }
      if (t < text.size()) {
        if (pc == '?' && text[t] != '/') {
          ++p, ++t;
          continue;
        }
        if (pc == '[') {
          std::size_t next = 0;
          bool is_class = false;
          const bool matched = match_class(pattern, p, text[t], next, is_class);
          if (is_class && matched) {
            p = next, ++t;
            continue;
          }
          if (!is_class && text[t] == '[') {
            ++p, ++t;
            continue;
          }
        } else if (pc != '?' && pc == text[t]) {
          ++p, ++t;
          continue;
        }
      }
    }
    // Mismatch: let the last '*' swallow one more character of its segment.
    if (star_p != std::string_view::npos && star_t < text.size() && text[star_t] != '/') {
      p = star_p + 1;
      t = ++star_t;
      continue;
    }
    return false;
  }
  return true;
}

} // namespace

bool path_pattern_match(std::string_view pattern, std::string_view relative_path) {
  while (pattern.size() > 2 && pattern.substr(0, 2) == "./")
    pattern.remove_prefix(2);
  while (relative_path.size() > 2 && relative_path.substr(0, 2) == "./")
    relative_path.remove_prefix(2);
  while (!pattern.empty() && pattern.back() == '/')
    pattern.remove_suffix(1); // "vendor/" means the directory vendor
  if (pattern.empty())
    return false;
  // Anchored at the root when the pattern names a path; otherwise any depth.
  std::string anchored;
  if (pattern.front() == '/')
    anchored = std::string(pattern.substr(1));
  else if (pattern.find('/') != std::string_view::npos)
    anchored = std::string(pattern);
  else
    anchored = "**/" + std::string(pattern);
  // The path itself, then each parent directory ("a/b/c.py", "a/b", "a").
  std::string_view candidate = relative_path;
  while (!candidate.empty()) {
    if (match_here(anchored, candidate))
      return true;
    const std::size_t slash = candidate.rfind('/');
    if (slash == std::string_view::npos)
      break;
    candidate = candidate.substr(0, slash);
  }
  return false;
}

} // namespace mpsaudit
