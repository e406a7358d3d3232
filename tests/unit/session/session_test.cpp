// The scan session (session/session.h): the catalogs it loads, and how far
// each goal goes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/temporary_directory.h"
#include "session/session.h"

using namespace mpsaudit;
namespace fs = std::filesystem;

namespace {

void write_file(const fs::path &path, const std::string &text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// A scratch copy of rules/ (to break or remove fixes.toml) and a one-file tree.
struct Workspace {
  TemporaryDirectory directory{"mpsaudit-session-test-"};
  fs::path rules = fs::path(directory.path()) / "rules";
  fs::path tree = fs::path(directory.path()) / "tree";
  Workspace() {
    REQUIRE(directory.created());
    fs::copy(std::string(MPSAUDIT_SOURCE_DIR) + "/rules", rules, fs::copy_options::recursive);
    write_file(tree / "train.py", "import torch\nx = torch.zeros(1).cuda()\n");
  }
  SessionRequest request(SessionGoal goal, std::ostream &diagnostics) const {
    SessionRequest request;
    request.goal = goal;
    request.rules_dir = rules.string();
    request.scan.paths = {tree.string()};
    request.scan.use_git = false;
    request.scan.jobs = 1;
    request.workflow.no_config = true;
    request.diagnostics = &diagnostics;
    return request;
  }
};

bool has_rule(const ScanResult &result, const std::string &id) {
  return std::any_of(result.findings.begin(), result.findings.end(),
                     [&](const Finding &finding) { return finding.rule_id == id; });
}

} // namespace

TEST_CASE("a session scans, assesses and credits fixes from the catalog it loaded", "[session]") {
  Workspace workspace;
  std::ostringstream diagnostics;
  Session session;
  REQUIRE(run_session(workspace.request(SessionGoal::Assess, diagnostics), session) == SessionStatus::Ok);
  CHECK(diagnostics.str().empty());
  CHECK(has_rule(session.result, "MPS201"));
  CHECK_FALSE(session.nothing_scanned);
  CHECK_FALSE(session.fixes.definitions().empty());
  CHECK(session.assessment.effort.fix.safe_sites == 1); // .cuda() -> .to(device)
}

TEST_CASE("a broken fixes.toml refuses the session with a diagnostic naming it", "[session]") {
  Workspace workspace;
  // Valid TOML (the rule catalog reads it too), but not a fix catalog.
  write_file(workspace.rules / "fixes.toml", "[[fix]]\nrule = \"MPS201\"\nkind = \"nonsense\"\n");
  for (const SessionGoal goal : {SessionGoal::Assess, SessionGoal::Fix}) {
    std::ostringstream diagnostics;
    Session session;
    CHECK(run_session(workspace.request(goal, diagnostics), session) == SessionStatus::Refused);
    CHECK(diagnostics.str().find("fixes.toml") != std::string::npos);
  }
}

TEST_CASE("without fixes.toml a scan credits no fix and fix refuses", "[session]") {
  Workspace workspace;
  fs::remove(workspace.rules / "fixes.toml");
  std::ostringstream diagnostics;
  Session scanned;
  REQUIRE(run_session(workspace.request(SessionGoal::Assess, diagnostics), scanned) == SessionStatus::Ok);
  CHECK(has_rule(scanned.result, "MPS201"));
  CHECK(scanned.assessment.effort.fix.safe_sites == 0);

  SessionRequest fix = workspace.request(SessionGoal::Fix, diagnostics);
  fix.fixes_required = true;
  Session fixing;
  CHECK(run_session(std::move(fix), fixing) == SessionStatus::Refused);
}

TEST_CASE("the baseline a session writes hides known findings from the next one but not from the assessment",
          "[session]") {
  Workspace workspace;
  const std::string baseline = (fs::path(workspace.directory.path()) / "baseline").string();
  std::ostringstream diagnostics;
  SessionRequest write = workspace.request(SessionGoal::WriteBaseline, diagnostics);
  write.workflow.write_baseline_path = baseline;
  Session written;
  REQUIRE(run_session(std::move(write), written) == SessionStatus::BaselineWritten);
  REQUIRE(fs::is_regular_file(baseline));

  SessionRequest scan = workspace.request(SessionGoal::Assess, diagnostics);
  scan.workflow.baseline_path = baseline;
  Session session;
  REQUIRE(run_session(std::move(scan), session) == SessionStatus::Ok);
  CHECK_FALSE(has_rule(session.result, "MPS201"));
  CHECK(session.result.workflow.baseline_known == 1);
  CHECK(session.assessment.effort.open_findings == 1);
  CHECK(diagnostics.str().empty());
}

TEST_CASE("a fix session keeps every finding and makes no assessment", "[session]") {
  Workspace workspace;
  std::ostringstream diagnostics;
  SessionRequest request = workspace.request(SessionGoal::Fix, diagnostics);
  request.workflow.baseline_path = "does-not-exist"; // fix ignores baselines
  bool checked = false;
  request.check_catalogs = [&](const RuleCatalog &catalog, const FixCatalog &fixes) {
    checked = catalog.find("MPS201") && !fixes.definitions().empty();
    return true;
  };
  Session session;
  REQUIRE(run_session(std::move(request), session) == SessionStatus::Ok);
  CHECK(checked);
  CHECK(has_rule(session.result, "MPS201"));
  CHECK(session.assessment.effort.open_findings == 0);
}
