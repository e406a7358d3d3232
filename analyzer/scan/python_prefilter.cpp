#include "scan/python_prefilter.h"

#include <algorithm>

#include "frontend/python/python_frontend.h"

namespace mpsaudit {
namespace {

bool applies_to_python(const Rule &rule) {
  return rule.applies_to(FileKind::Python);
}

// A keyword argument the rule requires (no position stands in for it): the
// one word every match contains. Empty when there is none.
std::string required_keyword(const Matcher &match) {
  for (const ArgumentTest &test : match.argument_matches)
    if (!test.keyword.empty() && test.position < 0)
      return test.keyword;
  return {};
}

// Adds the words one rule needs for facts of `kind`; false (with the reason)
// when a fact of that kind can match the rule with no word in the file.
bool add_rule_words(const Rule &rule, const std::string &kind, std::vector<std::string> &words,
                    std::string &off_because) {
  const std::optional<PythonKindTriggers> triggers = python_kind_triggers(kind);
  if (!triggers)
    return true; // the Python front end never emits it; a pass that writes it declares its words
  if (const std::string keyword = required_keyword(rule.match); !keyword.empty()) {
    words.push_back(keyword);
    return true;
  }
  if (!triggers->by_name) {
    words.insert(words.end(), triggers->words.begin(), triggers->words.end());
    return true;
  }
  if (rule.match.names.empty()) {
    off_because = rule.id + " matches every " + kind + " fact";
    return false;
  }
  for (const std::string &name : rule.match.names) {
    std::string literal = longest_literal(name);
    if (literal.empty()) {
      off_because = rule.id + " matches " + kind + " facts named `" + name + "`, which has no literal";
      return false;
    }
    words.push_back(std::move(literal));
  }
  return true;
}

} // namespace

std::string longest_literal(std::string_view glob) {
  std::string_view best;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= glob.size(); ++i) {
    if (i < glob.size() && glob[i] != '*' && glob[i] != '?' && glob[i] != '.')
      continue;
    if (i - start > best.size())
      best = glob.substr(start, i - start);
    start = i + 1;
  }
  return std::string(best);
}

std::optional<LiteralFilter> python_prefilter(const std::vector<Rule> &rules,
                                              const std::vector<ProjectPass> &passes,
                                              const std::vector<std::string> &retained_words,
                                              std::string &off_because) {
  std::vector<std::string> words = retained_words;
  for (const Rule &rule : rules) {
    if (!applies_to_python(rule))
      continue;
    // No kinds: the rule matches facts of every kind, so its names decide.
    const std::vector<std::string> kinds =
        rule.match.kinds.empty() ? std::vector<std::string>{"call"} : rule.match.kinds;
    for (const std::string &kind : kinds)
      if (!add_rule_words(rule, kind, words, off_because))
        return std::nullopt;
  }
  for (const ProjectPass &pass : passes)
    words.insert(words.end(), pass.python_triggers.begin(), pass.python_triggers.end());
  return LiteralFilter(words);
}

} // namespace mpsaudit
