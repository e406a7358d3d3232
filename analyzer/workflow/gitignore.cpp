#include "workflow/gitignore.h"

#include <cctype>
#include <cstdint>
#include <cstring>
#include <unordered_map>
#include <vector>

namespace mpsaudit {
namespace {

// wildmatch's results (git's wildmatch.c, which this follows step by step).
enum WildResult { kMatch, kNoMatch, kAbortAll, kAbortToStarStar };

bool is_glob_special(char c) {
  return c == '*' || c == '?' || c == '[' || c == '\\';
}

bool matches_class(std::string_view name, unsigned char c, bool &known) {
  known = true;
  if (name == "alnum")
    return std::isalnum(c);
  if (name == "alpha")
    return std::isalpha(c);
  if (name == "blank")
    return c == ' ' || c == '\t';
  if (name == "cntrl")
    return std::iscntrl(c);
  if (name == "digit")
    return std::isdigit(c);
  if (name == "graph")
    return std::isgraph(c);
  if (name == "lower")
    return std::islower(c);
  if (name == "print")
    return std::isprint(c);
  if (name == "punct")
    return std::ispunct(c);
  if (name == "space")
    return std::isspace(c);
  if (name == "upper")
    return std::isupper(c);
  if (name == "xdigit")
    return std::isxdigit(c);
  known = false;
  return false;
}

// One bracket expression starting after '['; `p` ends on its ']'.
WildResult match_bracket(const unsigned char *&p, unsigned char t_ch, bool pathname) {
  unsigned char p_ch = *++p;
  if (p_ch == '^')
    p_ch = '!';
  const bool negated = p_ch == '!';
  if (negated)
    p_ch = *++p;
  unsigned char prev_ch = 0;
  bool matched = false;
  do {
    if (!p_ch)
      return kAbortAll;
    if (p_ch == '\\') {
      p_ch = *++p;
      if (!p_ch)
        return kAbortAll;
      if (t_ch == p_ch)
        matched = true;
    } else if (p_ch == '-' && prev_ch && p[1] && p[1] != ']') {
      p_ch = *++p;
      if (p_ch == '\\') {
        p_ch = *++p;
        if (!p_ch)
          return kAbortAll;
      }
      if (t_ch <= p_ch && t_ch >= prev_ch)
        matched = true;
      p_ch = 0; // so that prev_ch becomes 0
    } else if (p_ch == '[' && p[1] == ':') {
      const unsigned char *start = p += 2;
      while ((p_ch = *p) && p_ch != ']')
        ++p;
      if (!p_ch)
        return kAbortAll;
      const long length = p - start - 1;
      if (length < 0 || p[-1] != ':') {
        // No ":]": a plain '[' in the set.
        p = start - 2;
        p_ch = '[';
        if (t_ch == p_ch)
          matched = true;
        continue;
      }
      bool known = false;
      if (matches_class(
              std::string_view(reinterpret_cast<const char *>(start), static_cast<std::size_t>(length)), t_ch,
              known))
        matched = true;
      if (!known)
        return kAbortAll;
      p_ch = 0;
    } else if (t_ch == p_ch) {
      matched = true;
    }
  } while (prev_ch = p_ch, (p_ch = *++p) != ']');
  if (matched == negated || (pathname && t_ch == '/'))
    return kNoMatch;
  return kMatch;
}

// git's wildmatch backtracks: each star retries the rest of the pattern at
// every later text position, so a pattern of k stars costs O(n^k) on a text
// it does not match, and a hostile .gitignore (`*a*a*a*a…b`) would stall the
// scan. Matching the pattern from one position against the text from one
// position always gives the same result, and so does a star's walk from one
// text position. Once a match has taken more than a few steps, both are
// remembered, which bounds the work by pattern length × text length.
class WildMatcher {
public:
  WildMatcher(const char *pattern, const char *text, bool pathname)
      : pattern_start_(reinterpret_cast<const unsigned char *>(pattern)),
        text_start_(reinterpret_cast<const unsigned char *>(text)), text_positions_(std::strlen(text) + 1),
        pathname_(pathname) {}

  bool matches() { return match(pattern_start_, text_start_) == kMatch; }

private:
  // Ordinary patterns finish in a few steps; only beyond them is remembering worth its cost.
  static constexpr std::size_t kStepsBeforeRemembering = 256;
  enum class Walk : std::uint64_t { kMatchFrom = 0, kStarFrom = 1 };

  WildResult match(const unsigned char *p, const unsigned char *text);
  WildResult match_from(const unsigned char *p, const unsigned char *text);
  WildResult match_star(const unsigned char *p, const unsigned char *text, bool match_slash);
  bool remembering() { return ++steps_ > kStepsBeforeRemembering; }
  std::uint64_t key(Walk walk, const unsigned char *p, const unsigned char *text) const {
    const auto position = static_cast<std::uint64_t>(p - pattern_start_) * text_positions_ +
                          static_cast<std::uint64_t>(text - text_start_);
    return position << 1 | static_cast<std::uint64_t>(walk);
  }

