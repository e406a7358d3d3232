#include "workflow/suppression.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include <nlohmann/json.hpp>

#include "core/text.h"
#include "rules/engine.h"

namespace mpsaudit {
namespace {

// The meta rule's ID: codes that select it are never reported as unused,
// since an unused-suppression finding can itself be suppressed.
constexpr std::string_view kMetaRuleId = "MPS001";

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

struct LineContext {
  const std::string &path;
  std::uint32_t line; // file line (for diagnostics and findings)
  int cell;           // -1 outside notebooks
  std::uint32_t cell_line;
};

// Parses a directive from one line that contains the marker at `marker`.
// Returns false when the marker is not in a comment (code, prose).
bool parse_line(std::string_view line, std::size_t marker, const LineContext &where, FileSuppressions &out) {
  // What precedes the marker must be a comment introducer, then spaces.
  std::size_t before = marker;
  while (before > 0 && is_space(line[before - 1]))
    --before;
  std::size_t comment_start = std::string_view::npos;
  for (std::string_view introducer : kCommentIntroducers) {
    if (before >= introducer.size() &&
        line.substr(before - introducer.size(), introducer.size()) == introducer) {
      comment_start = before - introducer.size();
      break;
    }
  }
  if (comment_start == std::string_view::npos)
    return false;
  // "##" or "#!" style runs of '#' still count as one comment.
  while (comment_start > 0 && line[comment_start - 1] == '#')
    --comment_start;
  const bool own_line = trim(line.substr(0, comment_start)).empty();

  std::string_view rest = line.substr(marker + kSuppressionMarker.size());
  while (!rest.empty() && is_space(rest.front()))
    rest.remove_prefix(1);
  SuppressionDirective directive;
  directive.line = where.line;
  directive.cell = where.cell;
  directive.cell_line = where.cell_line;
  directive.own_line = own_line;
  directive.text = std::string(line);
  const auto invalid = [&](const std::string &message) {
    out.diagnostics.push_back(
        {DiagnosticLevel::Warning, where.path, where.line, "invalid-suppression",
         (where.cell >= 0 ? "cell " + std::to_string(where.cell + 1) + ": " : std::string()) + message});
    return true;
  };
  if (starts_with(rest, "ignore-file")) {
    directive.file_level = true;
    rest.remove_prefix(std::strlen("ignore-file"));
  } else if (starts_with(rest, "ignore")) {
    rest.remove_prefix(std::strlen("ignore"));
  } else {
    return invalid("unknown mpsaudit directive `" + std::string(trim(rest.substr(0, rest.find(' ')))) +
                   "`; expected ignore[...] or ignore-file[...]");
  }
  if (!rest.empty() && !is_space(rest.front()) && rest.front() != '[' && rest.front() != ':' &&
      rest.front() != '-' && !starts_with(rest, "*/"))
    return invalid("unknown mpsaudit directive; expected ignore[...] or ignore-file[...]");
  if (!rest.empty() && rest.front() == '[') {
    const std::size_t close = rest.find(']');
    if (close == std::string_view::npos)
      return invalid("suppression code list has no closing `]`");
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
          return invalid("`" + code + "` is not a rule ID or ID prefix (MPS followed by up to 3 digits)");
        directive.codes.push_back(code);
      }
      start = end + 1;
    }
    if (directive.codes.empty())
      return invalid(
          "empty suppression code list `[]`; name rules, or drop the brackets to ignore every rule");
  }
  directive.reason = clean_reason(rest);
  directive.code_used.assign(directive.codes.size(), false);
  out.directives.push_back(std::move(directive));
  return true;
}

// Every directive in `text`; `line_offset` maps its lines to file lines.
void scan_text(std::string_view text, const LineContext &base, FileSuppressions &out,
               const std::function<std::uint32_t(std::uint32_t)> &file_line = nullptr) {
  std::size_t position = 0;
  std::uint32_t line_number = 1;
  std::size_t counted_to = 0;
  while (position < text.size()) {
    const void *hit = memmem(text.data() + position, text.size() - position, kSuppressionMarker.data(),
                             kSuppressionMarker.size());
    if (!hit)
      break;
    const std::size_t marker = static_cast<std::size_t>(static_cast<const char *>(hit) - text.data());
    const std::size_t line_start =
        text.rfind('\n', marker) == std::string_view::npos ? 0 : text.rfind('\n', marker) + 1;
    std::size_t line_end = text.find('\n', marker);
    if (line_end == std::string_view::npos)
      line_end = text.size();
    line_number +=
        static_cast<std::uint32_t>(std::count(text.begin() + counted_to, text.begin() + line_start, '\n'));
    counted_to = line_start;
    std::string_view line = text.substr(line_start, line_end - line_start);
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    LineContext where = base;
    if (base.cell >= 0) {
      where.cell_line = line_number;
      where.line = file_line ? file_line(line_number) : base.line;
    } else {
      where.line = line_number;
    }
    parse_line(line, marker - line_start, where, out);
    position = line_end; // one directive per line
  }
}

// A notebook's code cells, counted as the notebook front end counts them.
void scan_notebook(const std::string &path, std::string_view text, FileSuppressions &out) {
  nlohmann::json notebook = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (notebook.is_discarded() || !notebook.is_object() || !notebook.contains("cells") ||
      !notebook["cells"].is_array())
    return; // the notebook front end already reported it
  const LineIndex file_lines(text);
  std::size_t search_from = 0;
  int code_cell = 0;
  for (const auto &cell : notebook["cells"]) {
    if (!cell.is_object() || cell.value("cell_type", "") != "code" || !cell.contains("source"))
      continue;
    const int cell_number = code_cell++;
    std::string source;
    if (cell["source"].is_string())
      source = cell["source"].get<std::string>();
    else if (cell["source"].is_array())
      for (const auto &part : cell["source"])
        if (part.is_string())
          source += part.get<std::string>();
    if (source.find(kSuppressionMarker) == std::string::npos)
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
    scan_text(source, LineContext{path, 1, cell_number, 0}, out, file_line);
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

} // namespace

bool suppression_code_matches(std::string_view code, std::string_view rule_id) {
  return !code.empty() && starts_with(rule_id, code);
}

FileSuppressions find_suppressions(const std::string &path, FileKind kind, std::string_view text) {
  FileSuppressions out;
  // The fast path: almost every file has no directive at all.
  if (text.size() < kSuppressionMarker.size() ||
      !memmem(text.data(), text.size(), kSuppressionMarker.data(), kSuppressionMarker.size()))
    return out;
  if (kind == FileKind::Notebook)
    scan_notebook(path, text, out);
  else
    scan_text(text, LineContext{path, 0, -1, 0}, out);
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
  if (unused.facts.empty())
    return counts;
  counts.unused = static_cast<std::uint32_t>(unused.facts.size());
  std::vector<Finding> meta =
      engine.evaluate(path, kind, unused, [](std::uint32_t) { return std::string(); });
  // An unused-suppression finding can be silenced by naming MPS001 itself
  // (never by a blanket directive, which would hide its own report).
  for (Finding &finding : meta)
    for (auto &directive : suppressions.directives)
      if (!directive.codes.empty())
        try_suppress(directive, finding);
  for (Finding &finding : meta)
    findings.push_back(std::move(finding));
  return counts;
}

} // namespace mpsaudit
