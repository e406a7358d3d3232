// Writing fixes (write_fixes): a file changed between fix's last read and
// its rename is kept as the other editor left it; a second fix of a file
// another fix holds finds it locked; a failed write is not counted as
// written; reading never follows a symlink out of the tree. The end-to-end
// attacks are in tests/e2e/security/fix_*.sh.
#include <catch2/catch.hpp>

#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <sstream>

#include "../scratch_tree.h"
#include "../test_support.h"
#include "core/confined_file.h"
#include "fix/fix.h"
#include "fix/fix_files.h"
#include "scan/scan.h"

using namespace mpsaudit;
namespace fs = std::filesystem;

namespace {

// A scratch tree that also reads a file back and plans a fix of it.
class TempTree : public testing::ScratchTree {
public:
  TempTree() : ScratchTree("mpsaudit-fix-write") {}
  std::string read(const std::string &relative) const {
    return read_whole_file(root() / relative).value_or("");
  }
  // A planned fix of `relative`, read as plan_fixes reads it.
  FileFix plan(const std::string &relative, const std::string &fixed) const {
    Diagnostic problem;
    const auto location = resolve_in_tree(root().string(), relative, problem);
    REQUIRE(location);
    FileFix fix;
    fix.path = relative;
    fix.location = *location;
    std::string error;
    const auto text = read_in_tree(*location, fix.identity, error);
    REQUIRE(text);
    fix.original = *text;
    fix.fixed = fixed;
    Finding finding;
    finding.path = relative;
    finding.rule_id = "MPS201";
    fix.fixes.push_back({finding, FixSafety::Safe, "test"});
    return fix;
  }
};

const std::string kOriginal = "x = t.cuda()\n";
const std::string kFixed = "x = t.to(device)\n";

bool has_code(const std::vector<Diagnostic> &diagnostics, const std::string &code) {
  return std::any_of(diagnostics.begin(), diagnostics.end(),
                     [&](const Diagnostic &diagnostic) { return diagnostic.code == code; });
}

bool no_temporary_left(const fs::path &root) {
  for (const auto &entry : fs::directory_iterator(root))
    if (entry.path().filename().string().rfind(".mpsaudit-fix-", 0) == 0)
      return false;
  return true;
}

} // namespace

TEST_CASE("a file is replaced with the fixed text", "[fix][write]") {
  TempTree tree;
  tree.write("a.py", kOriginal);
  FixRun run;
  run.files.push_back(tree.plan("a.py", kFixed));
  std::vector<Diagnostic> diagnostics;
  CHECK(write_fixes(run, diagnostics));
  CHECK(diagnostics.empty());
  CHECK(tree.read("a.py") == kFixed);
  CHECK(run.files.size() == 1);
  CHECK(run.files_not_written == 0);
  CHECK(no_temporary_left(tree.root()));
}

TEST_CASE("an edit saved between fix's last read and its rename is kept", "[fix][write]") {
  TempTree tree;
  tree.write("a.py", kOriginal);
  const std::string edit = GENERATE(as<std::string>{}, "in place", "new file renamed over it");
  INFO(edit);
  const std::string saved = "x = t.cuda()  # edited meanwhile\n";
  FixWriteHooks hooks;
  hooks.before_rename = [&](const FileFix &) {
    if (edit == "in place") {
      tree.write("a.py", saved);
    } else {
      tree.write("a.py.new", saved);
      fs::rename(tree.root() / "a.py.new", tree.root() / "a.py");
    }
  };
  FixRun run;
  run.files.push_back(tree.plan("a.py", kFixed));
  std::vector<Diagnostic> diagnostics;
  CHECK_FALSE(write_fixes(run, diagnostics, &hooks));
  CHECK(tree.read("a.py") == saved);
  CHECK(has_code(diagnostics, "file-changed"));
  // The summary counts what was written: nothing.
  CHECK(run.files.empty());
  CHECK(run.applied_count() == 0);
  CHECK(run.files_not_written == 1);
  REQUIRE(run.skipped.size() == 1);
  CHECK(run.skipped.front().reason.find("changed since fix read it") != std::string::npos);
  CHECK(no_temporary_left(tree.root()));
}

