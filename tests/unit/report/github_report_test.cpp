// --format github: workflow commands with escaped properties and data.
#include <sstream>

#include <catch2/catch.hpp>

#include "../test_support.h"
#include "report/github_report.h"

using namespace mpsaudit;

TEST_CASE("workflow-command escaping follows GitHub's rules", "[github]") {
  CHECK(github_escape_data("50% a:b,c\nnext\r") == "50%25 a:b,c%0Anext%0D");
  CHECK(github_escape_property("dir,a/b:c.py") == "dir%2Ca/b%3Ac.py");
}

TEST_CASE("one annotation per open finding, severities mapped, suppressed left out", "[github]") {
  ScanResult result;
  Finding warning;
  warning.rule_id = "MPS201";
  warning.rule = testing::repository_catalog().find("MPS201");
  warning.path = "train.py";
  warning.span = Span{12, 5, 12, 17};
  warning.message = "`.cuda()` needs CUDA";
  warning.severity = static_cast<int>(Severity::Warning);
  Finding info = warning;
  info.span = Span{20, 1, 21, 3};
  info.severity = static_cast<int>(Severity::Info);
  info.guard = Guard::CudaCheck;
  Finding hidden = warning;
  hidden.suppressed = true;
  result.findings = {warning, info, hidden};
  result.workflow.partial_scan = "staged files only (1)";
  std::ostringstream out;
  ReportContext context;
  context.tool_version = "test";
  context.catalog = &testing::repository_catalog();
  write_github_report(out, result, context, "sub/dir");
  std::istringstream lines(out.str());
  std::vector<std::string> commands;
  for (std::string line; std::getline(lines, line);)
    commands.push_back(line);
  REQUIRE(commands.size() == 3);
  CHECK(commands[0].rfind(
            "::warning file=sub/dir/train.py,line=12,col=5,endLine=12,endColumn=17,title=MPS201 dot-cuda::"
            "`.cuda()` needs CUDA%0AFix: ",
            0) == 0);
  CHECK(commands[1].rfind("::notice file=sub/dir/train.py,line=20,col=1,endLine=21,title=MPS201 dot-cuda::",
                          0) == 0);
  CHECK(commands[1].find("[guarded: cuda-check]") != std::string::npos);
  CHECK(commands[2].rfind("::notice title=mpsaudit::", 0) == 0);
  CHECK(commands[2].find("partial scan: staged files only (1)") != std::string::npos);
}
