// A byte-level prefilter in the manner of ripgrep's literal search: whether a
// text contains at least one of a set of words, case-insensitively (ASCII).
// A superset test: a text that contains none of the words cannot hold what
// the words stand for; one that contains a word may still hold nothing.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "core/text.h"

namespace mpsaudit {

class LiteralFilter {
public:
  // `words` in any case; empty words are dropped, and a word that contains
  // another one adds nothing (the shorter one is found first).
  explicit LiteralFilter(const std::vector<std::string> &words) {
    for (const std::string &word : words)
      if (!word.empty())
        words_.push_back(to_lower(word));
    std::sort(words_.begin(), words_.end(), [](const std::string &a, const std::string &b) {
      return a.size() != b.size() ? a.size() < b.size() : a < b;
    });
    words_.erase(std::unique(words_.begin(), words_.end()), words_.end());
    std::vector<std::string> minimal;
    for (const std::string &word : words_)
      if (std::none_of(minimal.begin(), minimal.end(),
                       [&](const std::string &shorter) { return word.find(shorter) != std::string::npos; }))
        minimal.push_back(word);
    words_ = std::move(minimal);
  }

  // Whether `text` contains one of the words, in any case.
  bool may_match(std::string_view text) const {
    const std::string lower = to_lower(text);
    return std::any_of(words_.begin(), words_.end(),
                       [&](const std::string &word) { return lower.find(word) != std::string::npos; });
  }

  // The words searched for: lower case, none containing another.
  const std::vector<std::string> &words() const { return words_; }

private:
  std::vector<std::string> words_;
};

} // namespace mpsaudit
