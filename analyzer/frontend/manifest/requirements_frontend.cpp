// requirements*.txt and constraints files, the way pip reads them: line
// continuations, comments, global and per-requirement options, `-r`/`-c`
// includes (followed on disk within the scanned tree, cycles detected),
// editable and VCS lines.
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <vector>

#include "core/confined_file.h"
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

bool is_remote(std::string_view target) {
  return target.find("://") != std::string_view::npos;
}

// How much of an include graph is read for one requirements file: at most
// this many files and --max-file-size bytes in all (as if the graph were one
// file), and facts inlined from at most this depth.
constexpr std::size_t kMaxIncludedFiles = 256;
constexpr int kMaxInlineDepth = 32;

// The include graph of one requirements file, read only within the scanned
// tree (core/confined_file.h): `-r /dev/zero`, `-r /dev/stdin`, a FIFO,
// `-r ../../etc/passwd` or a symlink out of the tree is refused before it is
// opened. Each file is read at most once.
class IncludeReader {
public:
  struct Opened {
    ConfinedStatus status = ConfinedStatus::Missing;
    bool over_limit = false;                  // readable, but past the graph's limits
    fs::path real_path;                       // resolved, when known
    const RequirementsParse *parse = nullptr; // set when read
  };

  explicit IncludeReader(const ExtractOptions &options)
      : roots_(confinement_roots(options.roots.empty() ? std::vector<std::string>{options.root}
                                                       : options.roots)),
        max_bytes_(options.max_file_bytes) {}

  // Resolves `target`, named by a file in `directory` (a real path), and
  // reads it the first time it is asked for.
  Opened open(const fs::path &directory, const std::string &target) {
    Opened opened;
    const ConfinedFile resolved = resolve_confined_path(directory, target, roots_);
    opened.status = resolved.status;
    opened.real_path = resolved.real_path;
    if (resolved.status != ConfinedStatus::Ok)
      return opened;
    if (const auto known = parsed_.find(resolved.real_path); known != parsed_.end()) {
      opened.parse = &known->second;
      return opened;
    }
    if (parsed_.size() >= kMaxIncludedFiles) {
      opened.over_limit = true;
      return opened;
    }
    const ConfinedFile file = read_regular_file(resolved.real_path, max_bytes_);
    opened.status = file.status;
    if (file.status != ConfinedStatus::Ok)
      return opened;
    if (bytes_read_ + file.size > max_bytes_) {
      opened.over_limit = true;
      return opened;
    }
    bytes_read_ += file.size;
    const std::string name = resolved.real_path.string();
    auto parse = manifest::parse_requirements_text(file.text, name, "requirements", 1);
    opened.parse = &parsed_.emplace(resolved.real_path, std::move(parse)).first->second;
    return opened;
  }

  std::uint64_t max_bytes() const { return max_bytes_; }

private:
  std::vector<fs::path> roots_;
  std::uint64_t max_bytes_;
  std::uint64_t bytes_read_ = 0;
  std::map<fs::path, RequirementsParse> parsed_;
};

