// The portfolio's rows from scan reports, the totals across repositories,
// the baseline comparison and the CSV quoting, on small reports written
// here (the end-to-end test, tests/e2e/portfolio.sh, runs real scans).
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "../test_support.h"
#include "core/text.h"
#include "portfolio/portfolio.h"
#include "portfolio/portfolio_writers.h"

using namespace mpsaudit;
using nlohmann::json;

namespace {

json hours(double low, double high) {
  return {{"low", low}, {"high", high}, {"text", ""}};
}

// A report as `scan --format json` writes it, with what a row reads.
json report(const std::string &name, const std::string &outcome, const std::string &root = ".") {
  json groups = json::array();
  json items = json::array();
  if (outcome != "ADAPT") {
    groups.push_back({{"cause", "package:xformers"},
                      {"title", "CUDA-only package `xformers`"},
                      {"count", 2},
                      {"pushes_to", outcome}});
    groups.push_back(
        {{"cause", "effort-dual"}, {"title", "effort-dual"}, {"count", 1}, {"pushes_to", "DUAL"}});
    items.push_back({{"key", "package:xformers"}, {"kind", "finding"}, {"hours", hours(8, 24)}});
  }
  return {{"schema_version", 1},
          {"tool", {{"name", "mpsaudit"}, {"version", "0.1.0"}}},
          {"root", root},
          {"repository", {{"name", name}, {"commit", nullptr}}},
          {"summary", {{"files", 12}, {"findings", 7}}},
          {"findings", json::array()},
          {"assessment",
           {{"decision",
             {{"outcome", outcome},
              {"headline", outcome + ": `xformers` (MPS417) in " + (root == "." ? "" : root + "/") +
                               "model/attention.py:3 is CUDA-only"},
              {"groups", groups}}},
            {"effort",
             {{"recommended_hours", hours(4, 10)},
              {"native_port_hours", hours(40, 120)},
              {"recommended", {{"fix", {{"safe_hours", hours(1, 2)}}}}},
              {"items", items}}},
            {"entry_points", json::array({{{"mac", "runs-after-fixes"}},
                                          {{"mac", "needs-cuda"}},
                                          {{"mac", "optional-cuda-path"}}})}}}};
}

json missing_operator(const std::string &message) {
  return {{"family", "operators"}, {"rule", "MPS970"}, {"suppressed", false}, {"message", message}};
}

} // namespace

TEST_CASE("a row reads the verdict, effort, blockers and entry points of a scan report") {
  const PortfolioRow row = row_from_report(report("lab-model", "DUAL"), "0.1.0");
  REQUIRE(row.ok());
  CHECK(row.name == "lab-model");
  CHECK(row.verdict == "DUAL");
  CHECK(row.reason == "`xformers` (MPS417) in model/attention.py:3 is CUDA-only");
  CHECK(row.effort.low == 4);
  CHECK(row.effort.high == 10);
  REQUIRE(row.native_port);
  CHECK(row.native_port->high == 120);
  CHECK(row.fix_share() == Approx(1.5 / 7));
  // The estimate's own cause ("effort-dual") is no blocker a lab can replace.
  REQUIRE(row.blockers.size() == 1);
  CHECK(row.blockers[0].cause == "package:xformers");
  REQUIRE(row.blockers[0].hours);
  CHECK(row.blockers[0].hours->high == 24);
  CHECK(row.entries == 3);
  CHECK(row.entries_on_mac == 2); // runs after fixes, and the optional CUDA path
  CHECK(row.files == 12);
  CHECK(row.findings == 7);
  CHECK(row.notes.empty());
}

TEST_CASE("a report scanned from elsewhere reads as if scanned inside the repository") {
  const PortfolioRow inside = row_from_report(report("lab-model", "DUAL"), "0.1.0");
  const PortfolioRow outside = row_from_report(report("lab-model", "DUAL", "../repos/lab-model"), "0.1.0");
  CHECK(outside.reason == inside.reason);
  // Only where a path starts: a folder of the same name inside a word stays.
  CHECK(paths_from_top("see data/x.py and metadata/y.py", "data") == "see x.py and metadata/y.py");
  CHECK(paths_from_top("(data/x.py:3)", "data/") == "(x.py:3)");
  CHECK(paths_from_top("run x.py", ".") == "run x.py");
}