  const unsigned char *pattern_start_;
  const unsigned char *text_start_;
  std::size_t text_positions_;
  bool pathname_;
  std::size_t steps_ = 0;
  // Results other than kMatch: a match ends the whole search, so it is never asked twice.
  std::unordered_map<std::uint64_t, WildResult> settled_;
  std::vector<std::uint64_t> star_walk_starts_;
};

WildResult WildMatcher::match(const unsigned char *p, const unsigned char *text) {
  if (!remembering())
    return match_from(p, text);
  const std::uint64_t walk = key(Walk::kMatchFrom, p, text);
  if (const auto found = settled_.find(walk); found != settled_.end())
    return found->second;
  const WildResult result = match_from(p, text);
  if (result != kMatch)
    settled_.emplace(walk, result);
  return result;
}

// The rest of the pattern, `p`, after a star, tried at each text position from
// `text` on. Every position where the walk resumes ends the same way as the
// walk itself, so once remembering, all of them are settled at once.
WildResult WildMatcher::match_star(const unsigned char *p, const unsigned char *text, bool match_slash) {
  const std::size_t first_start = star_walk_starts_.size();
  WildResult result = kAbortAll;
  for (;; ++text) {
    if (remembering()) {
      const std::uint64_t walk = key(Walk::kStarFrom, p, text);
      if (const auto found = settled_.find(walk); found != settled_.end()) {
        result = found->second;
        break;
      }
      star_walk_starts_.push_back(walk);
    }
    unsigned char current = *text;
    if (current == '\0')
      break;
    if (!is_glob_special(static_cast<char>(*p))) {
      // Skip ahead to the literal that follows the star.
      const unsigned char literal = *p;
      while ((current = *text) != '\0' && (match_slash || current != '/')) {
        if (current == literal)
          break;
        ++text;
      }
      if (current != literal) {
        result = kNoMatch;
        break;
      }
    }
    const WildResult matched = match(p, text);
    if (matched != kNoMatch) {
      if (!match_slash || matched != kAbortToStarStar) {
        result = matched;
        break;
      }
    } else if (!match_slash && current == '/') {
      result = kAbortToStarStar;
      break;
    }
  }
  if (result != kMatch)
    for (std::size_t i = first_start; i < star_walk_starts_.size(); ++i)
      settled_.emplace(star_walk_starts_[i], result);
  star_walk_starts_.resize(first_start);
  return result;
}

WildResult WildMatcher::match_from(const unsigned char *p, const unsigned char *text) {
  const bool pathname = pathname_;
  const unsigned char *pattern = p;
  for (unsigned char p_ch; (p_ch = *p) != '\0'; ++text, ++p) {
    const unsigned char t_ch = *text;
    if (t_ch == '\0' && p_ch != '*')
      return kAbortAll;
    switch (p_ch) {
    case '\\':
      p_ch = *++p; // a literal next character
      if (t_ch != p_ch)
        return kNoMatch;
      continue;
    default:
      if (t_ch != p_ch)
        return kNoMatch;
      continue;
    case '?':
      if (pathname && t_ch == '/')
        return kNoMatch;
      continue;
    case '[': {
      const WildResult result = match_bracket(p, t_ch, pathname);
      if (result != kMatch)
        return result;
      continue;
    }
    case '*': {
      bool match_slash;
      if (*++p == '*') {
        const unsigned char *prev_p = p - 2;
        while (*++p == '*') {
        }
        if ((prev_p < pattern || *prev_p == '/') &&
            (*p == '\0' || *p == '/' || (p[0] == '\\' && p[1] == '/'))) {
          // `**/` may match no directory at all: a/**/b matches a/b.
          if (p[0] == '/' && match(p + 1, text) == kMatch)
            return kMatch;
          match_slash = true;
        } else {
          match_slash = !pathname;
        }
      } else {
        match_slash = !pathname;
      }
      if (*p == '\0') {
        // A trailing `**` matches everything; a trailing `*` no further '/'.
        if (!match_slash && std::strchr(reinterpret_cast<const char *>(text), '/'))
          return kNoMatch;
        return kMatch;
      }
      if (!match_slash && *p == '/') {
        // One `*` then '/': the rest of this component.
        const char *slash = std::strchr(reinterpret_cast<const char *>(text), '/');
        if (!slash)
          return kNoMatch;
        text = reinterpret_cast<const unsigned char *>(slash);
        break; // the loop consumes the slash
      }
      return match_star(p, text, match_slash);
    }
    }
  }
  return *text ? kNoMatch : kMatch;
}

bool wild(const char *pattern, const char *text, bool pathname) {
  return WildMatcher(pattern, text, pathname).matches();
}

std::size_t literal_length(std::string_view pattern) {
  for (std::size_t i = 0; i < pattern.size(); ++i)
    if (is_glob_special(pattern[i]))
      return i;
  return pattern.size();
}

// Trailing spaces go unless escaped with '\' (git's trim_trailing_spaces).
void trim_trailing_spaces(std::string &line) {
  std::size_t last_space = std::string::npos;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == ' ') {
      if (last_space == std::string::npos)
        last_space = i;
      continue;
    }
    if (line[i] == '\\' && ++i >= line.size())
      return;
    last_space = std::string::npos;
  }
  if (last_space != std::string::npos)
    line.resize(last_space);
}

} // namespace

