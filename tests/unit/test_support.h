// Helpers shared by unit tests: the repository's own rule catalog, and
// running one in-memory file through its front end and the rule engine.
#pragma once

#include <string>
#include <vector>

#include "core/finding.h"
#include "frontend/frontend.h"
#include "rules/engine.h"
#include "rules/rule.h"
#include "scan/scan.h"

namespace mpsaudit::testing {

// The rules under test: $MPSAUDIT_RULES_DIR, as the binary reads it (CTest
// sets it), else rules/ of this source tree.
std::string rules_directory();

// The rule catalog of rules_directory(), loaded once; fails the test on errors.
const RuleCatalog &repository_catalog();

// Facts of `text` as a file of `kind` named `path`.
FileFacts extract(FileKind kind, const std::string &text, const std::string &path = "example");

// Findings of `text` as a file of `kind`, under the repository's rules, with
// inline suppressions applied as the scan applies them.
std::vector<Finding> findings_for(FileKind kind, const std::string &text,
                                  const std::string &path = "example");

// One in-memory file of a test repository.
struct SourceText {
  std::string path;
  std::string text;
  FileKind kind = FileKind::Python;
};

// A scan of in-memory files: facts and findings as the scan makes them
// (per file; the project passes are not run).
ScanResult scan_of(const std::vector<SourceText> &sources);

// The IDs of `findings`, in order.
std::vector<std::string> rule_ids(const std::vector<Finding> &findings);

} // namespace mpsaudit::testing
