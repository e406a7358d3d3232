// At scan level, malformed manifests give diagnostics naming file and line,
// and neither crash the scan nor hide other files' findings.
#include <catch2/catch.hpp>

#include <algorithm>

#include "../test_support.h"
#include "scan/scan.h"

using namespace mpsaudit;

TEST_CASE("malformed manifests in a scan are diagnosed and hide nothing", "[manifest][malformed][scan]") {
  ScanOptions options;
  options.paths = {std::string(MPSAUDIT_SOURCE_DIR) + "/samples/deps-hard-cases"};
  options.use_git = false;
  options.jobs = 2;
  const ScanResult result = run_scan(options, testing::repository_catalog());

  const auto has_diagnostic = [&](const std::string &path, std::uint32_t line, const std::string &code) {
    return std::any_of(result.diagnostics.begin(), result.diagnostics.end(), [&](const Diagnostic &d) {
      return d.path == path && d.line == line && d.code == code;
    });
  };
  CHECK(has_diagnostic("malformed/pyproject.toml", 4, "parse-error"));
  CHECK(has_diagnostic("malformed/environment.yml", 5, "parse-error"));
  CHECK(has_diagnostic("malformed/CMakeLists.txt", 3, "parse-error"));
  CHECK(has_diagnostic("malformed/setup.py", 4, "parse-error"));
  CHECK(has_diagnostic("malformed/requirements.txt", 1, "unknown-option"));
  CHECK(has_diagnostic("requirements/dev.txt", 1, "include-cycle"));
  CHECK(has_diagnostic("requirements/lint.txt", 1, "include-cycle"));

  const auto has_finding = [&](const std::string &path, std::uint32_t line, const std::string &rule) {
    return std::any_of(result.findings.begin(), result.findings.end(), [&](const Finding &f) {
      return f.path == path && f.span.line == line && f.rule_id == rule;
    });
  };
  // Findings of the broken files themselves, before and after the damage...
  CHECK(has_finding("malformed/CMakeLists.txt", 2, "MPS631"));
  CHECK(has_finding("malformed/requirements.txt", 3, "MPS704"));
  CHECK(has_finding("malformed/setup.py", 10, "MPS620"));
  // ...and of the other files.
  CHECK(has_finding("requirements/gpu.txt", 5, "MPS704"));
  CHECK(has_finding("environment.yml", 9, "MPS708"));
  CHECK(has_finding("Dockerfile", 2, "MPS900"));
}
