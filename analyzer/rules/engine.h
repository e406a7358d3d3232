// The rule engine: evaluates every rule of a catalog against one file's
// facts in a single pass, producing findings.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/fact.h"
#include "core/finding.h"
#include "core/source.h"
#include "rules/rule.h"

namespace mpsaudit {

// Matches `text` against a glob: '*' any run, '?' one character.
bool glob_match(std::string_view pattern, std::string_view text);

// True when `fact` satisfies the rule's matcher (guards not considered).
bool matches(const Matcher &matcher, const Fact &fact);

class RuleEngine {
public:
  explicit RuleEngine(const RuleCatalog &catalog);
  // The text of a 1-based line of the file being evaluated (for snippets).
  using LineLookup = std::function<std::string(std::uint32_t line)>;
  // All findings for one file.
  std::vector<Finding> evaluate(const std::string &path, FileKind kind, const FileFacts &facts,
                                const LineLookup &line_text) const;
  // Identifiers one of which must occur in a file of this kind for any rule to
  // match; an empty list means the file cannot be pre-filtered.
  const std::vector<std::string> &triggers(FileKind kind) const;

private:
  const RuleCatalog &catalog_;
  std::vector<std::vector<const Rule *>> by_kind_; // indexed by FileKind
  std::vector<std::vector<std::string>> triggers_;
};

} // namespace mpsaudit