// Reports an include that was not read at `path`:`line` (nothing when it
// was); `context` ends the message.
void diagnose_unread(const IncludeReader &reader, const IncludeReader::Opened &opened,
                     const std::string &target, const std::string &path, std::uint32_t line,
                     const std::string &context, FileFacts &facts) {
  const std::string quoted = "included file '" + target + "'";
  if (opened.over_limit) {
    manifest::add_diagnostic(
        facts, DiagnosticLevel::Warning, path, line, "include-limit",
        quoted + " not followed: one file's includes are read up to " + std::to_string(kMaxIncludedFiles) +
            " files and " + std::to_string(reader.max_bytes()) + " bytes in all (--max-file-size)" + context);
    return;
  }
  switch (opened.status) {
  case ConfinedStatus::Ok:
    return;
  case ConfinedStatus::Missing:
    manifest::add_diagnostic(facts, DiagnosticLevel::Warning, path, line, "missing-include",
                             quoted + " not found" + context);
    return;
  case ConfinedStatus::OutsideRoot:
    manifest::add_diagnostic(facts, DiagnosticLevel::Error, path, line, "include-outside-root",
                             quoted + " is outside the scanned tree (" + opened.real_path.string() +
                                 "); not read" + context);
    return;
  case ConfinedStatus::NotRegular:
    manifest::add_diagnostic(
        facts, DiagnosticLevel::Error, path, line, "include-not-regular",
        quoted + " is not a regular file (a directory, FIFO, socket or device); not read" + context);
    return;
  case ConfinedStatus::TooLarge:
    manifest::add_diagnostic(facts, DiagnosticLevel::Warning, path, line, "include-too-large",
                             quoted + " is larger than " + std::to_string(reader.max_bytes()) +
                                 " bytes (--max-file-size); not read" + context);
    return;
  case ConfinedStatus::Unreadable:
    manifest::add_diagnostic(facts, DiagnosticLevel::Error, path, line, "unreadable-include",
                             quoted + " cannot be read" + context);
    return;
  }
}

// The file names of a cycle `self -> start -> ... -> self` when the includes
// starting at `start` lead back to `self`, else empty. Breadth first, so the
// chain is the shortest. Includes that cannot be read are passed over here:
// the file that names them reports them when it is scanned or inlined.
std::vector<std::string> cycle_back_to(IncludeReader &reader, const fs::path &self, const fs::path &start,
                                       const RequirementsParse &start_parse) {
  std::map<fs::path, fs::path> came_from{{start, fs::path()}};
  std::vector<std::pair<fs::path, const RequirementsParse *>> queue{{start, &start_parse}};
  for (std::size_t next = 0; next < queue.size(); ++next) {
    const fs::path node = queue[next].first;
    const RequirementsParse &parse = *queue[next].second;
    for (const auto &include : parse.includes) {
      if (is_remote(include.target))
        continue;
      const IncludeReader::Opened opened = reader.open(node.parent_path(), include.target);
      if (opened.status == ConfinedStatus::Ok && opened.real_path == self) {
        std::vector<std::string> chain;
        for (fs::path link = node; !link.empty(); link = came_from[link])
          chain.push_back(link.filename().string());
        chain.push_back(self.filename().string());
        std::reverse(chain.begin(), chain.end());
        chain.push_back(self.filename().string());
        return chain;
      }
      if (opened.parse && came_from.emplace(opened.real_path, node).second)
        queue.emplace_back(opened.real_path, opened.parse);
    }
  }
  return {};
}

// What inline_included needs besides the file it is at.
struct InlineContext {
  IncludeReader &reader;
  const manifest::RequirementsInclude &include; // the including file's line, where facts are placed
  const std::string &via;                       // its target, the facts' `included_from`
  const std::string &including_path;            // the including file as the report names it
  const fs::path &including_directory;          // and its directory's real path
  std::set<fs::path> &visited;
  FileFacts &into;
};

// The report's name for a file reached through includes: relative to the
// file that started the chain, as the report names that one.
std::string report_path_of(const fs::path &real_path, const InlineContext &context) {
  return (fs::path(context.including_path).parent_path() /
          real_path.lexically_relative(context.including_directory))
      .lexically_normal()
      .generic_string();
}

// Whether discovery scans the file at `real_path` as requirements on its own
// (its name is a requirements name): then its facts and its includes are
// reported there, once, and not again through the files that include it.
bool scanned_on_its_own(const fs::path &real_path, const InlineContext &context) {
  return classify_path(report_path_of(real_path, context)) == FileKind::Requirements;
}

