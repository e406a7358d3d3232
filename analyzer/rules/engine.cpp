#include "rules/engine.h"

#include <algorithm>
#include <iterator>
#include <set>
#include <tuple>

#include "core/text.h"

namespace mpsaudit {

namespace {

bool any_glob(const std::vector<std::string> &patterns, std::string_view text) {
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::string &pattern) { return glob_match(pattern, text); });
}

const Argument *find_argument(const Fact &fact, const ArgumentTest &test) {
  if (!test.keyword.empty())
    if (const Argument *argument = fact.keyword_argument(test.keyword))
      return argument;
  if (test.position >= 0)
    return fact.positional_argument(static_cast<std::size_t>(test.position));
  return nullptr;
}

// An argument matches a pattern through its resolved name, its string value
// or, failing those, its source text.
bool argument_matches(const Argument &argument, const std::vector<std::string> &patterns) {
  if (patterns.empty())
    return true;
  if (!argument.canonical.empty() && any_glob(patterns, argument.canonical))
    return true;
  if (argument.is_string && any_glob(patterns, argument.value))
    return true;
  return any_glob(patterns, trim(argument.text));
}

// A placeholder whose attribute ends in "_at" is a place in the tree
// ("pkg/ops.py:3", from the root): it is shown through `shown_location`, so
// that it opens from the current directory as the finding's own path does.
bool names_a_location(std::string_view key) {
  return key.size() > 3 && ends_with(key, "_at");
}

std::string render_message(const Rule &rule, const Fact &fact,
                           const RuleEngine::LocationText &shown_location) {
  std::string out;
  const std::string_view message = rule.message;
  for (std::size_t i = 0; i < message.size(); ++i) {
    if (message[i] == '{') {
      const auto close = message.find('}', i);
      if (close != std::string_view::npos) {
        const std::string_view key = message.substr(i + 1, close - i - 1);
        if (key == "name") {
          out += fact.name;
          i = close;
          continue;
        }
        if (const std::string *value = fact.attribute(key)) {
          out += names_a_location(key) && shown_location && !value->empty() ? shown_location(*value) : *value;
          i = close;
          continue;
        }
      }
    }
    out.push_back(message[i]);
  }
  return out;
}

} // namespace

void drop_redundant_findings(std::vector<Finding> &findings) {
  // Where each rule reports: (rule, cell, line).
  std::set<std::tuple<std::string_view, int, std::uint32_t>> reported;
  for (const Finding &finding : findings)
    reported.emplace(finding.rule_id, finding.cell, finding.span.line);
  const auto superseded = [&](const Finding &finding) {
    return finding.rule &&
           std::any_of(finding.rule->superseded_by.begin(), finding.rule->superseded_by.end(),
                       [&](const std::string &specific) {
                         return reported.count({specific, finding.cell, finding.span.line}) > 0;
                       });
  };
  std::set<std::tuple<std::string_view, int, std::uint32_t, std::uint32_t, std::string_view>> seen;
  const auto repeated = [&](const Finding &finding) {
    return !seen.emplace(finding.rule_id, finding.cell, finding.span.line, finding.span.column, finding.name)
                .second;
  };
  // Decide first, then move: the sets look at the findings' own strings.
  std::vector<bool> keep;
  keep.reserve(findings.size());
  for (const Finding &finding : findings)
    keep.push_back(!superseded(finding) && !repeated(finding));
  std::vector<Finding> kept;
  kept.reserve(findings.size());
  for (std::size_t i = 0; i < findings.size(); ++i)
    if (keep[i])
      kept.push_back(std::move(findings[i]));
  findings = std::move(kept);
}

bool matches(const Matcher &matcher, const Fact &fact) {
  if (std::find(matcher.kinds.begin(), matcher.kinds.end(), fact.kind) == matcher.kinds.end())
    return false;
  if (!matcher.names.empty() && !any_glob(matcher.names, fact.name))
    return false;
  if (!matcher.not_names.empty() && any_glob(matcher.not_names, fact.name))
    return false;
  if (matcher.in_forward && *matcher.in_forward != fact.in_forward)
    return false;
  for (const auto &[key, patterns] : matcher.where) {
    const std::string *value = fact.attribute(key);
    if (!value || !any_glob(patterns, *value))
      return false;
  }
  for (const auto &test : matcher.argument_absent) {
    const Argument *argument = find_argument(fact, test);
    if (argument && argument_matches(*argument, test.patterns))
      return false;
  }
  for (const auto &test : matcher.argument_matches) {
    const Argument *argument = find_argument(fact, test);
    if (!argument || !argument_matches(*argument, test.patterns))
      return false;
  }
  return true;
}

namespace {

// A finding about an argument written away from the call (a `**kwargs`
// dict entry) points at the argument; any other at the fact.
Span finding_span(const Matcher &matcher, const Fact &fact) {
  for (const auto &test : matcher.argument_matches)
    if (const Argument *argument = find_argument(fact, test); argument && argument->written_at.line != 0)
      return argument->written_at;
  return fact.span;
}

bool has_glob(const std::string &pattern) {
  return pattern.find_first_of("*?") != std::string::npos;
}

} // namespace

