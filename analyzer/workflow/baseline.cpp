#include "workflow/baseline.h"

#include <cctype>
#include <cstdio>
#include <ostream>

#include "core/fnv1a.h"
#include "core/text.h"

namespace mpsaudit {
namespace {

constexpr std::string_view kHeader = "# mpsaudit baseline v1";

std::string hex64(std::uint64_t value) {
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(value));
  return buffer;
}

// Tabs and newlines would break the line format; the readable copy is only
// for reviewers, so it is flattened and shortened.
std::string readable_code(const Finding &finding) {
  std::string code;
  for (char c : trim(finding.snippet.empty() ? finding.name.str() : finding.snippet.str()))
    code.push_back(c == '\t' || c == '\n' || c == '\r' ? ' ' : c);
  if (code.size() > 160)
    code = code.substr(0, 157) + "...";
  return sanitize_utf8(code);
}

std::vector<std::string_view> split_tabs(std::string_view line, std::size_t max_fields) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (fields.size() + 1 < max_fields) {
    const std::size_t tab = line.find('\t', start);
    if (tab == std::string_view::npos)
      break;
    fields.push_back(line.substr(start, tab - start));
    start = tab + 1;
  }
  fields.push_back(line.substr(start));
  return fields;
}

} // namespace

std::string normalized_code(const Finding &finding) {
  const std::string &source = finding.snippet.empty() ? finding.name.str() : finding.snippet.str();
  std::string out;
  out.reserve(source.size());
  for (char c : source)
    if (!std::isspace(static_cast<unsigned char>(c)))
      out.push_back(c);
  return out;
}

std::string code_hash(const Finding &finding) {
  return hex64(fnv1a(normalized_code(finding)));
}

BaselineKey baseline_key(const Finding &finding) {
  return {finding.rule_id, finding.path, code_hash(finding)};
}

Baseline make_baseline(const std::vector<Finding> &findings) {
  Baseline baseline;
  for (const Finding &finding : findings) {
    if (finding.suppressed)
      continue;
    BaselineEntry &entry = baseline.entries[baseline_key(finding)];
    if (entry.count++ == 0)
      entry.code = readable_code(finding);
  }
  return baseline;
}

void write_baseline(std::ostream &out, const Baseline &baseline) {
  out << kHeader << "\n"
      << "# Findings recorded by `mpsaudit baseline write`; `mpsaudit scan --baseline` reports only others.\n"
      << "# rule\tpath\tcode-hash\tcount\tcode (whitespace-insensitive hash of the matched line)\n";
  for (const auto &[key, entry] : baseline.entries)
    out << key.rule << '\t' << key.path << '\t' << key.code_hash << '\t' << entry.count << '\t' << entry.code
        << "\n";
}

namespace {

// "MPS" and three digits, as every rule ID.
bool rule_id_shaped(std::string_view rule) {
  return rule.size() == 6 && starts_with(rule, "MPS") &&
         rule.substr(3).find_first_not_of("0123456789") == std::string_view::npos;
}

// The first non-blank line must be the header: the format of a later
// version, or a file that is no baseline at all, is refused rather than read
// as entries that match nothing.
bool check_header(std::string_view line, const std::string &path, std::uint32_t line_number,
                  std::vector<Diagnostic> &diagnostics) {
  if (line == kHeader)
    return true;
  constexpr std::string_view kHeaderStem = "# mpsaudit baseline ";
  const std::string message =
      starts_with(line, kHeaderStem)
          ? "unknown baseline format `" + std::string(line.substr(kHeaderStem.size())) +
                "`: this mpsaudit reads v1; write the baseline again with `mpsaudit baseline write`"
          : "not an mpsaudit baseline: its first line must be `" + std::string(kHeader) +
                "` (written by `mpsaudit baseline write`)";
  diagnostics.push_back({DiagnosticLevel::Error, path, line_number, "invalid-baseline", message});
  return false;
}

} // namespace