// Facts of an included file that discovery will not scan on its own (its
// name is not a requirements name), placed at the include line; its own
// includes are followed too (up to files scanned on their own), and those
// that cannot be read are reported at the line that names them.
void inline_included(const fs::path &target, const RequirementsParse &parse, const InlineContext &context,
                     int depth) {
  if (!context.visited.insert(target).second)
    return;
  for (const Fact &included : parse.facts.facts) {
    Fact fact = included;
    const std::uint32_t length = fact.span.end_column - fact.span.column;
    fact.span = Span{context.include.line, context.include.column, context.include.line,
                     context.include.column + length};
    if (fact.attribute("source")) // files are read once, as requirements; this include may be -c
      fact.set_attribute("source", context.include.constraint ? "constraints" : "requirements");
    fact.set_attribute("included_from", context.via);
    context.into.facts.push_back(std::move(fact));
  }
  const std::string here = report_path_of(target, context);
  const std::string reached = " (reached through -r " + context.via + ")";
  for (const auto &nested : parse.includes) {
    if (is_remote(nested.target))
      continue;
    if (depth + 1 > kMaxInlineDepth) {
      manifest::add_diagnostic(context.into, DiagnosticLevel::Warning, here, nested.line, "include-limit",
                               "included file '" + nested.target + "' not followed: includes are followed " +
                                   std::to_string(kMaxInlineDepth) + " levels deep" + reached);
      return;
    }
    const IncludeReader::Opened opened = context.reader.open(target.parent_path(), nested.target);
    if (!opened.parse) {
      diagnose_unread(context.reader, opened, nested.target, here, nested.line, reached, context.into);
      continue;
    }
    if (!scanned_on_its_own(opened.real_path, context))
      inline_included(opened.real_path, *opened.parse, context, depth + 1);
  }
}

} // namespace

FileFacts extract_requirements(const SourceFile &file, const ExtractOptions &options) {
  const std::string name = to_lower(fs::path(file.path).filename().string());
  const std::string_view source = starts_with(name, "constraints") ? "constraints" : "requirements";
  auto parse = manifest::parse_requirements_text(file.text, file.path, source, 1);
  FileFacts facts = std::move(parse.facts);
  facts.mode = "lexical";
  if (parse.includes.empty())
    return facts;

  fs::path self =
      !file.absolute_path.empty() ? fs::path(file.absolute_path) : fs::path(options.root) / file.path;
  std::error_code error;
  self = fs::weakly_canonical(fs::absolute(self, error), error);
  const fs::path directory = self.parent_path();
  IncludeReader reader(options);
  for (const auto &include : parse.includes) {
    if (is_remote(include.target)) {
      manifest::add_diagnostic(facts, DiagnosticLevel::Note, file.path, include.line, "remote-include",
                               "not following remote include '" + include.target + "'");
      continue;
    }
    const IncludeReader::Opened opened = reader.open(directory, include.target);
    if (opened.status == ConfinedStatus::Ok && opened.real_path == self) {
      manifest::add_diagnostic(facts, DiagnosticLevel::Warning, file.path, include.line, "include-cycle",
                               "requirements include cycle: " + self.filename().string() + " -> " +
                                   self.filename().string());
      continue;
    }
    if (!opened.parse) {
      diagnose_unread(reader, opened, include.target, file.path, include.line, "", facts);
      continue;
    }
    // A cycle is worth a warning, but the files in it are still read: the
    // cycle must not hide what they pin or the includes they get refused.
    const std::vector<std::string> cycle = cycle_back_to(reader, self, opened.real_path, *opened.parse);
    if (!cycle.empty()) {
      std::string chain;
      for (const auto &link : cycle)
        chain += (chain.empty() ? "" : " -> ") + link;
      manifest::add_diagnostic(facts, DiagnosticLevel::Warning, file.path, include.line, "include-cycle",
                               "requirements include cycle: " + chain);
    }
    // Files named like requirements are scanned on their own; others (say
    // `-r deps/base.in`) only through this include, so their facts are
    // reported here. `self` is visited already: a cycle ends where it began.
    std::set<fs::path> visited{self};
    const InlineContext context{reader, include, include.target, file.path, directory, visited, facts};
    if (!scanned_on_its_own(opened.real_path, context))
      inline_included(opened.real_path, *opened.parse, context, 0);
  }
  return facts;
}

} // namespace mpsaudit
