// .gitignore rules, read and matched in-process with git's semantics
// (gitignore(5)), so that listing a work tree never runs git: running git in
// a scanned repository runs what its .git/config names (core.fsmonitor).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace mpsaudit {

// git's wildmatch: `*`, `?`, `[...]` (ranges, `!` or `^` negation,
// `[:alpha:]` classes) and `\` escapes. With `pathname`, no wildcard matches
// '/', except `**` as a whole component (`**/x`, `x/**`, `a/**/b`).
bool wildmatch(std::string_view pattern, std::string_view text, bool pathname);

enum class IgnoreVerdict { NoMatch, Ignored, Included };

// The patterns of one ignore file (.gitignore, info/exclude, the global
// excludes file).
class IgnoreFile {
public:
  IgnoreFile() = default;
  // `base`: the directory the file applies to, relative to the top of the
  // work tree: "" or ending in '/'.
  IgnoreFile(std::string_view text, std::string base);
  // The verdict of the last pattern that matches `path` (relative to the top
  // of the work tree, no trailing '/').
  IgnoreVerdict match(const std::string &path, bool is_directory) const;
  bool empty() const { return patterns_.empty(); }

private:
  struct Pattern {
    std::string text;           // without `!`, trailing '/' and leading '/'
    std::size_t literal_prefix; // bytes before the first wildcard or '\'
    bool negated = false;
    bool directory_only = false;
    bool basename_only = false; // no '/' in the pattern: matches at any depth
    bool suffix_only = false;   // `*` and a literal: a suffix test
  };
  bool matches(const Pattern &pattern, const std::string &path, std::size_t basename) const;
  std::vector<Pattern> patterns_;
  std::string base_;
};

// The ignore files in force in one directory: its own .gitignore and those
// of the directories above it, each level pointing at its parent, so that a
// walk shares the levels above.
struct IgnoreLevel {
  std::shared_ptr<const IgnoreLevel> parent;
  IgnoreFile file;
};

// Whether `path` (relative to the top of the work tree) is ignored: the
// innermost .gitignore with a matching pattern decides, then each of
// `fallback` (info/exclude, then the global excludes file) in order.
bool is_ignored(const IgnoreLevel *innermost, const std::vector<IgnoreFile> &fallback,
                const std::string &path, bool is_directory);

} // namespace mpsaudit
