#include "rules/rule.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include "core/confined_file.h"
#include "core/edit_distance.h"
#include "core/fact_kinds.h"
#include "rules/toml_reader.h"

namespace mpsaudit {
namespace fs = std::filesystem;

std::string_view to_string(Effort effort) {
  switch (effort) {
  case Effort::Trivial:
    return "trivial";
  case Effort::Small:
    return "small";
  case Effort::Medium:
    return "medium";
  case Effort::Large:
    return "large";
  case Effort::Blocker:
    return "blocker";
  }
  return "trivial";
}

std::string_view to_string(Severity severity) {
  switch (severity) {
  case Severity::Info:
    return "info";
  case Severity::Warning:
    return "warning";
  case Severity::Error:
    return "error";
  }
  return "warning";
}

std::optional<Effort> effort_from_string(std::string_view text) {
  for (Effort e : {Effort::Trivial, Effort::Small, Effort::Medium, Effort::Large, Effort::Blocker})
    if (to_string(e) == text)
      return e;
  return std::nullopt;
}

std::optional<Severity> severity_from_string(std::string_view text) {
  for (Severity s : {Severity::Info, Severity::Warning, Severity::Error})
    if (to_string(s) == text)
      return s;
  return std::nullopt;
}

// In the enum's order: the name of each acceptance check in rules files.
constexpr std::string_view kAcceptanceCheckNames[] = {"", "seed", "load", "float64"};

std::string_view to_string(AcceptanceCheck check) {
  return kAcceptanceCheckNames[static_cast<std::size_t>(check)];
}

std::optional<AcceptanceCheck> acceptance_check_from_string(std::string_view text) {
  for (std::size_t i = 0; i < std::size(kAcceptanceCheckNames); ++i)
    if (kAcceptanceCheckNames[i] == text)
      return static_cast<AcceptanceCheck>(i);
  return std::nullopt;
}

bool Rule::applies_to(FileKind kind) const {
  return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

namespace {

// The shared strict reader, plus what only rules files have.
class RuleFileReader : public TomlFileReader {
public:
  RuleFileReader(std::string origin, std::vector<Diagnostic> &diagnostics)
      : TomlFileReader(std::move(origin), "invalid-rule", diagnostics) {}

  std::vector<ArgumentTest> argument_tests(const toml::table &table, std::string_view key,
                                           const std::string &where) {
    std::vector<ArgumentTest> tests;
    const toml::node *node = table.get(key);
    if (!node)
      return tests;
    const auto *array = node->as_array();
    if (!array) {
      error(node, "'" + std::string(key) + "' in " + where + " must be an array of tables");
      return tests;
    }
    for (const auto &element : *array) {
      const auto *entry = element.as_table();
      if (!entry) {
        error(&element, "'" + std::string(key) + "' entries must be tables");
        continue;
      }
      check_keys(*entry, {"keyword", "position", "patterns"}, std::string(key) + " of " + where);
      ArgumentTest test;
      test.keyword = string_at(*entry, "keyword", where, false);
      test.position =
          static_cast<int>(entry->get("position") ? entry->get("position")->value_or<int64_t>(-1) : -1);
      test.patterns = strings_at(*entry, "patterns", where);
      if (test.keyword.empty() && test.position < 0)
        error(entry, "an argument test needs a keyword or a position in " + where);
      tests.push_back(std::move(test));
    }
    return tests;
  }
};

// "rule MPS999: unknown fact kind 'cal' (did you mean 'call'?)".
std::string unknown_fact_kind_message(const std::string &kind, const std::string &where) {
  std::string message = where + ": unknown fact kind '" + kind + "'";
  const std::string_view closest = closest_fact_kind(kind);
  if (!closest.empty())
    message += " (did you mean '" + std::string(closest) + "'?)";
  return message + "; the kinds are listed in analyzer/core/fact_kinds.h";
}

Matcher read_matcher(RuleFileReader &reader, const toml::table &table, const std::string &where) {
  reader.check_keys(
      table, {"kind", "names", "not_names", "where", "argument_absent", "argument_matches", "in_forward"},
      "[rule.match] of " + where);
  Matcher matcher;
  matcher.kinds = reader.strings_at(table, "kind", where);
  if (matcher.kinds.empty())
    reader.error(&table, "[rule.match] of " + where + " needs a 'kind'");
  for (const std::string &kind : matcher.kinds)
    if (!is_known_fact_kind(kind))
      reader.error(table.get("kind"), unknown_fact_kind_message(kind, where));
  matcher.names = reader.strings_at(table, "names", where);
  matcher.not_names = reader.strings_at(table, "not_names", where);
  if (const auto *conditions = table.get_as<toml::table>("where")) {
    for (const auto &[key, node] : *conditions) {
      std::vector<std::string> patterns;
      if (auto value = node.value<std::string>())
        patterns.push_back(*value);
      else if (const auto *array = node.as_array())
        for (const auto &element : *array)
          if (auto item = element.value<std::string>())
            patterns.push_back(*item);
      if (patterns.empty())
        reader.error(&node, "'where." + std::string(key.str()) + "' must be a string or strings");
      matcher.where.emplace_back(std::string(key.str()), std::move(patterns));
    }
  }
  matcher.argument_absent = reader.argument_tests(table, "argument_absent", where);
  matcher.argument_matches = reader.argument_tests(table, "argument_matches", where);
  if (const auto *node = table.get("in_forward")) {
    if (auto value = node->value<bool>())
      matcher.in_forward = *value;
    else
      reader.error(node, "'in_forward' must be a boolean in " + where);
  }
  return matcher;
}

} // namespace

namespace {

// A top-level key within two edits of "family" or "rule" ("familly",
// "rules", "[[rulle]]"): the file meant to define rules and defines none.
void report_misspelt_rules_file(const toml::table &document, RuleFileReader &reader) {
  for (const auto &[key, node] : document)
    for (const std::string_view meant : {"family", "rule"})
      if (edit_distance(key.str(), meant) <= 2) {
        const std::string table = meant == "rule" ? "[[rule]]" : "[family]";
        reader.error(&node, "'" + std::string(key.str()) + "' at the top level: did you mean " + table +
                                "? This file defines no [family] and no [[rule]], so it adds no rule");
        return;
      }
}

} // namespace

void RuleCatalog::load_text(std::string_view toml_text, const std::string &origin,
                            std::vector<Diagnostic> &diagnostics) {
  RuleFileReader reader(origin, diagnostics);
  const std::optional<toml::table> parsed = reader.parse(toml_text);
  if (!parsed)
    return;
  const toml::table &document = *parsed;
  // Knowledge tables that rules draw on (packages.toml) share the folder;
  // a file with neither a family nor rules is such a data file, unless a
  // top-level key is a near miss of one: then it is a rules file that would
  // define nothing.
  if (!document.contains("family") && !document.contains("rule")) {
    report_misspelt_rules_file(document, reader);
    return;
  }
  reader.check_keys(document, {"family", "rule"}, "the top level");

  RuleFamily family_entry;
  if (const auto *family = document.get_as<toml::table>("family")) {
    reader.check_keys(
        *family, {"name", "prefix", "title", "description", "cuda_only", "training_scale", "package_cause"},
        "[family]");
    family_entry.name = reader.string_at(*family, "name", "[family]", true);
    family_entry.prefix = reader.string_at(*family, "prefix", "[family]", true);
    family_entry.title = reader.string_at(*family, "title", "[family]", true);
    family_entry.description = reader.string_at(*family, "description", "[family]", false);
    family_entry.cuda_only = reader.bool_at(*family, "cuda_only", "[family]", false);
    family_entry.training_scale = reader.bool_at(*family, "training_scale", "[family]", false);
    family_entry.package_cause = reader.bool_at(*family, "package_cause", "[family]", false);
    families_.push_back(family_entry);
  } else {
    reader.error(&document, "missing [family] table");
  }

  const auto *rules = document.get_as<toml::array>("rule");
  if (!rules)
    return;
  for (const auto &element : *rules) {
    const auto *table = element.as_table();
    if (!table) {
      reader.error(&element, "[[rule]] entries must be tables");
      continue;
    }
    Rule rule;
    rule.origin = origin;
    rule.family = family_entry.name;
    rule.id = reader.string_at(*table, "id", "[[rule]]", true);
    const std::string where = "rule " + (rule.id.empty() ? std::string("<no id>") : rule.id);
    reader.check_keys(*table,
                      {"id",
                       "name",
                       "summary",
                       "kinds",
                       "effort",
                       "severity",
                       "guarded",
                       "message",
                       "why",
                       "replacement",
                       "docs",
                       "sources",
                       "match",
                       "examples",
                       "examples_waived",
                       "superseded_by",
                       "fallback",
                       "safety",
                       "cuda_only",
                       "training_scale",
                       "package_cause",
                       "acceptance"},
                      where);
    if (!family_entry.prefix.empty() && rule.id.rfind(family_entry.prefix, 0) != 0)
      reader.error(table, where + " does not start with its family prefix " + family_entry.prefix);
    rule.name = reader.string_at(*table, "name", where, true);
    rule.summary = reader.string_at(*table, "summary", where, true);
    rule.message = reader.string_at(*table, "message", where, true);
    rule.why = reader.string_at(*table, "why", where, true);
    rule.replacement = reader.string_at(*table, "replacement", where, true);
    rule.docs = reader.string_at(*table, "docs", where, false);
    if (rule.docs.empty())
      rule.docs = "docs/rules.md#" + to_lower_id(rule.id);
    rule.sources = reader.strings_at(*table, "sources", where);
    rule.superseded_by = reader.strings_at(*table, "superseded_by", where);
    rule.fallback = reader.bool_at(*table, "fallback", where, false);
    rule.safety = reader.bool_at(*table, "safety", where, false);
    rule.cuda_only = reader.bool_at(*table, "cuda_only", where, family_entry.cuda_only);
    rule.training_scale = reader.bool_at(*table, "training_scale", where, family_entry.training_scale);
    rule.package_cause = reader.bool_at(*table, "package_cause", where, family_entry.package_cause);
    if (auto check = acceptance_check_from_string(reader.string_at(*table, "acceptance", where, false)))
      rule.acceptance = *check;
    else
      reader.error(table->get("acceptance"), where + ": acceptance must be seed, load or float64");
    for (const auto &kind_name : reader.strings_at(*table, "kinds", where)) {
      const FileKind kind = file_kind_from_string(kind_name);
      if (kind == FileKind::Unknown)
        reader.error(table, where + ": unknown file kind '" + kind_name + "'");
      else
        rule.kinds.push_back(kind);
    }
    if (rule.kinds.empty())
      reader.error(table, where + " needs at least one entry in 'kinds'");
    if (auto effort = effort_from_string(reader.string_at(*table, "effort", where, true)))
      rule.effort = *effort;
    else
      reader.error(table->get("effort"), where + ": effort must be trivial, small, medium, large or blocker");
    if (auto severity = severity_from_string(reader.string_at(*table, "severity", where, true)))
      rule.severity = *severity;
    else
      reader.error(table->get("severity"), where + ": severity must be info, warning or error");
    const std::string guarded = reader.string_at(*table, "guarded", where, false);
    if (guarded.empty() || guarded == "downgrade")
      rule.guarded = GuardPolicy::Downgrade;
    else if (guarded == "skip")
      rule.guarded = GuardPolicy::Skip;
    else if (guarded == "ignore")
      rule.guarded = GuardPolicy::Ignore;
    else
      reader.error(table->get("guarded"), where + ": guarded must be downgrade, skip or ignore");

    if (const auto *match = table->get_as<toml::table>("match"))
      rule.match = read_matcher(reader, *match, where);
    else
      reader.error(table, where + " needs a [rule.match] table");

    rule.examples_waived = reader.string_at(*table, "examples_waived", where, false);
    if (const auto *examples = table->get_as<toml::array>("examples")) {
      for (const auto &example_node : *examples) {
        const auto *example = example_node.as_table();
        if (!example) {
          reader.error(&example_node, where + ": [[rule.examples]] entries must be tables");
          continue;
        }
        reader.check_keys(*example, {"flag", "pass", "kind", "also"}, "an example of " + where);
        RuleExample entry;
        entry.kind = rule.kinds.empty() ? FileKind::Python : rule.kinds.front();
        const std::string kind_name = reader.string_at(*example, "kind", where, false);
        if (!kind_name.empty())
          entry.kind = file_kind_from_string(kind_name);
        const bool has_flag = example->contains("flag");
        const bool has_pass = example->contains("pass");
        if (has_flag == has_pass) {
          reader.error(example, where + ": an example has exactly one of 'flag' or 'pass'");
          continue;
        }
        entry.must_flag = has_flag;
        entry.code = reader.string_at(*example, has_flag ? "flag" : "pass", where, true);
        entry.also = reader.strings_at(*example, "also", where);
        rule.examples.push_back(std::move(entry));
      }
    }
    if (rule.id.empty())
      continue;
    if (by_id_.count(rule.id)) {
      reader.error(table, "duplicate rule ID " + rule.id);
      continue;
    }
    by_id_.emplace(rule.id, rules_.size());
    rules_.push_back(std::move(rule));
  }
}

std::string to_lower_id(std::string_view id) {
  std::string out(id);
  for (char &c : out)
    if (c >= 'A' && c <= 'Z')
      c = static_cast<char>(c + 32);
  return out;
}

std::vector<fs::path> RuleCatalog::files_in(const std::string &directory, std::error_code &error) {
  std::vector<fs::path> files;
  for (fs::directory_iterator it(directory, error), end; !error && it != end; it.increment(error))
    if (it->path().extension() == ".toml")
      files.push_back(it->path());
  std::sort(files.begin(), files.end());
  return files;
}

RuleCatalog RuleCatalog::load_directory(const std::string &directory, std::vector<Diagnostic> &diagnostics) {
  RuleCatalog catalog;
  std::error_code error;
  const std::vector<fs::path> files = files_in(directory, error);
  if (error) {
    diagnostics.push_back({DiagnosticLevel::Error, directory, 0, "rules-unreadable",
                           "cannot read the rules directory: " + error.message()});
    return catalog;
  }
  for (const auto &file : files) {
    // An unreadable file loads as an empty one, as it always has.
    catalog.load_text(read_whole_file(file).value_or(""), file.string(), diagnostics);
  }
  catalog.reindex();
  return catalog;
}

RuleCatalog RuleCatalog::from_parts(std::vector<Rule> rules, std::vector<RuleFamily> families) {
  RuleCatalog catalog;
  catalog.rules_ = std::move(rules);
  catalog.families_ = std::move(families);
  catalog.reindex();
  return catalog;
}

void RuleCatalog::reindex() {
  // A decoded catalog is already in order, and stable_sort would still move
  // every rule through its buffer.
  const auto by_id = [](const Rule &a, const Rule &b) { return a.id < b.id; };
  if (!std::is_sorted(rules_.begin(), rules_.end(), by_id))
    std::stable_sort(rules_.begin(), rules_.end(), by_id);
  by_id_.clear();
  for (std::size_t i = 0; i < rules_.size(); ++i)
    by_id_.emplace(rules_[i].id, i);
}

const Rule *RuleCatalog::find(std::string_view id) const {
  const auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : &rules_[it->second];
}

namespace {

// The running binary's own path. argv[0] is a bare name when the binary was
// found through PATH (pre-commit hooks, an installed `mpsaudit`), so ask the
// system (Linux), then search PATH (macOS), then take argv[0] as it is.
fs::path running_executable(std::string_view argv0) {
  if (argv0.find('/') != std::string_view::npos)
    return fs::path(argv0);
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (!error && !self.empty())
    return self;
  if (!argv0.empty()) {
    if (const char *path = std::getenv("PATH")) {
      std::string_view rest(path);
      while (!rest.empty()) {
        const std::size_t colon = rest.find(':');
        const std::string_view directory = rest.substr(0, colon);
        const fs::path candidate =
            fs::path(directory.empty() ? "." : std::string(directory)) / std::string(argv0);
        if (fs::is_regular_file(candidate, error))
          return candidate;
        if (colon == std::string_view::npos)
          break;
        rest.remove_prefix(colon + 1);
      }
    }
  }
  return fs::path(argv0);
}

} // namespace

std::string locate_data_directory(std::string_view executable_path, std::string_view leaf) {
  std::error_code error;
  const fs::path executable = fs::weakly_canonical(running_executable(executable_path), error);
  const fs::path bin_dir = executable.parent_path();
  // Installed layout (prefix/bin/mpsaudit + prefix/share/mpsaudit/<leaf>), a
  // relocated copy that keeps that layout, then a data folder beside the binary.
  for (const fs::path &candidate :
       {bin_dir.parent_path() / "share" / "mpsaudit" / std::string(leaf), bin_dir / std::string(leaf)}) {
    if (fs::is_directory(candidate, error))
      return candidate.string();
  }
  return {};
}

} // namespace mpsaudit
