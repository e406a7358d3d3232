// Text from the scanned tree never reaches a human-readable report as a
// control sequence: file names, code snippets, messages that quote names
// (a pickle's GLOBAL), diagnostics (docs/security.md).
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>

#include "../test_support.h"
#include "report/github_report.h"
#include "report/report.h"

using namespace mpsaudit;

namespace {

const std::string kEscape = "\x1b]0;pwned\x07\x1b[31m";
const std::string kBidi = "\xe2\x80\xae"; // U+202E RIGHT-TO-LEFT OVERRIDE
const std::string kCsi8bit = "\xc2\x9b"
                             "2J"; // U+009B, the one-byte CSI

struct HostileScan {
  ScanResult scan;
  Assessment assessment;
  ReportContext context{"9.9.9", &testing::repository_catalog()};

  HostileScan() {
    scan.root = ".";
    const std::string path = "evil" + kEscape + kBidi + ".py";
    const std::string text = "import torch\ntorch.cuda.synchronize()  # " + kEscape + kBidi + kCsi8bit + "\n";
    scan.files.push_back({path, FileKind::Python, "ast", text.size(), 2});
    scan.project_files.push_back({path, FileKind::Python, testing::extract(FileKind::Python, text, path)});
    for (auto &finding : testing::findings_for(FileKind::Python, text, path))
      scan.findings.push_back(std::move(finding));
    REQUIRE_FALSE(scan.findings.empty());
    Finding pickled = scan.findings.front(); // a message quoting a name read from a pickle
    pickled.message = "pickle GLOBAL `os." + kEscape + "system` " + kBidi;
    scan.findings.push_back(pickled);
    scan.diagnostics.push_back({DiagnosticLevel::Error, path, 2, "include-outside-root",
                                "included file '" + kEscape + "' is outside the scanned tree"});
    std::sort(scan.findings.begin(), scan.findings.end(), finding_less);
    AssessmentInput input;
    input.scan = &scan;
    assessment = assess(input);
    context.assessment = &assessment;
  }
};

// No ESC, BEL, other C0 control but tab and newline, C1 control or bidi override.
void require_no_control(const std::string &report) {
  for (const char c : report) {
    const auto byte = static_cast<unsigned char>(c);
    INFO("byte " << int(byte));
    REQUIRE((byte >= 0x20 || byte == '\n' || byte == '\t'));
    REQUIRE(byte != 0x7f);
  }
  CHECK(report.find(kBidi) == std::string::npos);
  CHECK(report.find("\xc2\x9b") == std::string::npos);
}

} // namespace

TEST_CASE("text, markdown, github and html reports show control characters as escapes",
          "[report][security]") {
  const HostileScan hostile;
  std::ostringstream text, markdown, github, html;
  write_text_report(text, hostile.scan, hostile.context, TextOptions{});
  write_markdown_report(markdown, hostile.scan, hostile.context);
  write_github_report(github, hostile.scan, hostile.context, "");
  write_html_report(html, hostile.scan, hostile.context);
  for (const std::string &report : {text.str(), markdown.str(), github.str(), html.str()}) {
    require_no_control(report);
    CHECK(report.find("\\x1b]0;pwned\\x07\\x1b[31m") != std::string::npos);
  }
  CHECK(text.str().find("\\u202e") != std::string::npos);
  CHECK(text.str().find("\\u009b2J") != std::string::npos);
}

TEST_CASE("the coloured text report paints, but the tree's escapes stay visible", "[report][security]") {
  const HostileScan hostile;
  std::ostringstream coloured;
  write_text_report(coloured, hostile.scan, hostile.context, TextOptions{true});
  const std::string report = coloured.str();
  CHECK(report.find("\x1b[1m") != std::string::npos); // our own colour
  CHECK(report.find(kEscape) == std::string::npos);
  CHECK(report.find("\x07") == std::string::npos);
  CHECK(report.find(kBidi) == std::string::npos);
}

TEST_CASE("the caret stays under the code when the snippet holds escapes", "[report][security]") {
  Finding finding;
  finding.path = "a.py";
  finding.rule_id = "MPS101";
  finding.snippet = "\x1b[31mx = torch.cuda.synchronize()";
  finding.span = Span{1, 10, 1, 14}; // "torch" after 5 bytes of escape sequence and "x = "
  ScanResult scan;
  scan.findings.push_back(finding);
  std::ostringstream out;
  write_text_report(out, scan, ReportContext{"9.9.9", nullptr}, TextOptions{});
  const std::string report = out.str();
  const std::size_t code = report.find("\\x1b[31mx = torch");
  REQUIRE(code != std::string::npos);
  const std::size_t code_line = report.rfind('\n', code) + 1;
  const std::size_t caret_line = report.find('\n', code) + 1;
  CHECK(report.substr(caret_line + (code - code_line) + 12, 4) == "^^^^");
}