Baseline parse_baseline(std::string_view text, const std::string &path, std::vector<Diagnostic> &diagnostics,
                        const std::function<bool(std::string_view rule)> &known_rule) {
  Baseline baseline;
  std::uint32_t line_number = 0;
  std::size_t start = 0;
  bool header_seen = false;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos)
      end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    if (trim(line).empty())
      continue;
    if (!header_seen) {
      header_seen = true;
      if (!check_header(line, path, line_number, diagnostics))
        return Baseline{};
      continue;
    }
    if (line.front() == '#')
      continue;
    const auto fields = split_tabs(line, 5);
    const auto report = [&](DiagnosticLevel level, const std::string &why) {
      diagnostics.push_back({level, path, line_number, "invalid-baseline", why});
    };
    const auto bad = [&](const std::string &why) { report(DiagnosticLevel::Error, why); };
    if (fields.size() < 4) {
      bad("expected rule, path, code hash and count separated by tabs");
      continue;
    }
    const std::string_view rule = fields[0];
    if (!rule_id_shaped(rule)) {
      bad("`" + sanitize_utf8(rule.substr(0, 40)) + "` is not a rule ID (MPS and three digits)");
      continue;
    }
    if (fields[1].empty()) {
      bad("the path is empty");
      continue;
    }
    const std::string_view count_text = fields[3];
    if (count_text.empty() || count_text.find_first_not_of("0123456789") != std::string_view::npos ||
        count_text.size() > 9 || count_text.find_first_not_of('0') == std::string_view::npos) {
      bad("the count must be a positive whole number");
      continue;
    }
    if (fields[2].size() != 16 || fields[2].find_first_not_of("0123456789abcdef") != std::string_view::npos) {
      bad("the code hash must be 16 lower-case hex digits");
      continue;
    }
    if (known_rule && !known_rule(rule)) {
      // A rule of another mpsaudit version: the entry can match nothing, so
      // it is said, not silently kept.
      report(DiagnosticLevel::Warning, std::string(rule) +
                                           " is not a rule of this mpsaudit (renamed or removed?); the "
                                           "entry matches nothing. `mpsaudit baseline write` drops it");
      continue;
    }
    BaselineEntry &entry =
        baseline.entries[BaselineKey{std::string(rule), std::string(fields[1]), std::string(fields[2])}];
    entry.count += static_cast<std::uint32_t>(std::stoul(std::string(count_text)));
    if (fields.size() > 4)
      entry.code = std::string(fields[4]);
  }
  return baseline;
}

BaselineFilter filter_by_baseline(std::vector<Finding> &findings, const Baseline &baseline,
                                  const std::function<bool(const std::string &path)> &file_exists) {
  BaselineFilter filter;
  std::map<BaselineKey, std::uint32_t> remaining;
  for (const auto &[key, entry] : baseline.entries)
    remaining[key] = entry.count;
  // Entries of files that are gone (renamed, moved), by rule and code hash.
  std::map<std::pair<std::string, std::string>, std::uint32_t> orphaned;
  std::map<std::string, bool> exists_cache;
  for (const auto &[key, entry] : baseline.entries) {
    auto [it, inserted] = exists_cache.try_emplace(key.path, false);
    if (inserted)
      it->second = file_exists(key.path);
    if (!it->second)
      orphaned[{key.rule, key.code_hash}] += entry.count;
  }
  std::vector<bool> known(findings.size(), false);
  // Same path first, so a file's own entries are used before orphans.
  for (std::size_t i = 0; i < findings.size(); ++i) {
    if (findings[i].suppressed)
      continue;
    const auto it = remaining.find(baseline_key(findings[i]));
    if (it != remaining.end() && it->second > 0) {
      --it->second;
      known[i] = true;
    }
  }
  for (std::size_t i = 0; i < findings.size(); ++i) {
    if (findings[i].suppressed || known[i])
      continue;
    const auto it = orphaned.find({findings[i].rule_id, code_hash(findings[i])});
    if (it != orphaned.end() && it->second > 0) {
      --it->second;
      known[i] = true;
    }
  }
  std::uint32_t total = 0;
  for (const auto &[key, entry] : baseline.entries)
    total += entry.count;
  std::vector<Finding> kept;
  kept.reserve(findings.size());
  for (std::size_t i = 0; i < findings.size(); ++i) {
    if (known[i])
      filter.known_findings.push_back(std::move(findings[i]));
    else
      kept.push_back(std::move(findings[i]));
  }
  findings = std::move(kept);
  filter.known = static_cast<std::uint32_t>(filter.known_findings.size());
  filter.fixed = total > filter.known ? total - filter.known : 0;
  return filter;
}

} // namespace mpsaudit
