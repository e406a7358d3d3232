#include "test_support.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "core/source.h"
#include "coverage/operator_coverage_pass.h"
#include "workflow/suppression.h"

namespace mpsaudit::testing {

std::string rules_directory() {
  if (const char *directory = std::getenv("MPSAUDIT_RULES_DIR"); directory && *directory)
    return directory;
  return std::string(MPSAUDIT_SOURCE_DIR) + "/rules";
}

const RuleCatalog &repository_catalog() {
  static const RuleCatalog catalog = [] {
    std::vector<Diagnostic> diagnostics;
    RuleCatalog loaded = RuleCatalog::load_directory(rules_directory(), diagnostics);
    if (!diagnostics.empty())
      throw std::runtime_error(diagnostics.front().path + ":" + std::to_string(diagnostics.front().line) +
                               ": " + diagnostics.front().message);
    return loaded;
  }();
  return catalog;
}

FileFacts extract(FileKind kind, const std::string &text, const std::string &path) {
  const Extractor *extractor = find_extractor(kind);
  if (!extractor)
    throw std::runtime_error("no front end for " + std::string(to_string(kind)));
  SourceFile file;
  file.path = path;
  file.absolute_path = path;
  file.kind = kind;
  file.text = text;
  return (*extractor)(file, ExtractOptions{});
}

std::vector<Finding> findings_for(FileKind kind, const std::string &text, const std::string &path) {
  // The operator-coverage pass works on one file as well as on a tree, so
  // rules on its facts have examples like any other (newest table).
  std::vector<ProjectFile> files{{path, kind, extract(kind, text, path)}};
  find_missing_mps_operators(files);
  // So does the extension-import pass: a module that cpp_extension.load
  // builds and the same file imports. And the device-helper pass: a helper
  // that picks MPS only by name and its callers in the same file.
  for (const ProjectPass &pass : frontend_project_passes())
    if (pass.name == "cuda-extension-imports" || pass.name == "mps-by-name-callers")
      pass.run(files);
  const FileFacts &facts = files.front().facts;
  const RuleEngine engine(repository_catalog());
  const LineIndex lines(text);
  std::vector<Finding> findings = engine.evaluate(
      path, kind, facts, [&](std::uint32_t line) { return std::string(lines.line_text(line)); });
  drop_redundant_findings(findings); // as the scan does
  // Inline suppressions, as the scan applies them (MPS001's examples need it).
  FileSuppressions suppressions = find_suppressions(path, kind, text);
  apply_suppressions(suppressions, findings, engine, path, kind);
  return findings;
}

std::vector<std::string> rule_ids(const std::vector<Finding> &findings) {
  std::vector<std::string> ids;
  for (const auto &finding : findings)
    ids.push_back(finding.rule_id);
  return ids;
}

ScanResult scan_of(const std::vector<SourceText> &sources) {
  ScanResult scan;
  scan.root = ".";
  for (const auto &source : sources) {
    scan.files.push_back({source.path, source.kind, "ast", source.text.size(), 1});
    scan.project_files.push_back({source.path, source.kind, extract(source.kind, source.text, source.path)});
    for (auto &finding : findings_for(source.kind, source.text, source.path))
      scan.findings.push_back(std::move(finding));
  }
  std::sort(scan.findings.begin(), scan.findings.end(), finding_less);
  return scan;
}

ProjectFile python_file(const std::string &path, std::vector<Fact> facts) {
  ProjectFile file;
  file.path = path;
  file.kind = FileKind::Python;
  file.facts.facts = std::move(facts);
  return file;
}

void check_contains_all(const std::string &text, const std::vector<std::string> &parts) {
  for (const std::string &part : parts) {
    INFO("expected part: " << part);
    CHECK(text.find(part) != std::string::npos);
  }
}

void check_contains_none(const std::string &text, const std::vector<std::string> &parts) {
  for (const std::string &part : parts) {
    INFO("unexpected part: " << part);
    CHECK(text.find(part) == std::string::npos);
  }
}

} // namespace mpsaudit::testing