RuleEngine::RuleEngine(const RuleCatalog &catalog)
    : catalog_(catalog), index_(static_cast<std::size_t>(FileKind::Unknown) + 1) {
  for (const Rule &rule : catalog_.rules()) {
    const bool exact_only =
        !rule.match.names.empty() && std::none_of(rule.match.names.begin(), rule.match.names.end(), has_glob);
    for (FileKind kind : rule.kinds) {
      for (const auto &fact_kind : rule.match.kinds) {
        FactKindIndex &entry = index_[static_cast<std::size_t>(kind)][fact_kind];
        if (exact_only)
          for (const auto &name : rule.match.names)
            entry.by_exact_name[name].push_back(&rule);
        else
          add_pattern_rule(entry, rule);
      }
    }
  }
  // Each first character's list takes in the rules for any name once, here,
  // so that a fact's candidates are one merge with its exact-name rules.
  const auto catalog_order = [](const Rule *a, const Rule *b) { return a < b; };
  for (auto &by_fact_kind : index_)
    for (auto &[fact_kind, entry] : by_fact_kind)
      for (auto &[first, rules] : entry.with_patterns_by_first_char) {
        std::vector<const Rule *> merged;
        std::merge(rules.begin(), rules.end(), entry.with_patterns_for_any_name.begin(),
                   entry.with_patterns_for_any_name.end(), std::back_inserter(merged), catalog_order);
        rules = std::move(merged);
      }
}

void RuleEngine::add_pattern_rule(FactKindIndex &entry, const Rule &rule) {
  const auto starts_with_wildcard = [](const std::string &pattern) {
    return pattern.empty() || pattern.front() == '*' || pattern.front() == '?';
  };
  const std::vector<std::string> &names = rule.match.names;
  if (names.empty() || std::any_of(names.begin(), names.end(), starts_with_wildcard)) {
    entry.with_patterns_for_any_name.push_back(&rule);
    return;
  }
  std::set<char> first_chars;
  for (const std::string &pattern : names)
    first_chars.insert(pattern.front());
  for (char first : first_chars)
    entry.with_patterns_by_first_char[first].push_back(&rule);
}

void RuleEngine::candidates(const FactKindIndex &index, const Fact &fact, std::vector<const Rule *> &out) {
  // Both lists are in catalog order, and no rule is in both: merging keeps
  // findings in that order.
  static const std::vector<const Rule *> none;
  const auto exact = index.by_exact_name.find(fact.name);
  const std::vector<const Rule *> &by_name = exact == index.by_exact_name.end() ? none : exact->second;
  const auto first = fact.name.empty() ? index.with_patterns_by_first_char.end()
                                       : index.with_patterns_by_first_char.find(fact.name.front());
  const std::vector<const Rule *> &patterns =
      first == index.with_patterns_by_first_char.end() ? index.with_patterns_for_any_name : first->second;
  out.clear();
  std::merge(by_name.begin(), by_name.end(), patterns.begin(), patterns.end(), std::back_inserter(out),
             [](const Rule *a, const Rule *b) { return a < b; });
}

std::vector<Finding> RuleEngine::evaluate(const std::string &path, FileKind kind, const FileFacts &facts,
                                          const LineLookup &line_text,
                                          const LocationText &shown_location) const {
  std::vector<Finding> findings;
  const auto &by_fact_kind = index_[static_cast<std::size_t>(kind)];
  if (by_fact_kind.empty())
    return findings;
  std::vector<const Rule *> rules;
  for (const Fact &fact : facts.facts) {
    const auto index = by_fact_kind.find(fact.kind);
    if (index == by_fact_kind.end())
      continue;
    candidates(index->second, fact, rules);
    rules.erase(std::remove_if(rules.begin(), rules.end(),
                               [&](const Rule *rule) { return !matches(rule->match, fact); }),
                rules.end());
    // A fallback rule speaks only for facts that no specific rule claims.
    const bool claimed =
        std::any_of(rules.begin(), rules.end(), [](const Rule *rule) { return !rule->fallback; });
    for (const Rule *rule : rules) {
      if (rule->fallback && claimed)
        continue;
      const bool guarded = fact.guard != Guard::None;
      if (guarded && rule->guarded == GuardPolicy::Skip)
        continue;
      Finding finding;
      finding.rule = rule;
      finding.rule_id = rule->id;
      finding.path = path;
      finding.file_kind = kind;
      finding.span = finding_span(rule->match, fact);
      finding.cell = fact.cell;
      finding.cell_line = fact.cell_line;
      finding.name = fact.name;
      finding.message = render_message(*rule, fact, shown_location);
      // Notebook facts carry their cell's line; others take the file's.
      const std::string *own_snippet = fact.attribute("snippet");
      finding.snippet = sanitize_utf8(own_snippet ? *own_snippet : line_text(fact.span.line));
      finding.guard = fact.guard;
      finding.severity = static_cast<int>(
          guarded && rule->guarded == GuardPolicy::Downgrade ? Severity::Info : rule->severity);
      finding.scope = fact.scope;
      finding.in_forward = fact.in_forward;
      findings.push_back(std::move(finding));
    }
  }
  return findings;
}

} // namespace mpsaudit
