// Helpers shared by unit tests: the repository's own rule catalog, and
// running one in-memory file through its front end and the rule engine.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "core/finding.h"
#include "core/project_pass.h"
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

// A Python file of a project holding `facts`, as if its front end had
// found them (for the project passes' tests).
ProjectFile python_file(const std::string &path, std::vector<Fact> facts);

// The IDs of `findings`, in order.
std::vector<std::string> rule_ids(const std::vector<Finding> &findings);

// A row of a table-driven test: an input and what the function under test
// must return for it.
using StringCase = std::pair<std::string, std::string>;

// CHECKs `function(input) == expected` for every row, one assertion a row;
// a failing row names its input, which the table itself does not show.
template <typename Function>
void check_cases(const Function &function, const std::vector<StringCase> &cases) {
  for (const auto &[input, expected] : cases) {
    INFO("input: " << input);
    CHECK(function(input) == expected);
  }
}

// CHECKs that `text` contains each of `parts`, one assertion a part.
void check_contains_all(const std::string &text, const std::vector<std::string> &parts);

// CHECKs that `text` contains none of `parts`, one assertion a part.
void check_contains_none(const std::string &text, const std::vector<std::string> &parts);

} // namespace mpsaudit::testing
