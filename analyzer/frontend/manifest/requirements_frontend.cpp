// requirements*.txt and constraints files, the way pip reads them: line
// continuations, comments, global and per-requirement options, `-r`/`-c`
// includes (followed on disk, cycles detected), editable and VCS lines.
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include "core/text.h"
#include "frontend/manifest/logical_line.h"
#include "frontend/manifest/manifest_frontend.h"
#include "frontend/manifest/requirement.h"
#include "frontend/manifest/requirements_reader.h"

namespace mpsaudit {
namespace fs = std::filesystem;
using namespace manifest;

namespace {

// Cuts a trailing comment: '#' at the start of the line or after whitespace.
std::string_view strip_comment(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '#' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\t'))
      return text.substr(0, i);
  return text;
}

struct OptionSpec {
  std::string_view short_name;
  std::string_view long_name;
  bool takes_value;
};

// pip's requirements-file options (pip/_internal/req/req_file.py).
constexpr OptionSpec kGlobalOptions[] = {
    {"-r", "--requirement", true},   {"-c", "--constraint", true},
    {"-e", "--editable", true},      {"-i", "--index-url", true},
    {"", "--extra-index-url", true}, {"-f", "--find-links", true},
    {"", "--no-index", false},       {"", "--pre", false},
    {"", "--trusted-host", true},    {"", "--prefer-binary", false},
    {"", "--only-binary", true},     {"", "--no-binary", true},
    {"", "--require-hashes", false}, {"", "--use-feature", true},
    {"-Z", "--always-unzip", false}, {"", "--config-settings", true},
};
constexpr std::string_view kPerRequirementOptions[] = {"--hash", "--global-option", "--install-option",
                                                       "--config-settings", "--config_settings"};

std::vector<std::pair<std::string, std::size_t>> split_words(std::string_view text) {
  std::vector<std::pair<std::string, std::size_t>> words;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t'))
      ++i;
    if (i >= text.size())
      break;
    const std::size_t begin = i;
    std::string word;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t') {
      if (text[i] == '"' || text[i] == '\'') {
        const char quote = text[i];
        const auto close = text.find(quote, i + 1);
        const auto stop = close == std::string_view::npos ? text.size() : close;
        word.append(text.substr(i + 1, stop - i - 1));
        i = stop == text.size() ? stop : stop + 1;
        continue;
      }
      word.push_back(text[i++]);
    }
    words.emplace_back(std::move(word), begin);
  }
  return words;
}

} // namespace

