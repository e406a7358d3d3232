// The rule engine: meets each of one file's facts with the rules that can
// match it (indexed by file kind, fact kind and name), producing findings.
// A fallback rule reports a fact only when no other rule matches it.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/fact.h"
#include "core/finding.h"
#include "core/source.h"
#include "core/text.h" // glob_match
#include "rules/rule.h"

namespace mpsaudit {

// True when `fact` satisfies the rule's matcher (guards not considered).
bool matches(const Matcher &matcher, const Fact &fact);

// Drops the findings of one file that repeat another: the same rule at the
// same position (two facts of one expression), and a rule's finding on a line
// where a rule it is superseded_by (a more specific rule reporting the same
// fact) also has one. Keeps the order of the findings it keeps.
void drop_redundant_findings(std::vector<Finding> &findings);

class RuleEngine {
public:
  explicit RuleEngine(const RuleCatalog &catalog);
  // The text of a 1-based line of the file being evaluated (for snippets).
  using LineLookup = std::function<std::string(std::uint32_t line)>;
  // A place in the tree ("pkg/ops.py:3") as a message shows it.
  using LocationText = std::function<std::string(const std::string &location)>;
  // All findings for one file. A message's `{..._at}` placeholders are
  // places in the tree, shown through `shown_location` (path_for_display) so
  // that they open from the current directory; only the project passes make
  // such facts, and their findings are never cached.
  std::vector<Finding> evaluate(const std::string &path, FileKind kind, const FileFacts &facts,
                                const LineLookup &line_text, const LocationText &shown_location = {}) const;

private:
  // The rules that can match facts of one fact kind in one file kind: those
  // naming the fact's exact name, looked up by hash, and those with globs,
  // by the first character their name patterns demand (a glob such as
  // `torch.cuda.*` can match only names that start with `t`), or, when a
  // pattern starts with a wildcard or there is none, for every name. Each
  // first character's list also holds the rules for every name.
  struct FactKindIndex {
    std::unordered_map<std::string, std::vector<const Rule *>> by_exact_name;
    std::unordered_map<char, std::vector<const Rule *>> with_patterns_by_first_char;
    std::vector<const Rule *> with_patterns_for_any_name;
  };
  static void add_pattern_rule(FactKindIndex &entry, const Rule &rule);
  // Candidates for `fact`, in catalog (rule ID) order.
  static void candidates(const FactKindIndex &index, const Fact &fact, std::vector<const Rule *> &out);

  const RuleCatalog &catalog_;
  // Indexed by FileKind, then by fact kind.
  std::vector<std::unordered_map<std::string, FactKindIndex>> index_;
};

} // namespace mpsaudit
