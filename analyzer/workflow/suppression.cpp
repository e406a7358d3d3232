#include "workflow/suppression.h"

#include <algorithm>
#include <cctype>
#include <functional>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <nlohmann/json.hpp>

#include "core/edit_distance.h"
#include "core/text.h"
#include "rules/engine.h"
#include "workflow/comment_scan.h"

namespace mpsaudit {
namespace {

// The meta rule's ID: codes that select it are never reported as unused,
// since an unused-suppression finding can itself be suppressed.
constexpr std::string_view kMetaRuleId = "MPS001";

// Every directive starts with this word. Comments that start with it in
// another case or spelling are near misses, reported as malformed.
constexpr std::string_view kMarkerWord = "mpsaudit";

// Comment introducers, longest first so "<!--" wins over nothing shorter.
constexpr std::string_view kCommentIntroducers[] = {"<!--", "//", "/*", "#"};

std::string upper(std::string_view text) {
  std::string out(text);
  for (char &c : out)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

bool is_space(char c) {
  return c == ' ' || c == '\t';
}

// `word` is lower case.
bool starts_with_any_case(std::string_view text, std::string_view word) {
  if (text.size() < word.size())
    return false;
  for (std::size_t i = 0; i < word.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(text[i])) != word[i])
      return false;
  return true;
}

// The next "mpsaudit", in any case, in [from, to); npos when none. Every
// file is searched, almost always in vain, so sixteen positions are tried at
// once: the candidates are those whose first and last letters match (folded
// to lower case by setting bit 5), and only they are compared whole.
std::size_t find_marker_word(std::string_view text, std::size_t from, std::size_t to) {
  const std::size_t length = kMarkerWord.size();
  std::size_t at = from;
#if defined(__SSE2__)
  const __m128i fold = _mm_set1_epi8(0x20);
  const __m128i first = _mm_set1_epi8(kMarkerWord.front());
  const __m128i last = _mm_set1_epi8(kMarkerWord.back());
  for (; at + length - 1 + 16 <= to; at += 16) {
    const auto *heads = reinterpret_cast<const __m128i *>(text.data() + at);
    const auto *tails = reinterpret_cast<const __m128i *>(text.data() + at + length - 1);
    const __m128i head_match = _mm_cmpeq_epi8(_mm_or_si128(_mm_loadu_si128(heads), fold), first);
    const __m128i tail_match = _mm_cmpeq_epi8(_mm_or_si128(_mm_loadu_si128(tails), fold), last);
    for (auto candidates = static_cast<unsigned>(_mm_movemask_epi8(_mm_and_si128(head_match, tail_match)));
         candidates != 0; candidates &= candidates - 1) {
      const std::size_t candidate = at + static_cast<std::size_t>(__builtin_ctz(candidates));
      if (starts_with_any_case(text.substr(candidate), kMarkerWord))
        return candidate;
    }
  }
#endif
  for (; at + length <= to; ++at)
    if ((text[at] | 0x20) == 'm' && starts_with_any_case(text.substr(at), kMarkerWord))
      return at;
  return std::string_view::npos;
}

// A code is "MPS" followed by up to three digits.
bool valid_code(std::string_view code) {
  if (code.size() < 3 || code.size() > 6 || code.substr(0, 3) != "MPS")
    return false;
  return std::all_of(code.begin() + 3, code.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Strips a comment terminator and separators around a reason.
std::string clean_reason(std::string_view reason) {
  reason = trim(reason);
  for (std::string_view closer : {"-->", "*/"})
    if (ends_with(reason, closer))
      reason = trim(reason.substr(0, reason.size() - closer.size()));
  while (!reason.empty() && (reason.front() == ':' || reason.front() == '-' || reason.front() == ','))
    reason = trim(reason.substr(1));
  return std::string(reason);
}

// Where a marker is: its file line, and in a notebook its cell and cell line.
struct MarkerPlace {
  std::uint32_t line = 0;
  int cell = -1;
  std::uint32_t cell_line = 0;
  bool own_line = false;  // nothing but blanks before the comment on its line
  std::string_view text;  // the marker's source line
  std::string_view words; // from the marker to the end of the comment on that line
};

// Records a comment that looks like a directive but is not one (MPS002).
void malformed(const MarkerPlace &place, const std::string &problem, FileSuppressions &out) {
  MalformedDirective bad;
  bad.line = place.line;
  bad.cell = place.cell;
  bad.cell_line = place.cell_line;
  bad.text = std::string(place.text);
  std::string_view written = trim(place.words);
  for (std::string_view closer : {"-->", "*/"})
    if (ends_with(written, closer))
      written = trim(written.substr(0, written.size() - closer.size()));
  bad.written = std::string(written.substr(0, 120));
  bad.problem = problem;
  out.malformed.push_back(std::move(bad));
}

// "MPSAUDIT: IGNORE", "mpsaudit : ignore", "mpsaudit ignore", "mpsaudit-ignore":
// the word, blanks, at most one of ":-=", blanks, then "ignore" in any case.
bool near_miss(std::string_view words) {
  std::size_t at = kMarkerWord.size();
  while (at < words.size() && is_space(words[at]))
    ++at;
  if (at < words.size() && (words[at] == ':' || words[at] == '-' || words[at] == '='))
    ++at;
  while (at < words.size() && is_space(words[at]))
    ++at;
  return starts_with_any_case(words.substr(at), "ignore");
}

// After "mpsaudit:", a word meant as a directive: a code list follows it, or
// it is a typo of ignore / ignore-file ("ignroe", "ingore-file").
bool misspelled_directive(std::string_view rest) {
  std::size_t length = 0;
  while (
      length < rest.size() && length < 16 &&
      (std::isalpha(static_cast<unsigned char>(rest[length])) || rest[length] == '-' || rest[length] == '_'))
    ++length;
  if (length == 0)
    return false;
  if (length < rest.size() && rest[length] == '[')
    return true;
  const std::string word = to_lower(rest.substr(0, length));
  return edit_distance(word, "ignore") <= 2 || edit_distance(word, "ignore-file") <= 2;
}

// Reads the directive in `place.words`, which starts with "mpsaudit" in
// some case. Prose that merely mentions mpsaudit is left alone.
void read_directive(const MarkerPlace &place, FileSuppressions &out) {
  if (!starts_with(place.words, kSuppressionMarker)) {
    if (near_miss(place.words))
      malformed(place,
                "the marker is `mpsaudit:` in lower case with the colon right after it, as in "
                "`mpsaudit: ignore[MPS201]`",
                out);
    return;
  }
  std::string_view rest = place.words.substr(kSuppressionMarker.size());
  while (!rest.empty() && is_space(rest.front()))
    rest.remove_prefix(1);
  SuppressionDirective directive;
  directive.line = place.line;
  directive.cell = place.cell;
  directive.cell_line = place.cell_line;
  directive.own_line = place.own_line;
  directive.text = std::string(place.text);
  std::string_view keyword;
  if (starts_with(rest, "ignore-file")) {
    directive.file_level = true;
    keyword = "ignore-file";
  } else if (starts_with(rest, "ignore")) {
    keyword = "ignore";
  } else if (starts_with_any_case(rest, "ignore")) {
    return malformed(place, "directives are lower case: `ignore[...]` or `ignore-file[...]`", out);
  } else if (misspelled_directive(rest)) {
    return malformed(place,
                     "unknown mpsaudit directive `" + std::string(trim(rest.substr(0, rest.find(' ')))) +
                         "`; expected ignore[...] or ignore-file[...]",
                     out);
  } else {
    return; // "# mpsaudit: what this file does" is prose
  }
  rest.remove_prefix(keyword.size());
  if (!rest.empty() && !is_space(rest.front()) && rest.front() != '[' && rest.front() != ':' &&
      rest.front() != '-' && !starts_with(rest, "*/"))
    return malformed(place, "unknown mpsaudit directive; expected ignore[...] or ignore-file[...]", out);
  if (!rest.empty() && is_space(rest.front()) && trim(rest).substr(0, 1) == "[")
    return malformed(place,
                     "a space between `" + std::string(keyword) + "` and `[`: the code list would be read " +
                         "as a reason and the directive would cover every rule; write `" +
                         std::string(keyword) + "[...]`",
                     out);
  if (!rest.empty() && rest.front() == '[') {
    const std::size_t close = rest.find(']');
    if (close == std::string_view::npos)
      return malformed(place, "the code list has no closing `]`", out);
    std::string_view list = rest.substr(1, close - 1);
    rest.remove_prefix(close + 1);
    std::size_t start = 0;
    while (start <= list.size()) {
      std::size_t end = list.find_first_of(", ", start);
      if (end == std::string_view::npos)
        end = list.size();
      const std::string code = upper(trim(list.substr(start, end - start)));
      if (!code.empty()) {
        if (!valid_code(code))
          return malformed(
              place, "`" + code + "` is not a rule ID or ID prefix (MPS followed by up to 3 digits)", out);
        directive.codes.push_back(code);
      }
      start = end + 1;
    }
    if (directive.codes.empty())
      return malformed(place, "empty code list `[]`; name rules, or drop the brackets to ignore every rule",
                       out);
  }
  directive.reason = clean_reason(rest);
  directive.code_used.assign(directive.codes.size(), false);
  out.directives.push_back(std::move(directive));
}

// True when `marker` directly follows a comment introducer (and blanks)
// inside `comment`: "# mpsaudit:", "x  # noqa  # mpsaudit:", "/* mpsaudit:",
// "; mpsaudit:" in setup.cfg. An introducer inside the comment must start a
// word, so prose that quotes the syntax ("see `# mpsaudit: ...`") and prose
// that mentions the word ("# see mpsaudit: ...") are not directives.
bool introduced(std::string_view text, const CommentSpan &comment, std::size_t marker) {
  std::string_view before = text.substr(comment.begin, marker - comment.begin);
  while (!before.empty() && is_space(before.back()))
    before.remove_suffix(1);
  if (before == ";")
    return true;
  for (std::string_view introducer : kCommentIntroducers) {
    if (!ends_with(before, introducer))
      continue;
    std::size_t start = before.size() - introducer.size();
    while (introducer == "#" && start > 0 && before[start - 1] == '#')
      --start; // "##" is one introducer
    return start == 0 || is_space(before[start - 1]);
  }
  return false;
}

// The directives in the comments of `text` (a file, or one notebook cell).
// `file_line` maps a line of `text` to the file's line; `cell` is -1 outside
// notebooks.
void scan_comments(std::string_view text, const std::vector<CommentSpan> &comments, int cell,
                   const std::function<std::uint32_t(std::uint32_t)> &file_line, FileSuppressions &out) {
  const LineIndex lines(text);
  for (const CommentSpan &comment : comments) {
    std::size_t from = comment.begin;
    while (from < comment.end) {
      const std::size_t marker = find_marker_word(text, from, comment.end);
      if (marker == std::string_view::npos)
        break;
      const std::uint32_t line = lines.line_of(marker);
      const std::size_t line_start = lines.line_start(line);
      const std::string_view line_text = lines.line_text(line);
      const std::size_t line_stop = std::min(line_start + line_text.size(), comment.end);
      if (!introduced(text, comment, marker)) {
        from = marker + kMarkerWord.size();
        continue;
      }
      MarkerPlace place;
      place.cell = cell;
      place.cell_line = cell >= 0 ? line : 0;
      place.line = cell >= 0 ? file_line(line) : line;
      place.own_line =
          trim(text.substr(line_start, std::max(comment.begin, line_start) - line_start)).empty();
      place.text = line_text;
      place.words = text.substr(marker, line_stop - marker);
      read_directive(place, out);
      from = line_start + line_text.size() + 1; // one directive per line
    }
  }
}

// A notebook's code cells, numbered by position as the notebook front end
// numbers them (markdown cells count). Cells are Python.
void scan_notebook(std::string_view text, FileSuppressions &out) {
  nlohmann::json notebook = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (notebook.is_discarded() || !notebook.is_object() || !notebook.contains("cells") ||
      !notebook["cells"].is_array())
    return; // the notebook front end already reported it
  const LineIndex file_lines(text);
  std::size_t search_from = 0;
  const auto &cells = notebook["cells"];
  for (std::size_t index = 0; index < cells.size(); ++index) {
    const auto &cell = cells[index];
    if (!cell.is_object() || cell.value("cell_type", "") != "code" || !cell.contains("source"))
      continue;
    std::string source;
    if (cell["source"].is_string())
      source = cell["source"].get<std::string>();
    else if (cell["source"].is_array())
      for (const auto &part : cell["source"])
        if (part.is_string())
          source += part.get<std::string>();
    if (find_marker_word(source, 0, source.size()) == std::string::npos)
      continue;
    const LineIndex cell_lines(source);
    // The .ipynb line of a cell line: find its JSON-escaped text in the file.
    const auto file_line = [&](std::uint32_t cell_line) -> std::uint32_t {
      const std::string escaped = nlohmann::json(std::string(cell_lines.line_text(cell_line))).dump();
      const std::string_view needle = std::string_view(escaped).substr(1, escaped.size() - 2);
      const std::size_t found = needle.empty() ? std::string_view::npos : text.find(needle, search_from);
      if (found == std::string_view::npos)
        return 1;
      search_from = found + needle.size();
      return file_lines.line_of(found);
    };
    scan_comments(source, find_comments(FileKind::Notebook, "", source), static_cast<int>(index), file_line,
                  out);
  }
}

// The finding's first and last line in the directive's coordinates.
void finding_lines(const Finding &finding, bool in_cell, std::uint32_t &first, std::uint32_t &last) {
  const std::uint32_t extra =
      finding.span.end_line > finding.span.line ? finding.span.end_line - finding.span.line : 0;
  first = in_cell ? finding.cell_line : finding.span.line;
  last = first + extra;
}

bool covers(const SuppressionDirective &directive, const Finding &finding) {
  if (directive.file_level)
    return true;
  const bool in_cell = directive.cell >= 0;
  if (in_cell && finding.cell != directive.cell)
    return false;
  std::uint32_t first = 0, last = 0;
  finding_lines(finding, in_cell, first, last);
  const std::uint32_t line = in_cell ? directive.cell_line : directive.line;
  if (first <= line && line <= last)
    return true;
  return directive.own_line && first <= line + 1 && line + 1 <= last;
}

// Tries `directive` on `finding`; records which codes matched.
bool try_suppress(SuppressionDirective &directive, Finding &finding) {
  if (!covers(directive, finding))
    return false;
  bool matched = directive.codes.empty();
  for (std::size_t i = 0; i < directive.codes.size(); ++i)
    if (suppression_code_matches(directive.codes[i], finding.rule_id)) {
      directive.code_used[i] = true;
      matched = true;
    }
  if (!matched)
    return false;
  directive.used = true;
  if (!finding.suppressed) {
    finding.suppressed = true;
    finding.suppression_reason = directive.reason;
  }
  return true;
}

Fact unused_fact(const SuppressionDirective &directive, const std::string &code) {
  Fact fact;
  fact.kind = std::string(kUnusedSuppressionFact);
  fact.name = code.empty() ? "*" : code;
  const std::uint32_t column = 1;
  fact.span =
      Span{directive.line, column, directive.line, static_cast<std::uint32_t>(directive.text.size() + 1)};
  fact.cell = directive.cell;
  fact.cell_line = directive.cell_line;
  fact.set_attribute("directive", directive.file_level ? "ignore-file" : "ignore");
  fact.set_attribute("scope", directive.file_level ? "this file" : "this line");
  fact.set_attribute("snippet", directive.text);
  return fact;
}

Fact malformed_fact(const MalformedDirective &bad) {
  Fact fact;
  fact.kind = std::string(kMalformedSuppressionFact);
  fact.name = bad.written;
  fact.span = Span{bad.line, 1, bad.line, static_cast<std::uint32_t>(bad.text.size() + 1)};
  fact.cell = bad.cell;
  fact.cell_line = bad.cell_line;
  fact.set_attribute("problem", bad.problem);
  fact.set_attribute("snippet", bad.text);
  return fact;
}

// Evaluates meta facts (MPS001, MPS002) and appends their findings. They can
// be silenced by a directive naming their rule, never by a blanket directive,
// which would hide its own report.
void add_meta_findings(const FileFacts &facts, FileSuppressions &suppressions, std::vector<Finding> &findings,
                       const RuleEngine &engine, const std::string &path, FileKind kind) {
  if (facts.facts.empty())
    return;
  std::vector<Finding> meta = engine.evaluate(path, kind, facts, [](std::uint32_t) { return std::string(); });
  for (Finding &finding : meta)
    for (auto &directive : suppressions.directives)
      if (!directive.codes.empty())
        try_suppress(directive, finding);
  for (Finding &finding : meta)
    findings.push_back(std::move(finding));
}

} // namespace

bool suppression_code_matches(std::string_view code, std::string_view rule_id) {
  return !code.empty() && starts_with(rule_id, code);
}

FileSuppressions find_suppressions(const std::string &path, FileKind kind, std::string_view text) {
  FileSuppressions out;
  // The fast path: almost every file never says "mpsaudit" (in any case).
  if (find_marker_word(text, 0, text.size()) == std::string_view::npos)
    return out;
  if (kind == FileKind::Notebook)
    scan_notebook(text, out);
  else
    scan_comments(text, find_comments(kind, path, text), -1, nullptr, out);
  return out;
}

SuppressionCounts apply_suppressions(FileSuppressions &suppressions, std::vector<Finding> &findings,
                                     const RuleEngine &engine, const std::string &path, FileKind kind) {
  SuppressionCounts counts;
  if (suppressions.empty())
    return counts;
  // Line directives first, so a finding names its nearest reason.
  for (Finding &finding : findings) {
    for (auto &directive : suppressions.directives)
      if (!directive.file_level)
        try_suppress(directive, finding);
    for (auto &directive : suppressions.directives)
      if (directive.file_level)
        try_suppress(directive, finding);
  }
  // Malformed directives before unused ones: naming MPS002 uses the code.
  FileFacts malformed;
  for (const auto &bad : suppressions.malformed)
    malformed.facts.push_back(malformed_fact(bad));
  add_meta_findings(malformed, suppressions, findings, engine, path, kind);

  FileFacts unused;
  for (const auto &directive : suppressions.directives) {
    ++counts.directives;
    if (directive.reason.empty())
      ++counts.without_reason;
    if (directive.codes.empty()) {
      if (!directive.used)
        unused.facts.push_back(unused_fact(directive, ""));
      continue;
    }
    for (std::size_t i = 0; i < directive.codes.size(); ++i)
      if (!directive.code_used[i] && !suppression_code_matches(directive.codes[i], kMetaRuleId))
        unused.facts.push_back(unused_fact(directive, directive.codes[i]));
  }
  counts.unused = static_cast<std::uint32_t>(unused.facts.size());
  add_meta_findings(unused, suppressions, findings, engine, path, kind);
  return counts;
}

} // namespace mpsaudit