TEST_CASE("an ADAPT row has no native port and no blockers; another version's report gets a note") {
  const PortfolioRow row = row_from_report(report("small", "ADAPT"), "0.2.0");
  REQUIRE(row.ok());
  CHECK_FALSE(row.native_port);
  CHECK(row.blockers.empty());
  REQUIRE(row.notes.size() == 1);
  CHECK(row.notes[0] == "report written by mpsaudit 0.1.0 (this is 0.2.0)");
}

TEST_CASE("what is no scan report, or has no verdict, is a row with the error") {
  CHECK(row_from_report(json{{"hello", 1}}, "0.1.0").error.find("not an mpsaudit JSON report") == 0);
  json newer = report("x", "ADAPT");
  newer["schema_version"] = 2;
  CHECK(row_from_report(newer, "0.1.0").error.find("schema_version 2") != std::string::npos);
  json undecided = report("x", "ADAPT");
  undecided["assessment"] = json::object();
  undecided["no_decision_reason"] = "only changed files were scanned";
  CHECK(row_from_report(undecided, "0.1.0").error ==
        "the report has no verdict: only changed files were scanned");
}

TEST_CASE("totals per verdict and the blockers across repositories count each repository once") {
  std::vector<PortfolioRow> rows = {row_from_report(report("a", "DUAL"), "0.1.0"),
                                    row_from_report(report("b", "KEEP_LINUX_GPU"), "0.1.0"),
                                    row_from_report(report("c", "ADAPT"), "0.1.0")};
  rows.emplace_back();
  rows.back().name = "broken";
  rows.back().error = "the scan wrote no report";
  const Portfolio portfolio = summarize_portfolio(rows, "0.1.0");
  REQUIRE(portfolio.totals.size() == 3);
  CHECK(portfolio.totals[0].verdict == "ADAPT");
  CHECK(portfolio.totals[0].repositories == 1);
  CHECK(portfolio.totals[1].repositories == 1);
  CHECK(portfolio.totals[2].repositories == 1); // the failed row counts under no verdict
  CHECK(portfolio.totals[1].hours.high == 10);
  REQUIRE(portfolio.shared_blockers.size() == 1);
  const SharedBlocker &shared = portfolio.shared_blockers[0];
  CHECK(shared.repositories == std::vector<std::string>{"a", "b"});
  CHECK(shared.hours.high == 48);
  CHECK(shared.replaced_once());
  CHECK_FALSE(portfolio.release);
}

TEST_CASE("the torch release that gives every missing operator a kernel, and whether it changes a verdict") {
  json needs_24 = report("a", "ADAPT");
  needs_24["findings"] =
      json::array({missing_operator("`torch.linalg.qr` has no MPS kernel in torch 2.0 (added in 2.4)")});
  json needs_26 = report("b", "ADAPT");
  needs_26["findings"] =
      json::array({missing_operator("`x` always falls back to the CPU under MPS in torch 2.0 "
                                    "(MPSFallback.mm); runs on MPS from 2.6"),
                   missing_operator("`y` has no MPS kernel in torch 2.0.0 (added by 2.4.0)")});
  json never = report("c", "ADAPT");
  never["findings"] =
      json::array({missing_operator("`z` has no MPS kernel in torch 2.0 (nor in any release yet)"),
                   missing_operator("`w` always falls back to the CPU under MPS in torch 2.0.0 "
                                    "(MPSFallback.mm, whatever PYTORCH_ENABLE_MPS_FALLBACK says)")});
  const Portfolio portfolio =
      summarize_portfolio({row_from_report(needs_24, "0.1.0"), row_from_report(needs_26, "0.1.0"),
                           row_from_report(never, "0.1.0")},
                          "0.1.0");
  CHECK(portfolio.rows[0].operators_release == "2.4");
  CHECK(portfolio.rows[1].operators_release == "2.6");
  CHECK(portfolio.rows[2].operators_release.empty());
  CHECK(portfolio.rows[2].missing_operators == 2);
  REQUIRE(portfolio.release);
  CHECK(portfolio.release->release == "2.6");
  CHECK(portfolio.release->repositories == 2);
  CHECK(portfolio.release->verdicts_changed == 0); // ADAPT already: nothing for a release to change
}