namespace manifest {

RequirementsParse parse_requirements_text(std::string_view text, const std::string &path,
                                          std::string_view source, std::uint32_t first_line) {
  RequirementsParse out;
  for (const LogicalLine &line : logical_lines(text, first_line)) {
    const std::string_view content = strip_comment(line.text);
    if (trim(content).empty())
      continue;
    const auto words = split_words(content);
    const auto [line_no, first_column] = line.position(words.front().second);
    (void)first_column;
    if (starts_with(words.front().first, "-")) {
      // Global option line: one option (with its value) per line, more allowed.
      for (std::size_t w = 0; w < words.size(); ++w) {
        std::string word = words[w].first;
        std::string value;
        bool has_inline_value = false;
        const auto equals = word.find('=');
        if (starts_with(word, "--") && equals != std::string::npos) {
          value = word.substr(equals + 1);
          word = word.substr(0, equals);
          has_inline_value = true;
        }
        const OptionSpec *spec = nullptr;
        for (const auto &candidate : kGlobalOptions) {
          if (word == candidate.long_name ||
              (!candidate.short_name.empty() && word == candidate.short_name)) {
            spec = &candidate;
          } else if (!candidate.short_name.empty() && candidate.takes_value &&
                     starts_with(word, candidate.short_name) && word.size() > 2 && word[1] != '-') {
            spec = &candidate; // -rfile
            value = word.substr(2);
            has_inline_value = true;
          }
          if (spec)
            break;
        }
        const auto [opt_line, opt_column] = line.position(words[w].second);
        if (!spec) {
          add_diagnostic(out.facts, DiagnosticLevel::Warning, path, opt_line, "unknown-option",
                         "unknown requirements-file option '" + word + "'");
          break; // the rest of the line is that option's business
        }
        if (spec->takes_value && !has_inline_value) {
          if (w + 1 >= words.size()) {
            add_diagnostic(out.facts, DiagnosticLevel::Warning, path, opt_line, "missing-value",
                           "option '" + word + "' needs a value");
            break;
          }
          value = words[++w].first;
        }
        const std::string long_name(spec->long_name);
        if (long_name == "--requirement" || long_name == "--constraint") {
          out.includes.push_back({long_name == "--constraint", value, opt_line, opt_column});
        } else if (long_name == "--index-url" || long_name == "--extra-index-url" ||
                   long_name == "--find-links") {
          Fact fact = make_fact(manifest_fact_kind::PackageIndex, value, opt_line, opt_column,
                                static_cast<std::uint32_t>(words[w].first.size()));
          fact.set_attribute("option", long_name.substr(2));
          fact.set_attribute("source", std::string(source));
          fact.set_attribute("value", std::string(trim(content)));
          const std::string tag = cuda_tag_of(value);
          if (!tag.empty())
            fact.set_attribute("cuda_tag", tag);
          out.facts.facts.push_back(std::move(fact));
        } else if (long_name == "--editable") {
          std::string error;
          const auto requirement = parse_requirement(value, error);
          const auto [value_line, value_column] = line.position(words[w].second);
          if (requirement) {
            Fact fact = dependency_fact(*requirement, content, source, value_line, value_column);
            fact.set_attribute("editable", "true");
            out.facts.facts.push_back(std::move(fact));
          }
          // An editable local path without a name is the project itself.
        }
      }
      continue;
    }
    // A requirement, possibly followed by per-requirement options.
    std::size_t requirement_end = content.size();
    for (std::size_t w = 1; w < words.size(); ++w)
      if (starts_with(words[w].first, "-")) {
        requirement_end = words[w].second;
        for (std::size_t k = w; k < words.size(); ++k) {
          std::string_view option = words[k].first;
          if (!starts_with(option, "-"))
            continue;
          option = option.substr(0, option.find('='));
          bool known = false;
          for (auto candidate : kPerRequirementOptions)
            known = known || option == candidate;
          if (!known) {
            const auto [opt_line, opt_column] = line.position(words[k].second);
            (void)opt_column;
            add_diagnostic(out.facts, DiagnosticLevel::Warning, path, opt_line, "unknown-option",
                           "unknown per-requirement option '" + std::string(option) + "'");
          } else if (option == "--hash") {
            out.hashed = true;
          }
        }
        break;
      }
    const std::string_view requirement_text = content.substr(0, requirement_end);
    std::string error;
    const auto requirement = parse_requirement(requirement_text, error);
    if (!requirement) {
      add_diagnostic(out.facts, DiagnosticLevel::Warning, path, line_no, "invalid-requirement",
                     "cannot read requirement '" + std::string(trim(requirement_text)) + "': " + error);
      continue;
    }
    const auto [name_line, name_column] = line.position(requirement->name_offset);
    out.facts.facts.push_back(
        dependency_fact(*requirement, requirement_text, source, name_line, name_column));
  }
  return out;
}

} // namespace manifest

namespace {

std::optional<std::string> read_file(const fs::path &path) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream)
    return std::nullopt;
  std::ostringstream buffer;
  buffer << stream.rdbuf();
  return buffer.str();
}

fs::path normalised(const fs::path &path) {
  std::error_code error;
  const fs::path canonical = fs::weakly_canonical(path, error);
  return error ? path.lexically_normal() : canonical;
}

bool is_remote(std::string_view target) {
  return target.find("://") != std::string_view::npos;
}

