// MPS701, MPS702: requirements files that only work with CUDA wheels.
//
// A requirement pinned to a CUDA build keeps the pin everywhere but macOS and
// gains a plain pin for macOS (safe: Linux and Windows install what they did):
//     torch==2.1.0+cu118            ->  torch==2.1.0+cu118; sys_platform != "darwin"
//                                       torch==2.1.0; sys_platform == "darwin"
// A CUDA wheel index is marked as serving Linux and Windows only. pip has no
// markers for option lines, so the mark is a reviewed suppression comment on
// the line above; the option itself must let macOS fall back to PyPI:
//   --extra-index-url / --find-links already do (the index has no macOS
//     wheels, pip takes PyPI's): only the mark is added, a safe fix;
//   --index-url replaces PyPI, so it becomes --extra-index-url. Unsafe: on
//     Linux, unpinned requirements may now resolve to a newer PyPI build.
#include <algorithm>
#include <cctype>

#include "core/text.h"
#include "fix/fix_kind.h"

namespace mpsaudit {
namespace {

constexpr std::string_view kCudaMarker = "sys_platform != \"darwin\"";
constexpr std::string_view kMacMarker = "sys_platform == \"darwin\"";

struct RequirementLine {
  std::size_t begin = 0;     // offset of the line
  std::size_t end = 0;       // offset of its terminator
  std::string_view content;  // the line without comment and trailing blanks
  std::string_view trailing; // blanks and comment after the content
  std::string_view newline;  // "\n", "\r\n" or "" at the end of the file
};

std::optional<RequirementLine> read_line(const FixContext &context, std::uint32_t line, std::string &reason) {
  const LineIndex &lines = context.lines();
  if (line == 0 || line > lines.line_count()) {
    reason = "line out of range";
    return std::nullopt;
  }
  const std::string &text = context.text();
  RequirementLine out;
  out.begin = lines.line_start(line);
  std::string_view whole = lines.line_text(line);
  out.end = out.begin + whole.size();
  if (!whole.empty() && whole.back() == '\r') {
    whole.remove_suffix(1);
    out.end -= 1;
  }
  out.newline = std::string_view(text).substr(out.end, text.compare(out.end, 2, "\r\n") == 0 ? 2 : 1);
  if (out.end >= text.size())
    out.newline = {};
  // pip's comment rule: '#' at the start or after whitespace.
  std::size_t comment = whole.size();
  for (std::size_t i = 0; i < whole.size(); ++i)
    if (whole[i] == '#' && (i == 0 || whole[i - 1] == ' ' || whole[i - 1] == '\t')) {
      comment = i;
      break;
    }
  std::size_t content_end = comment;
  while (content_end > 0 && (whole[content_end - 1] == ' ' || whole[content_end - 1] == '\t'))
    --content_end;
  out.content = whole.substr(0, content_end);
  out.trailing = whole.substr(content_end);
  // Continuations join physical lines; fix only edits lines that stand alone.
  if (ends_with(out.content, "\\") || (line > 1 && ends_with(trim(lines.line_text(line - 1)), "\\"))) {
    reason = "the requirement continues over several lines";
    return std::nullopt;
  }
  return out;
}

std::string combine_marker(std::string_view existing, std::string_view added) {
  existing = trim(existing);
  if (existing.empty())
    return std::string(added);
  return "(" + std::string(existing) + ") and " + std::string(added);
}

// Whether another line of the file already pins `name` for macOS.
bool has_mac_line(const FixContext &context, const Finding &finding) {
  if (!context.facts())
    return false;
  for (const Fact &fact : context.facts()->facts) {
    if (fact.kind != fact_kind::Dependency || fact.name != finding.name ||
        fact.span.line == finding.span.line)
      continue;
    const std::string *marker = fact.attribute("marker");
    if (marker && marker->find("darwin") != std::string::npos)
      return true;
  }
  return false;
}

FixOutcome plan_local_version(FixContext &context, const Finding &finding) {
  std::string reason;
  const auto line = read_line(context, finding.span.line, reason);
  if (!line)
    return FixOutcome::none(reason);
  const std::string_view content = line->content;
  if (trim(content).empty() || content.front() == '-')
    return FixOutcome::none("not a requirement line (an option or an included file)");
  if (content.find(" -") != std::string_view::npos || content.find("\t-") != std::string_view::npos)
    return FixOutcome::none("per-requirement options (--hash) belong to the CUDA build");
  const auto semicolon = content.find(';');
  const std::string_view requirement = content.substr(0, semicolon);
  const std::string_view marker =
      semicolon == std::string_view::npos ? std::string_view{} : content.substr(semicolon + 1);
  if (requirement.find('@') != std::string_view::npos)
    return FixOutcome::none("a direct URL reference");
  const auto plus = requirement.find('+');
  if (plus == std::string_view::npos || requirement.find("==") == std::string_view::npos)
    return FixOutcome::none("no `==version+local` pin on this line");
  std::size_t local_end = plus + 1;
  while (local_end < requirement.size() &&
         (std::isalnum(static_cast<unsigned char>(requirement[local_end])) || requirement[local_end] == '.'))
    ++local_end;
  std::string plain = std::string(requirement.substr(0, plus)) + std::string(requirement.substr(local_end));
  while (!plain.empty() && (plain.back() == ' ' || plain.back() == '\t'))
    plain.pop_back();
  std::string cuda_requirement(requirement);
  while (!cuda_requirement.empty() && (cuda_requirement.back() == ' ' || cuda_requirement.back() == '\t'))
    cuda_requirement.pop_back();

  const std::string newline = line->newline.empty() ? std::string("\n") : std::string(line->newline);
  std::string replacement =
      cuda_requirement + "; " + combine_marker(marker, kCudaMarker) + std::string(line->trailing);
  if (!has_mac_line(context, finding))
    replacement += newline + plain + "; " + combine_marker(marker, kMacMarker);
  PlannedFix fix;
  fix.edits.push_back({line->begin, line->end, replacement});
  fix.description = "CUDA pin kept off macOS; a plain pin for macOS";
  return FixOutcome::with(std::move(fix));
}

FixOutcome plan_index(FixContext &context, const Finding &finding) {
  std::string reason;
  const auto line = read_line(context, finding.span.line, reason);
  if (!line)
    return FixOutcome::none(reason);
  const std::string_view content = trim(line->content);
  std::string_view option = content.substr(0, content.find_first_of(" \t="));
  const bool replaces_pypi = option == "--index-url" || (option.size() >= 2 && option.substr(0, 2) == "-i");
  const bool extra = option == "--extra-index-url" || option == "--find-links" ||
                     (option.size() >= 2 && option.substr(0, 2) == "-f");
  if (!replaces_pypi && !extra)
    return FixOutcome::none("the index is not the only option of its line");
  // Views into the context's text: the offset is the distance from its start.
  const auto content_offset = static_cast<std::size_t>(content.data() - context.text().data());
  const std::string newline = line->newline.empty() ? std::string("\n") : std::string(line->newline);
  PlannedFix fix;
  // The mark: a directive on its own line covers the next line.
  fix.edits.push_back({line->begin, line->begin,
                       "# mpsaudit: ignore[" + finding.rule_id +
                           "] CUDA wheels for Linux and Windows only; macOS installs from PyPI" + newline});
  if (replaces_pypi) {
    std::size_t option_length = option.size();
    std::string value_separator;
    if (option != "--index-url" && option.size() > 2) {
      option_length = 2; // -iURL
      value_separator = " ";
    }
    fix.edits.push_back(
        {content_offset, content_offset + option_length, "--extra-index-url" + value_separator});
    fix.safety = FixSafety::Unsafe;
    fix.description =
        "--index-url -> --extra-index-url (PyPI stays the fallback), marked Linux and Windows only";
  } else {
    fix.description = "CUDA index marked Linux and Windows only";
  }
  return FixOutcome::with(std::move(fix));
}

} // namespace

void register_requirements_fixes(FixRegistry &registry) {
  registry.add("requirements-platform-markers", {FileKind::Requirements}, plan_local_version);
  registry.add("requirements-cuda-index", {FileKind::Requirements}, plan_index);
}

} // namespace mpsaudit