TEST_CASE("a baseline portfolio marks changed verdicts, effort, new blockers and repositories gone") {
  const Portfolio before = summarize_portfolio(
      {row_from_report(report("a", "ADAPT"), "0.1.0"), row_from_report(report("gone", "ADAPT"), "0.1.0")},
      "0.1.0");
  Portfolio after = summarize_portfolio(
      {row_from_report(report("a", "DUAL"), "0.1.0"), row_from_report(report("new", "ADAPT"), "0.1.0")},
      "0.1.0");
  std::string error;
  REQUIRE(compare_with_baseline(after, portfolio_to_json(before), "old.json", error));
  CHECK(after.rows[0].changes ==
        std::vector<std::string>{"verdict ADAPT -> DUAL", "new blocker: CUDA-only package `xformers`"});
  CHECK(after.rows[1].changes == std::vector<std::string>{"new in the portfolio"});
  CHECK(after.removed_since_baseline == std::vector<std::string>{"gone"});
  CHECK_FALSE(compare_with_baseline(after, report("a", "ADAPT"), "scan.json", error));
  CHECK(error.find("is not a portfolio JSON") != std::string::npos);
}

TEST_CASE("CSV fields are quoted as RFC 4180 says, and what a spreadsheet would run is not a formula") {
  // RFC 4180: a field with a comma or a quote is quoted, its quotes doubled.
  testing::check_cases(csv_field,
                       {{"plain", "plain"}, {"a,b", "\"a,b\""}, {"say \"hi\"", "\"say \"\"hi\"\"\""}});
  // A leading =, @ or - would be a formula: a quote makes it text.
  testing::check_cases(
      csv_field,
      {{"=HYPERLINK(\"x\")", "\"'=HYPERLINK(\"\"x\"\")\""}, {"@SUM(A1)", "'@SUM(A1)"}, {"-2+3", "'-2+3"}});
}

TEST_CASE("the text table fits the terminal's width and keeps every repository's line") {
  const Portfolio portfolio = summarize_portfolio(
      {row_from_report(report("a-repository-with-a-rather-long-name-indeed", "DUAL"), "0.1.0")}, "0.1.0");
  std::ostringstream out;
  PortfolioWriterOptions options;
  options.width = 60;
  write_portfolio_text(out, portfolio, options);
  std::istringstream lines(out.str());
  std::size_t table_lines = 0;
  for (std::string line; std::getline(lines, line);) {
    CHECK(display_width(line) <= 60);
    table_lines += line.rfind("a-repository", 0) == 0 ? 1 : 0;
  }
  CHECK(table_lines == 1);
}

TEST_CASE("a row judged by another rule set than most rows gets a note", "[portfolio]") {
  json a = report("a", "ADAPT"), b = report("b", "ADAPT"), c = report("c", "DUAL");
  a["tool"]["rules"] = "1111";
  b["tool"]["rules"] = "1111";
  c["tool"]["rules"] = "2222";
  const Portfolio portfolio = summarize_portfolio(
      {row_from_report(a, "0.1.0"), row_from_report(b, "0.1.0"), row_from_report(c, "0.1.0")}, "0.1.0");
  CHECK(portfolio.rows[0].notes.empty());
  CHECK(portfolio.rows[1].notes.empty());
  CHECK(portfolio.rows[2].notes ==
        std::vector<std::string>{"judged by another rule set (rules 2222) than most rows (1111)"});
  CHECK(portfolio_to_json(portfolio)["repositories"][2]["rules"] == "2222");
}
