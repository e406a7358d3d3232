// Report writers over a small scan with an assessment: Markdown, HTML, SARIF,
// JSON and the text summary agree on the decision and escape what they quote.
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>

#include "../test_support.h"
#include "report/report.h"
#include "report/report_writers.h"

using namespace mpsaudit;

namespace {

struct Fixture {
  ScanResult scan;
  Assessment assessment;
  ReportContext context{"9.9.9", &testing::repository_catalog()};

  Fixture() {
    scan.root = ".";
    const std::string model =
        "import torch.nn as nn\nfrom flash_attn import flash_attn_func  # <script>x|y</script>\n";
    const std::string train =
        "import torch\nx = torch.zeros(1).cuda()  # mpsaudit: ignore[MPS201] cluster only\ny = x.cuda()\n";
    for (const auto &[path, text] :
         {std::pair<std::string, std::string>{"model/attn.py", model}, {"train.py", train}}) {
      scan.files.push_back({path, FileKind::Python, "ast", text.size(), 2});
      scan.project_files.push_back({path, FileKind::Python, testing::extract(FileKind::Python, text, path)});
      for (auto &finding : testing::findings_for(FileKind::Python, text, path))
        scan.findings.push_back(std::move(finding));
    }
    std::sort(scan.findings.begin(), scan.findings.end(), finding_less);
    AssessmentInput input;
    input.scan = &scan;
    assessment = assess(input);
    context.assessment = &assessment;
  }
};

// The report that `write` renders for `fixture`.
std::string rendered(void (*write)(std::ostream &, const ScanResult &, const ReportContext &),
                     const Fixture &fixture) {
  std::ostringstream out;
  write(out, fixture.scan, fixture.context);
  return out.str();
}

} // namespace

TEST_CASE("the fixture has an open blocker and a suppressed finding", "[report]") {
  const Fixture fixture;
  REQUIRE(fixture.assessment.decision.outcome == Outcome::KeepLinuxGpu);
  REQUIRE(std::count_if(fixture.scan.findings.begin(), fixture.scan.findings.end(),
                        [](const Finding &f) { return f.suppressed; }) == 1);
}

TEST_CASE("markdown: decision, effort, findings and plan, with table cells escaped", "[report][markdown]") {
  const Fixture fixture;
  const std::string md = rendered(write_markdown_report, fixture);
  testing::check_contains_all(md, {"## Decision: **KEEP_LINUX_GPU**",
                                   "## Effort: " + format_hours(fixture.assessment.recommended.hours),
                                   "## Action plan", "| MPS402 | error |", "becomes ADAPT"});
  testing::check_contains_none(md, {"<script>"});
}

TEST_CASE("html: self-contained, counts as data attributes, snippets escaped", "[report][html]") {
  const Fixture fixture;
  const std::string html = rendered(write_html_report, fixture);
  testing::check_contains_all(html,
                              {"data-outcome=\"KEEP_LINUX_GPU\"", "id=\"count-findings\" data-count=\"2\"",
                               "id=\"count-suppressed\" data-count=\"1\"", "&lt;script&gt;x|y&lt;/script&gt;",
                               "Content-Security-Policy"});
  testing::check_contains_none(html, {"<script>x", "src=\"http"});
  std::size_t rows = 0;
  for (std::size_t at = html.find("<tr class=\"finding\""); at != std::string::npos;
       at = html.find("<tr class=\"finding\"", at + 1))
    ++rows;
  CHECK(rows == 2);
}

TEST_CASE("sarif: rules, relative URIs, fingerprints, levels and suppressions", "[report][sarif]") {
  const Fixture fixture;
  const nlohmann::json sarif = report_to_sarif(fixture.scan, fixture.context);
  CHECK(sarif["version"] == "2.1.0");
  const auto &run = sarif["runs"][0];
  CHECK(run["originalUriBaseIds"]["SRCROOT"]["uri"].get<std::string>().rfind("file:///", 0) == 0);
  const auto &rules = run["tool"]["driver"]["rules"];
  REQUIRE(rules.size() == 2);
  CHECK(rules[0]["id"] == "MPS201");
  CHECK_FALSE(rules[1]["help"]["markdown"].get<std::string>().empty());
  const auto &results = run["results"];
  REQUIRE(results.size() == 3);
  CHECK(results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "model/attn.py");
  CHECK(results[0]["level"] == "error");
  CHECK(results[0]["ruleIndex"] == 1);
  int suppressed = 0;
  for (const auto &result : results)
    if (result.contains("suppressions")) {
      ++suppressed;
      CHECK(result["suppressions"][0]["kind"] == "inSource");
      CHECK(result["suppressions"][0]["justification"] == "cluster only");
    }
  CHECK(suppressed == 1);
  CHECK(run["properties"]["decision"] == "KEEP_LINUX_GPU");
}

TEST_CASE("line hashes ignore indentation and moves, not the rule or the code", "[report][sarif]") {
  CHECK(line_hash("MPS201", "    x = y.cuda()") == line_hash("MPS201", "x = y.cuda()"));
  CHECK(line_hash("MPS201", "x = y.cuda()") != line_hash("MPS202", "x = y.cuda()"));
  CHECK(line_hash("MPS201", "x = y.cuda()") != line_hash("MPS201", "x = z.cuda()"));
  CHECK(line_hash("MPS201", "x").size() == 16);
}

