#include "workflow/path_glob.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mpsaudit {
namespace {

// Backtracking steps allowed per character of pattern and path before the
// automaton takes over; ordinary patterns need a few.
constexpr std::size_t kStepsPerCharacter = 32;

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

// Whole-string match of `text` against `pattern` with segment-aware stars,
// by backtracking: fast on the patterns people write, but exponential in the
// number of "**" in the worst case. Each step spends one unit of `budget`;
// when it runs out the answer is GaveUp and the automaton below decides.
enum class Outcome { No, Yes, GaveUp };
Outcome match_backtracking(std::string_view pattern, std::string_view text, std::size_t &budget) {
  std::size_t p = 0, t = 0;
  // Backtracking points for the last single '*' (cannot cross '/').
  std::size_t star_p = std::string_view::npos, star_t = 0;
  while (t < text.size() || p < pattern.size()) {
    if (budget == 0)
      return Outcome::GaveUp;
    --budget;
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
          const Outcome outcome = match_backtracking(rest, text.substr(start), budget);
          if (outcome != Outcome::No)
            return outcome;
        }
        // No split worked; an earlier '*' may still take more characters.
        if (star_p != std::string_view::npos && star_t < text.size() && text[star_t] != '/') {
          p = star_p + 1;
          t = ++star_t;
          continue;
        }
        return Outcome::No;
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
    return Outcome::No;
  }
  return Outcome::Yes;
}

// The same match by an automaton: the pattern compiled into tokens, and every
// state reachable after each character kept at once, so a match costs at most
// (pattern tokens x text length) steps whatever the pattern. Slower than
// backtracking on ordinary patterns (it allocates, and reads the whole text),
// so it only decides when backtracking gives up. (Backtracking alone hung on
// a config glob of 120 stars; found by tests/fuzz/fuzz_config.)
class GlobAutomaton {
public:
  explicit GlobAutomaton(std::string_view pattern) : pattern_(pattern) {
    for (std::size_t p = 0; p < pattern.size();) {
      Token token;
      const char c = pattern[p];
      if (c == '*' && p + 1 < pattern.size() && pattern[p + 1] == '*') {
        // "**": any characters, '/' included. "**/": nothing, or anything
        // that ends with '/': an optional group of a globstar and a '/'.
        p += 2;
        if (p < pattern.size() && pattern[p] == '/') {
          token.kind = Kind::Optional;
          token.skip = 3;
          tokens_.push_back(token);
          token = Token{};
          token.kind = Kind::Globstar;
          tokens_.push_back(token);
          token = Token{};
          token.c = '/';
          ++p;
        } else {
          token.kind = Kind::Globstar;
        }
      } else if (c == '*') {
        token.kind = Kind::Star; // any characters but '/'
        ++p;
      } else if (c == '?') {
        token.kind = Kind::AnyChar; // one character but '/'
        ++p;
      } else if (c == '[') {
        std::size_t next = 0;
        bool is_class = false;
        match_class(pattern, p, 'a', next, is_class);
        if (is_class) {
          token.kind = Kind::Class;
          token.at = p;
          p = next;
        } else {
          token.c = '['; // no closing ']': a literal
          ++p;
        }
      } else {
        token.c = c;
        ++p;
      }
      tokens_.push_back(token);
    }
    const std::size_t states = tokens_.size() + 1; // the last state accepts
    stamp_.assign(states, 0);
    current_.reserve(states);
    next_.reserve(states);
  }

  bool matches(std::string_view text) {
    current_.clear();
    ++generation_;
    add(0, current_);
    for (const char c : text) {
      if (current_.empty())
        return false;
      next_.clear();
      ++generation_;
      for (const std::size_t state : current_) {
        if (state == tokens_.size())
          continue;
        const Token &token = tokens_[state];
        switch (token.kind) {
        case Kind::Literal:
          if (c == token.c)
            add(state + 1, next_);
          break;
        case Kind::AnyChar:
          if (c != '/')
            add(state + 1, next_);
          break;
        case Kind::Class: {
          std::size_t after = 0;
          bool is_class = false;
          if (match_class(pattern_, token.at, c, after, is_class))
            add(state + 1, next_);
          break;
        }
        case Kind::Star:
          if (c != '/')
            add(state, next_);
          break;
        case Kind::Globstar:
          add(state, next_);
          break;
        case Kind::Optional:
          break; // matches nothing itself
        }
      }
      current_.swap(next_);
    }
    return stamp_[tokens_.size()] == generation_;
  }

private:
  // Optional: the start of "**/", which goes on either into its globstar
  // (the next state) or past its '/' (skip).
  enum class Kind : std::uint8_t { Literal, AnyChar, Class, Star, Globstar, Optional };
  struct Token {
    Kind kind = Kind::Literal;
    char c = 0;           // Literal
    std::size_t at = 0;   // Class: the index of its '['
    std::size_t skip = 1; // Star, Globstar, Optional: the state reached by matching nothing
  };

  // Adds `state` and the states it reaches by matching nothing.
  void add(std::size_t first, std::vector<std::size_t> &states) {
    pending_.assign(1, first);
    while (!pending_.empty()) {
      const std::size_t state = pending_.back();
      pending_.pop_back();
      if (stamp_[state] == generation_)
        continue;
      stamp_[state] = generation_;
      states.push_back(state);
      if (state == tokens_.size())
        continue;
      const Kind kind = tokens_[state].kind;
      if (kind == Kind::Star || kind == Kind::Globstar || kind == Kind::Optional)
        pending_.push_back(state + tokens_[state].skip);
      if (kind == Kind::Optional)
        pending_.push_back(state + 1);
    }
  }

  std::string_view pattern_;
  std::vector<Token> tokens_;
  std::vector<std::uint64_t> stamp_; // == generation_: in the set being built
  std::uint64_t generation_ = 0;
  std::vector<std::size_t> current_, next_, pending_;
};

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
  std::optional<GlobAutomaton> automaton;
  // The path itself, then each parent directory ("a/b/c.py", "a/b", "a").
  std::string_view candidate = relative_path;
  while (!candidate.empty()) {
    std::size_t budget = kStepsPerCharacter * (anchored.size() + candidate.size() + 1);
    Outcome outcome = match_backtracking(anchored, candidate, budget);
    if (outcome == Outcome::GaveUp) {
      if (!automaton)
        automaton.emplace(anchored);
      outcome = automaton->matches(candidate) ? Outcome::Yes : Outcome::No;
    }
    if (outcome == Outcome::Yes)
      return true;
    const std::size_t slash = candidate.rfind('/');
    if (slash == std::string_view::npos)
      break;
    candidate = candidate.substr(0, slash);
  }
  return false;
}

} // namespace mpsaudit