bool wildmatch(std::string_view pattern, std::string_view text, bool pathname) {
  const std::string p(pattern.substr(0, pattern.find('\0')));
  const std::string t(text.substr(0, text.find('\0')));
  return wild(p.c_str(), t.c_str(), pathname);
}

IgnoreFile::IgnoreFile(std::string_view text, std::string base) : base_(std::move(base)) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF")
    text.remove_prefix(3);
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    std::string line(text.substr(0, newline));
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    line.resize(std::min(line.size(), line.find('\0'))); // git reads each line as a C string
    if (line.empty() || line.front() == '#')
      continue;
    trim_trailing_spaces(line);
    Pattern pattern;
    std::string_view body(line);
    if (!body.empty() && body.front() == '!') {
      pattern.negated = true;
      body.remove_prefix(1);
    }
    if (!body.empty() && body.back() == '/') {
      pattern.directory_only = true;
      body.remove_suffix(1);
    }
    if (body.empty())
      continue;
    pattern.basename_only = body.find('/') == std::string_view::npos;
    if (!pattern.basename_only && body.front() == '/')
      body.remove_prefix(1); // anchored: the base is implied
    pattern.text = std::string(body);
    pattern.literal_prefix = literal_length(pattern.text);
    pattern.suffix_only = pattern.text.size() > 1 && pattern.text.front() == '*' &&
                          literal_length(std::string_view(pattern.text).substr(1)) == pattern.text.size() - 1;
    patterns_.push_back(std::move(pattern));
  }
}

bool IgnoreFile::matches(const Pattern &pattern, const std::string &path, std::size_t basename) const {
  if (pattern.basename_only) {
    const std::string_view name = std::string_view(path).substr(basename);
    if (pattern.literal_prefix == pattern.text.size())
      return name == pattern.text;
    if (pattern.suffix_only) {
      const std::string_view suffix = std::string_view(pattern.text).substr(1);
      return name.size() >= suffix.size() && name.substr(name.size() - suffix.size()) == suffix;
    }
    return wild(pattern.text.c_str(), path.c_str() + basename, false);
  }
  // Relative to the directory of the ignore file.
  if (path.size() <= base_.size() || path.compare(0, base_.size(), base_) != 0)
    return false;
  const char *name = path.c_str() + base_.size();
  const std::size_t name_length = path.size() - base_.size();
  const std::size_t prefix = pattern.literal_prefix;
  if (prefix > name_length || std::memcmp(pattern.text.data(), name, prefix) != 0)
    return false;
  if (prefix == pattern.text.size())
    return prefix == name_length;
  return wild(pattern.text.c_str() + prefix, name + prefix, true);
}

IgnoreVerdict IgnoreFile::match(const std::string &path, bool is_directory) const {
  const std::size_t slash = path.rfind('/');
  const std::size_t basename = slash == std::string::npos ? 0 : slash + 1;
  for (auto it = patterns_.rbegin(); it != patterns_.rend(); ++it) {
    if (it->directory_only && !is_directory)
      continue;
    if (matches(*it, path, basename))
      return it->negated ? IgnoreVerdict::Included : IgnoreVerdict::Ignored;
  }
  return IgnoreVerdict::NoMatch;
}

bool is_ignored(const IgnoreLevel *innermost, const std::vector<IgnoreFile> &fallback,
                const std::string &path, bool is_directory) {
  for (const IgnoreLevel *level = innermost; level; level = level->parent.get())
    if (const IgnoreVerdict verdict = level->file.match(path, is_directory);
        verdict != IgnoreVerdict::NoMatch)
      return verdict == IgnoreVerdict::Ignored;
  for (const auto &file : fallback)
    if (const IgnoreVerdict verdict = file.match(path, is_directory); verdict != IgnoreVerdict::NoMatch)
      return verdict == IgnoreVerdict::Ignored;
  return false;
}

} // namespace mpsaudit
