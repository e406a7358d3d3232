// The Python prefilter: the words a Python file must contain for any loaded
// rule, project pass or the assessment to read anything of it, derived from
// what they match, as ripgrep derives literals from a regex. A file with none
// of them is parsed only for its syntax diagnostics (no facts): its full
// extraction could not change a finding, a pass or the assessment.
//
// Words come from each rule that applies to Python files: for a fact named
// after the source (call, import, attribute, ...), the longest literal run of
// each name glob ("torch.cuda.synchronize" -> "synchronize"), or a keyword
// argument the rule requires; for the Python front end's other kinds, the
// words it declares next to them (python_kind_triggers). Passes declare
// theirs (ProjectPass::python_triggers), the assessment its own. A rule that
// can match without any literal (a name glob of wildcards only, a kind the
// front end does not declare) turns the prefilter off.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/literal_filter.h"
#include "core/project_pass.h"
#include "rules/rule.h"

namespace mpsaudit {

// The filter for `rules`, `passes` and the retained facts' own words, or
// nullopt with the reason in `off_because` when some rule needs every file.
std::optional<LiteralFilter> python_prefilter(const std::vector<Rule> &rules,
                                              const std::vector<ProjectPass> &passes,
                                              const std::vector<std::string> &retained_words,
                                              std::string &off_because);

// The longest run of literal characters of a name glob, split at wildcards
// and dots: "torch.cuda.synchronize" -> "synchronize", "torch.cuda.*" -> "torch".
std::string longest_literal(std::string_view glob);

} // namespace mpsaudit