TEST_CASE("a file changed before fix starts writing is not written", "[fix][write]") {
  TempTree tree;
  tree.write("a.py", kOriginal);
  FixRun run;
  run.files.push_back(tree.plan("a.py", kFixed));
  tree.write("a.py", "x = t.cuda()  # same length\n");
  std::vector<Diagnostic> diagnostics;
  CHECK_FALSE(write_fixes(run, diagnostics));
  CHECK(tree.read("a.py") == "x = t.cuda()  # same length\n");
  CHECK(has_code(diagnostics, "file-changed"));
  CHECK(run.files.empty());
}

TEST_CASE("a file changed since the scan read it is not planned", "[fix][write]") {
  // Another fix run rewrote the file between this run's scan and its plan:
  // the scan's positions point into other text, and edits made from them
  // could fix a line twice.
  TempTree tree;
  const std::string scanned = "import torch\nx = torch.zeros(3).cuda()\n";
  tree.write("a.py", scanned);
  std::vector<Diagnostic> problems;
  const FixCatalog fixes = FixCatalog::load_file(testing::rules_directory() + "/fixes.toml", problems);
  REQUIRE(problems.empty());
  ScanOptions options;
  options.paths = {tree.root().string()};
  options.use_git = false;
  options.jobs = 1;
  options.keep_content_digests = true;
  const ScanResult result = run_scan(options, testing::repository_catalog());
  REQUIRE_FALSE(result.findings.empty());
  CHECK(plan_fixes(result, fixes, {}, options.paths).files.size() == 1);

  const std::string rewritten = GENERATE(as<std::string>{}, "import torch\n\nx = torch.zeros(3).cuda()\n",
                                         "import torch\nx = torch.zeros(3).cuda()  # same size\n");
  tree.write("a.py", rewritten);
  const FixRun run = plan_fixes(result, fixes, {}, options.paths);
  CHECK(run.files.empty());
  CHECK(run.files_not_written == 1);
  CHECK(has_code(run.diagnostics, "file-changed"));
  CHECK(run.skipped.size() == result.findings.size());
  CHECK(tree.read("a.py") == rewritten);

  // A scan that kept no digest cannot vouch for the bytes: nothing is planned.
  options.keep_content_digests = false;
  const FixRun unknown =
      plan_fixes(run_scan(options, testing::repository_catalog()), fixes, {}, options.paths);
  CHECK(unknown.files.empty());
  CHECK(has_code(unknown.diagnostics, "file-changed"));
}

TEST_CASE("two fixes of one file: the second finds it locked, then replaced", "[fix][write]") {
  TempTree tree;
  tree.write("a.py", kOriginal);
  const FileFix planned = tree.plan("a.py", kFixed);
  FixRun first, late;
  first.files.push_back(planned);
  late.files.push_back(planned); // planned from the same text, written after the first
  std::vector<Diagnostic> first_diagnostics, second_diagnostics, late_diagnostics;
  FixRun second;
  bool second_ok = true;
  FixWriteHooks hooks;
  hooks.before_rename = [&](const FileFix &fix) {
    // Another fix run reaches the file while this one holds it.
    second.files.push_back(fix);
    second_ok = write_fixes(second, second_diagnostics);
  };
  CHECK(write_fixes(first, first_diagnostics, &hooks));
  CHECK(first.files.size() == 1);
  CHECK_FALSE(second_ok);
  CHECK(has_code(second_diagnostics, "file-locked"));
  CHECK(second.files.empty());
  CHECK(second.files_not_written == 1);

  CHECK_FALSE(write_fixes(late, late_diagnostics));
  CHECK(has_code(late_diagnostics, "file-changed"));
  CHECK(late.files.empty());
  CHECK(tree.read("a.py") == kFixed);
  CHECK(no_temporary_left(tree.root()));
}