// Depth-first walk of the include graph from `from`; returns the chain of
// files back to `start` when one exists.
bool reaches(const fs::path &from, const fs::path &start, std::set<fs::path> &visited,
             std::vector<std::string> &chain, int depth) {
  if (depth > 64)
    return false;
  if (from == start)
    return true;
  if (!visited.insert(from).second)
    return false;
  const auto text = read_file(from);
  if (!text)
    return false;
  const auto parse = manifest::parse_requirements_text(*text, from.string(), "requirements", 1);
  for (const auto &include : parse.includes) {
    if (is_remote(include.target))
      continue;
    const fs::path next = normalised(from.parent_path() / include.target);
    chain.push_back(next.filename().string());
    if (reaches(next, start, visited, chain, depth + 1))
      return true;
    chain.pop_back();
  }
  return false;
}

// Facts of an included file that discovery will not scan on its own (its
// name is not a requirements name), placed at the include line.
void inline_included(const fs::path &target, const manifest::RequirementsInclude &include,
                     const std::string &via, std::set<fs::path> &visited, FileFacts &into, int depth) {
  if (depth > 16 || !visited.insert(target).second)
    return;
  const auto text = read_file(target);
  if (!text)
    return;
  auto parse = manifest::parse_requirements_text(*text, target.string(),
                                                 include.constraint ? "constraints" : "requirements", 1);
  for (Fact &fact : parse.facts.facts) {
    const std::uint32_t length = fact.span.end_column - fact.span.column;
    fact.span = Span{include.line, include.column, include.line, include.column + length};
    fact.set_attribute("included_from", via);
    into.facts.push_back(std::move(fact));
  }
  for (const auto &nested : parse.includes)
    if (!is_remote(nested.target))
      inline_included(normalised(target.parent_path() / nested.target), include, via, visited, into,
                      depth + 1);
}

} // namespace

FileFacts extract_requirements(const SourceFile &file, const ExtractOptions &options) {
  const std::string name = to_lower(fs::path(file.path).filename().string());
  const std::string_view source = starts_with(name, "constraints") ? "constraints" : "requirements";
  auto parse = manifest::parse_requirements_text(file.text, file.path, source, 1);
  FileFacts facts = std::move(parse.facts);
  facts.mode = "lexical";

  fs::path self =
      !file.absolute_path.empty() ? fs::path(file.absolute_path) : fs::path(options.root) / file.path;
  self = normalised(self);
  for (const auto &include : parse.includes) {
    if (is_remote(include.target)) {
      manifest::add_diagnostic(facts, DiagnosticLevel::Note, file.path, include.line, "remote-include",
                               "not following remote include '" + include.target + "'");
      continue;
    }
    const fs::path target = normalised(self.parent_path() / include.target);
    std::error_code error;
    if (!fs::is_regular_file(target, error)) {
      manifest::add_diagnostic(facts, DiagnosticLevel::Warning, file.path, include.line, "missing-include",
                               "included file '" + include.target + "' not found");
      continue;
    }
    std::set<fs::path> visited;
    std::vector<std::string> chain{self.filename().string(), target.filename().string()};
    if (reaches(target, self, visited, chain, 0)) {
      std::string cycle;
      for (const auto &link : chain)
        cycle += (cycle.empty() ? "" : " -> ") + link;
      manifest::add_diagnostic(facts, DiagnosticLevel::Warning, file.path, include.line, "include-cycle",
                               "requirements include cycle: " + cycle);
      continue;
    }
    // Files named like requirements are scanned on their own; others (say
    // `-r deps/base.in`) only through this include, so their facts are
    // reported here.
    const fs::path relative = fs::path(file.path).parent_path() / include.target;
    if (classify_path(relative.lexically_normal().generic_string()) != FileKind::Requirements) {
      std::set<fs::path> seen{self};
      inline_included(target, include, include.target, seen, facts, 0);
    }
  }
  return facts;
}

} // namespace mpsaudit
