// Helpers shared by unit tests: the repository's own rule catalog, and
// running one in-memory file through its front end and the rule engine.
#pragma once

#include <string>
#include <vector>

#include "core/finding.h"
#include "frontend/frontend.h"
#include "rules/engine.h"
#include "rules/rule.h"

namespace mpsaudit::testing {

// rules/*.toml of this source tree, loaded once; fails the test on errors.
const RuleCatalog &repository_catalog();

// Facts of `text` as a file of `kind` named `path`.
FileFacts extract(FileKind kind, const std::string &text, const std::string &path = "example");

// Findings of `text` as a file of `kind`, under the repository's rules, with
// inline suppressions applied as the scan applies them.
std::vector<Finding> findings_for(FileKind kind, const std::string &text, const std::string &path = "example");

// The IDs of `findings`, in order.
std::vector<std::string> rule_ids(const std::vector<Finding> &findings);

} // namespace mpsaudit::testing
