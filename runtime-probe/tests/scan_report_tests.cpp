// Torch-free tests of reading the scan report and of the environment
// warnings the verdicts carry.
#include <catch2/catch.hpp>

#include "scan_report.h"
#include "verdicts.h"

using namespace mpsaudit::probe;

TEST_CASE("the scan report's api_uses and findings are read") {
  std::vector<ProbeDiagnostic> diagnostics;
  ScanReport report = parse_scan_report(R"({
    "schema_version": 1, "root": "/r", "files": [],
    "findings": [{"rule": "MPS301", "path": "a.py", "line": 3, "column": 7,
                  "name": "torch.float64", "severity": "error", "guard": "none",
                  "in_forward": true, "extra": {"ignored": 1}}],
    "api_uses": [{"name": "torch.nn.functional.grid_sample", "path": "a.py", "line": 12, "count": 3},
                 {"name": "torch.matmul", "path": "b.py", "line": 1}],
    "diagnostics": []})",
                                        "report.json", diagnostics);
  CHECK(diagnostics.empty());
  CHECK(report.root == "/r");
  REQUIRE(report.api_uses.size() == 2);
  CHECK(report.api_uses[0].count == 3);
  CHECK(report.api_uses[1].count == 1); // default
  REQUIRE(report.findings.size() == 1);
  CHECK(report.findings[0].in_forward);
  CHECK(report.findings[0].column == 7);
  CHECK(classify_finding(report.findings[0]) == FindingProbe::Float64);
}

TEST_CASE("a malformed report gives diagnostics and whatever could be read") {
  std::vector<ProbeDiagnostic> diagnostics;
  ScanReport report = parse_scan_report("{not json", "bad.json", diagnostics);
  REQUIRE(diagnostics.size() == 1);
  CHECK(diagnostics[0].code == "report-parse-error");
  CHECK(diagnostics[0].path == "bad.json");

  diagnostics.clear();
  report = parse_scan_report(
      R"({"schema_version": 7, "api_uses": [{"path": "x.py"}, 5, {"name": "torch.exp", "line": -4}],
          "findings": "nope"})",
      "odd.json", diagnostics);
  REQUIRE(report.api_uses.size() == 1);
  CHECK(report.api_uses[0].line == 0);
  CHECK(report.findings.empty());
  CHECK(diagnostics.size() == 3); // schema version, two bad entries

  diagnostics.clear();
  read_scan_report("/nonexistent/report.json", diagnostics);
  REQUIRE(diagnostics.size() == 1);
  CHECK(diagnostics[0].code == "report-unreadable");
}

TEST_CASE("findings are sorted into the probes that can check them") {
  ReportFinding finding;
  finding.name = "torch.double";
  CHECK(classify_finding(finding) == FindingProbe::Float64);
  finding.name = "torch.zeros";
  CHECK(classify_finding(finding) == FindingProbe::DeviceMismatch);
  finding.name = "torch.cuda.synchronize";
  CHECK(classify_finding(finding) == FindingProbe::None);
}

TEST_CASE("the fallback warning says plainly that a pass is not proof") {
  EnvironmentReport environment;
  environment.mps_fallback_enabled = true;
  add_environment_warnings(environment);
  REQUIRE(environment.warnings.size() == 1);
  CHECK(environment.warnings[0].find("not proof that it ran on MPS") != std::string::npos);

  EnvironmentReport rosetta;
  rosetta.mps_built = true;
  rosetta.rosetta = true;
  add_environment_warnings(rosetta);
  CHECK(rosetta.warnings.size() == 2);
  auto json = to_json(rosetta);
  CHECK(json["rosetta"] == true);
  CHECK(json["mps_built"] == true);
  CHECK(json["mps_available"] == false);
}