TEST_CASE("a write that fails (a full disk) is not counted as written", "[fix][write]") {
  // A file size limit fails the write as a full disk does (EFBIG for
  // ENOSPC), in this process alone. The limit is restored after.
  TempTree tree;
  tree.write("big.py", kOriginal);
  tree.write("small.py", kOriginal);
  FixRun run;
  run.files.push_back(tree.plan("big.py", std::string(64 * 1024, '#') + "\n"));
  run.files.push_back(tree.plan("small.py", kFixed));
  struct rlimit saved {};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &saved) == 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = saved;
  small.rlim_cur = 16 * 1024;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  std::vector<Diagnostic> diagnostics;
  const bool ok = write_fixes(run, diagnostics);
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, old_handler);
  CHECK_FALSE(ok);
  CHECK(has_code(diagnostics, "write-failed"));
  CHECK(tree.read("big.py") == kOriginal);
  CHECK(tree.read("small.py") == kFixed);
  REQUIRE(run.files.size() == 1);
  CHECK(run.files.front().path == "small.py");
  CHECK(run.applied_count() == 1);
  CHECK(run.files_not_written == 1);
  CHECK(no_temporary_left(tree.root()));
}

TEST_CASE("read-only and hard-linked files are refused, not failed", "[fix][write]") {
  TempTree tree;
  tree.write("frozen.py", kOriginal);
  fs::permissions(tree.root() / "frozen.py",
                  fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  tree.write("linked.py", kOriginal);
  fs::create_hard_link(tree.root() / "linked.py", tree.root() / "other.py");
  FixRun run;
  run.files.push_back(tree.plan("frozen.py", kFixed));
  run.files.push_back(tree.plan("linked.py", kFixed));
  std::vector<Diagnostic> diagnostics;
  CHECK(write_fixes(run, diagnostics)); // refusals on purpose are not errors
  REQUIRE(diagnostics.size() == 2);
  CHECK(diagnostics[0].code == "read-only");
  CHECK(diagnostics[0].level == DiagnosticLevel::Note);
  CHECK(diagnostics[1].code == "hard-linked");
  CHECK(diagnostics[1].level == DiagnosticLevel::Warning);
  CHECK(tree.read("frozen.py") == kOriginal);
  CHECK(tree.read("other.py") == kOriginal);
  CHECK(fs::hard_link_count(tree.root() / "linked.py") == 2);
  CHECK(run.files.empty());
  CHECK(run.files_not_written == 2);
}

TEST_CASE("paths resolve inside their tree, never through a symlink out of it", "[fix][write]") {
  TempTree tree, outside;
  outside.write("victim.py", kOriginal);
  fs::create_directory(tree.root() / "lib");
  tree.write("lib/real.py", kOriginal);
  fs::create_symlink("lib/real.py", tree.root() / "inside.py");
  fs::create_symlink(outside.root() / "victim.py", tree.root() / "escape.py");
  fs::create_directory_symlink(outside.root(), tree.root() / "escape_dir");

  Diagnostic problem;
  const auto inside = resolve_in_tree(tree.root().string(), "inside.py", problem);
  REQUIRE(inside);
  CHECK(inside->relative == "lib/real.py");
  for (const char *path : {"escape.py", "escape_dir/victim.py", "../" /* the tree's parent */}) {
    INFO(path);
    CHECK_FALSE(resolve_in_tree(tree.root().string(), path, problem));
    if (std::string(path) != "../")
      CHECK(problem.code == "outside-tree");
  }

  // A directory on the way swapped for a symlink after resolving: reading
  // refuses it rather than follow it.
  const auto real = resolve_in_tree(tree.root().string(), "lib/real.py", problem);
  REQUIRE(real);
  fs::rename(tree.root() / "lib", tree.root() / "lib.moved");
  fs::create_directory_symlink(outside.root(), tree.root() / "lib");
  outside.write("real.py", kOriginal);
  FileIdentity identity;
  std::string error;
  CHECK_FALSE(read_in_tree(*real, identity, error));
  CHECK(error.find("symbolic link") != std::string::npos);
}
