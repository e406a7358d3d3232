// Inline suppressions: comments that silence a finding where it is reviewed.
//
//   x = y.cuda()  # mpsaudit: ignore[MPS102] runs on the Linux cluster only
//   # mpsaudit: ignore[MPS102, MPS2] reason        (on its own line: the next line)
//   // mpsaudit: ignore[MPS801] reason              (C++, CUDA)
//   # mpsaudit: ignore-file[MPS4] reason            (the whole file)
//   # mpsaudit: ignore                              (every rule on this line)
//
// Codes are rule IDs or ID prefixes (family prefixes such as "MPS2").
// Directives are read from comments only, found by a small lexer for the
// file's language (comment_scan.h): the marker text inside a string literal,
// a heredoc or a Markdown code span is data and suppresses nothing. Within a
// comment the marker follows '#', '//', '/*' or '<!--' (or setup.cfg's ';').
// In notebooks, directives are read from each code cell's source and apply
// within that cell (the file-level form applies to the whole notebook).
//
// Suppressed findings are kept, flagged `suppressed`. A directive, or one
// code of it, that suppresses nothing becomes an `unused-suppression` fact,
// which the meta rule MPS001 (rules/meta.toml) reports, as ruff's RUF100 does.
// A comment that looks like a directive but is not one (wrong case, a space
// before the colon or the bracket, an unclosed list, an unknown code) becomes
// a `malformed-suppression` fact, reported by MPS002; it suppresses nothing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/fact.h"
#include "core/fact_kinds.h"
#include "core/finding.h"
#include "core/source.h"

namespace mpsaudit {

class RuleEngine;

// The fact kind of an unused directive or code (see rules/meta.toml).
inline constexpr std::string_view kUnusedSuppressionFact = fact_kind::UnusedSuppression;
// The fact kind of a comment that looks like a directive but is not one (MPS002).
inline constexpr std::string_view kMalformedSuppressionFact = fact_kind::MalformedSuppression;
// The text every directive contains; files without it are not parsed.
inline constexpr std::string_view kSuppressionMarker = "mpsaudit:";

struct SuppressionDirective {
  std::uint32_t line = 0;         // 1-based line of the .ipynb / source file
  int cell = -1;                  // notebook code cell (0-based), or -1
  std::uint32_t cell_line = 0;    // 1-based line in the cell
  bool file_level = false;        // ignore-file
  bool own_line = false;          // the comment is alone on its line: covers the next line
  std::vector<std::string> codes; // upper case; empty: every rule
  std::string reason;             // empty when none was given
  std::string text;               // the line, for snippets
  // Filled while applying: which codes (or, for no codes, the directive) matched.
  std::vector<bool> code_used;
  bool used = false;
};

struct MalformedDirective {
  std::uint32_t line = 0;      // 1-based line of the .ipynb / source file
  int cell = -1;               // notebook code cell (0-based), or -1
  std::uint32_t cell_line = 0; // 1-based line in the cell
  std::string written;         // the comment from the marker on, as written
  std::string problem;         // what is wrong, and how to write it
  std::string text;            // the line, for snippets
};

struct FileSuppressions {
  std::vector<SuppressionDirective> directives;
  std::vector<MalformedDirective> malformed;
  bool empty() const { return directives.empty() && malformed.empty(); }
};

// Finds the directives of one file, in its comments. Cheap for files that
// never say "mpsaudit" (one pass over the text); never throws on malformed
// input.
FileSuppressions find_suppressions(const std::string &path, FileKind kind, std::string_view text);

// Counts for the report: every directive, those without a reason, and the
// unused ones (each also an MPS001 finding).
struct SuppressionCounts {
  std::uint32_t directives = 0;
  std::uint32_t without_reason = 0;
  std::uint32_t unused = 0;
  SuppressionCounts &operator+=(const SuppressionCounts &other) {
    directives += other.directives;
    without_reason += other.without_reason;
    unused += other.unused;
    return *this;
  }
};

// Marks the findings the directives cover as suppressed (with the reason),
// then evaluates with `engine` the `malformed-suppression` facts and the
// `unused-suppression` facts of the directives that matched nothing,
// appending those findings (MPS002 and MPS001, when enabled).
SuppressionCounts apply_suppressions(FileSuppressions &suppressions, std::vector<Finding> &findings,
                                     const RuleEngine &engine, const std::string &path, FileKind kind);

// True when `code` (an ID or ID prefix, upper case) selects `rule_id`.
bool suppression_code_matches(std::string_view code, std::string_view rule_id);

} // namespace mpsaudit