TEST_CASE("json carries the assessment; text ends with the decision summary", "[report][json][text]") {
  const Fixture fixture;
  const nlohmann::json report = report_to_json(fixture.scan, fixture.context);
  REQUIRE(report.contains("assessment"));
  CHECK(report["assessment"]["decision"]["outcome"] == "KEEP_LINUX_GPU");
  CHECK(report["assessment"]["decision"]["if_resolved"] == "ADAPT");
  CHECK(report["assessment"]["acceptance"].size() == 3);
  CHECK(report["assessment"]["effort"]["suppressed_findings"] == 1);
  std::ostringstream out;
  write_text_report(out, fixture.scan, fixture.context, TextOptions{});
  const std::string text = out.str();
  CHECK(text.find("Decision: KEEP_LINUX_GPU - ") != std::string::npos);
  // The effort line leads with the recommended path's figure.
  CHECK(text.find("Effort: " + format_hours(fixture.assessment.recommended.hours)) != std::string::npos);
  CHECK(text.find("\033[") == std::string::npos); // no colour unless asked
  std::ostringstream coloured;
  write_text_report(coloured, fixture.scan, fixture.context, TextOptions{true});
  CHECK(coloured.str().find("\033[1;31mKEEP_LINUX_GPU\033[0m") != std::string::npos);
}

TEST_CASE("why: every writer shows the grouped reasons; the full list stays one step away", "[report][why]") {
  Fixture fixture;
  const Decision &decision = fixture.assessment.decision;
  REQUIRE(!decision.deciding_groups.empty());
  const std::vector<std::string> lines = why_lines(decision);
  CHECK(lines.front() == decision.deciding_groups.front().summary); // the strongest cause leads
  CHECK(lines.back() == decision.context_reasons.back());
  std::ostringstream md, html, text, full_text;
  write_markdown_report(md, fixture.scan, fixture.context);
  write_html_report(html, fixture.scan, fixture.context);
  write_text_report(text, fixture.scan, fixture.context, TextOptions{});
  CHECK(md.str().find("- " + lines.front().substr(0, 20)) != std::string::npos);
  CHECK(html.str().find("<details id=\"all-reasons\"><summary>All " +
                        std::to_string(decision.reasons.size()) + " reasons</summary>") != std::string::npos);
  CHECK(text.str().find("\nWhy\n  - ") != std::string::npos);
  CHECK(text.str().find("Every reason") == std::string::npos);
  fixture.context.full = true;
  write_text_report(full_text, fixture.scan, fixture.context, TextOptions{});
  CHECK(full_text.str().find("Every reason") != std::string::npos);
  const nlohmann::json report = report_to_json(fixture.scan, fixture.context);
  std::size_t grouped = 0;
  for (const auto &group : report["assessment"]["decision"]["groups"])
    grouped += group["count"].get<std::size_t>();
  CHECK(grouped == report["assessment"]["decision"]["deciding"].size()); // every deciding factor, once
}

TEST_CASE("findings per directory: the first two path components, most first", "[report][text]") {
  ScanResult scan;
  for (const char *path : {"setup.py", "pkg/ops/a.py", "pkg/ops/b.py", "pkg/ops/deep/c.py", "tools/x.py"}) {
    Finding finding;
    finding.path = path;
    scan.findings.push_back(finding);
  }
  scan.findings.back().suppressed = true; // not counted
  const auto rows = findings_by_directory(scan);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0] == std::pair<std::string, std::size_t>{"pkg/ops", 3});
  CHECK(rows[1] == std::pair<std::string, std::size_t>{".", 1});
  CHECK(open_finding_count(scan) == 4);
}

TEST_CASE("output formats follow the file extension", "[report]") {
  testing::check_cases(format_for_extension, {{"r.json", "json"},
                                              {"out/r.MD", "md"},
                                              {"r.html", "html"},
                                              {"r.sarif", "sarif"},
                                              {"r.txt", "text"},
                                              {"report", ""},
                                              {"dir.d/report", ""}});
}

TEST_CASE("headers the shim lacks are one note, not input problems", "[report][text]") {
  ScanResult scan;
  scan.diagnostics.push_back(
      {DiagnosticLevel::Warning, "csrc/a.cu", 1, "missing-include", "'torch/types.h' not found"});
  scan.diagnostics.push_back(
      {DiagnosticLevel::Warning, "csrc/a.cu", 2, "missing-include", "'c10/cuda/x.h' not found"});
  scan.diagnostics.push_back(
      {DiagnosticLevel::Warning, "csrc/b.cpp", 1, "missing-include", "'torch/extension.h'"});
  scan.diagnostics.push_back({DiagnosticLevel::Error, "bad.py", 3, "invalid-utf8", "not UTF-8"});
  CHECK(header_gap_count(scan) == 3);
  const std::string summary = summary_line(scan);
  CHECK(summary.find("1 input problem;") != std::string::npos);
  CHECK(summary.find("3 headers not found") != std::string::npos);

  std::ostringstream brief;
  write_text_report(brief, scan, ReportContext{}, TextOptions{});
  CHECK(brief.str().find("note: 3 #includes not found in 2 files") != std::string::npos);
  CHECK(brief.str().find("[missing-include]") == std::string::npos);
  CHECK(brief.str().find("bad.py:3: not UTF-8 [invalid-utf8]") != std::string::npos);

  ReportContext full;
  full.full = true;
  std::ostringstream everything;
  write_text_report(everything, scan, full, TextOptions{});
  CHECK(everything.str().find("csrc/b.cpp:1: 'torch/extension.h' [missing-include]") != std::string::npos);
}
