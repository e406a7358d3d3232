// The scan pipeline: discovery, bad input, determinism.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "../scratch_tree.h"
#include "../test_support.h"
#include "scan/discover.h"
#include "scan/scan.h"

using namespace mpsaudit;
namespace fs = std::filesystem;

namespace {

const Diagnostic *diagnostic_for(const ScanResult &result, const std::string &path, const std::string &code) {
  for (const auto &diagnostic : result.diagnostics)
    if (diagnostic.path == path && diagnostic.code == code)
      return &diagnostic;
  return nullptr;
}

bool has_finding(const ScanResult &result, const std::string &path, const std::string &rule) {
  return std::any_of(result.findings.begin(), result.findings.end(),
                     [&](const Finding &f) { return f.path == path && f.rule_id == rule; });
}

ScanResult scan_tree(const fs::path &root, unsigned jobs = 2, bool use_git = false) {
  ScanOptions options;
  options.paths = {root.string()};
  options.jobs = jobs;
  options.use_git = use_git;
  return run_scan(options, testing::repository_catalog());
}

const std::string kCudaCall = "import torch\ntorch.cuda.synchronize()\n";

} // namespace

TEST_CASE("bad inputs get a diagnostic naming the file and never hide other findings", "[scan][robustness]") {
  testing::ScratchTree tree;
  tree.write("good.py", kCudaCall);
  tree.write("binary.py", std::string("import torch\0\x01\x02", 15) + "torch.cuda.synchronize()\n");
  tree.write("bad_utf8.py", "# caf\xe9\nimport torch\ntorch.cuda.synchronize()\n");
  tree.write("broken.ipynb", "{\"cells\": [ {\"cell_type\": \"code\", ");
  tree.write("huge.py", std::string(50u << 20, '#'));
  fs::create_symlink("loop.py", tree.root() / "loop.py");
  fs::create_directory_symlink(".", tree.root() / "self");
  fs::create_symlink("missing.py", tree.root() / "dangling.py");

  const ScanResult result = scan_tree(tree.root());
  CHECK(has_finding(result, "good.py", "MPS101"));
  CHECK(has_finding(result, "bad_utf8.py", "MPS101"));
  CHECK_FALSE(has_finding(result, "binary.py", "MPS101"));
  CHECK(diagnostic_for(result, "binary.py", "binary-file"));
  const Diagnostic *utf8 = diagnostic_for(result, "bad_utf8.py", "invalid-utf8");
  REQUIRE(utf8);
  CHECK(utf8->line == 1);
  const Diagnostic *notebook = diagnostic_for(result, "broken.ipynb", "invalid-json");
  REQUIRE(notebook);
  CHECK(notebook->level == DiagnosticLevel::Error);
  CHECK(diagnostic_for(result, "huge.py", "file-too-large"));
  CHECK(diagnostic_for(result, "loop.py", "broken-symlink"));
  CHECK(diagnostic_for(result, "dangling.py", "broken-symlink"));
  CHECK(diagnostic_for(result, "self", "symlink-directory"));
  CHECK(result.has_errors()); // the broken notebook is an error: exit code 3
}

TEST_CASE("an unreadable file is reported and the rest is scanned", "[scan][robustness]") {
  testing::ScratchTree tree;
  tree.write("good.py", kCudaCall);
  const fs::path secret = tree.write("secret.py", kCudaCall);
  tree.write("locked/inner.py", kCudaCall);
  fs::permissions(secret, fs::perms::none);
  fs::permissions(tree.root() / "locked", fs::perms::none);
  const auto check = [&]() -> bool {
    const ScanResult result = scan_tree(tree.root());
    return has_finding(result, "good.py", "MPS101") && !has_finding(result, "secret.py", "MPS101") &&
           diagnostic_for(result, "secret.py", "unreadable") != nullptr &&
           diagnostic_for(result, "locked", "unreadable-directory") != nullptr && result.has_errors();
  };
  if (geteuid() != 0) {
    CHECK(check());
    return;
  }
  // Root reads everything: run the scan as an unprivileged user in a child.
  testing::repository_catalog(); // load before dropping privileges
  fs::permissions(tree.root(), fs::perms::all);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    if (setgid(65534) != 0 || setuid(65534) != 0)
      _exit(2);
    _exit(check() ? 0 : 1);
  }
  int status = 0;
  waitpid(child, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("results are identical whatever the thread count", "[scan][determinism]") {
  testing::ScratchTree tree;
  for (int i = 0; i < 40; ++i)
    tree.write("pkg" + std::to_string(i % 5) + "/m" + std::to_string(i) + ".py",
               "import torch\nx = torch.zeros(3).cuda()\ntorch.cuda.synchronize()\n" + std::string(i, '\n') +
                   "y = torch.load('a')\n");
  const ScanResult one = scan_tree(tree.root(), 1);
  const ScanResult two = scan_tree(tree.root(), 2);
  const ScanResult many = scan_tree(tree.root(), 7);
  const auto keys = [](const ScanResult &r) {
    std::vector<std::string> out;
    for (const auto &f : r.findings)
      out.push_back(f.path + ":" + std::to_string(f.span.line) + ":" + std::to_string(f.span.column) +
                    f.rule_id);
    return out;
  };
  REQUIRE(keys(one).size() == 120);
  CHECK(keys(one) == keys(two));
  CHECK(keys(one) == keys(many));
  // The torch API uses too: each with its first use in scan order and the
  // count over all files, however the files were spread over threads.
  const auto uses = [](const ScanResult &r) {
    std::vector<std::string> out;
    for (const auto &use : r.api_uses)
      out.push_back(use.name + "@" + use.path + ":" + std::to_string(use.line) + "x" +
                    std::to_string(use.count));
    return out;
  };
  const std::vector<std::string> expected_uses = uses(one);
  CHECK(std::find(expected_uses.begin(), expected_uses.end(), "torch.cuda.synchronize@pkg0/m0.py:3x40") !=
        expected_uses.end());
  CHECK(uses(two) == expected_uses);
  CHECK(uses(many) == expected_uses);
}

TEST_CASE("inside a git work tree, ignored files are not scanned", "[scan][discovery]") {
  REQUIRE(std::system("git --version >/dev/null 2>&1") == 0); // scripts/setup installs git
  testing::ScratchTree tree;
  tree.write("tracked.py", kCudaCall);
  tree.write("untracked.py", kCudaCall);
  tree.write("build/generated.py", kCudaCall);
  tree.write(".gitignore", "build/\n");
  const std::string root = tree.root().string();
  REQUIRE(std::system(
              ("git -C '" + root + "' init -q && git -C '" + root + "' add tracked.py .gitignore").c_str()) ==
          0);
  const Discovery discovery = discover_files(root, true);
  CHECK(discovery.used_git);
  std::vector<std::string> paths;
  for (const auto &file : discovery.files)
    paths.push_back(file.path);
  CHECK(paths == std::vector<std::string>{"tracked.py", "untracked.py"});
  const Discovery walked = discover_files(root, false);
  CHECK(walked.files.size() == 3);
}

TEST_CASE("a single file can be scanned by path", "[scan][discovery]") {
  testing::ScratchTree tree;
  const fs::path file = tree.write("one.py", kCudaCall);
  const ScanResult result = scan_tree(file);
  REQUIRE(result.findings.size() == 1);
  CHECK(result.findings.front().path == "one.py");
}

TEST_CASE("a scan reports its phases and ends merging", "[scan][progress]") {
  testing::ScratchTree tree;
  for (int i = 0; i < 25; ++i)
    tree.write("pkg/m" + std::to_string(i) + ".py", kCudaCall);
  ScanOptions options;
  options.paths = {tree.root().string()};
  options.jobs = 4;
  options.use_git = false;
  ScanProgress progress;
  options.progress = &progress;
  // What the progress says while the files' facts are filtered, which
  // happens in the reading and in the late-rules phase.
  std::mutex mutex;
  std::set<std::pair<std::string, std::size_t>> seen; // phase, total
  std::size_t most_done = 0;
  options.retain_fact = [&](const Fact &) {
    const std::lock_guard<std::mutex> lock(mutex);
    seen.emplace(progress.phase.load(), progress.total.load());
    most_done = std::max(most_done, progress.done.load());
    return FactRetention::Keep;
  };
  const ScanResult result = run_scan(options, testing::repository_catalog());
  CHECK(result.files.size() == 25);
  CHECK(seen.count({"reading", 25}) == 1);
  CHECK(seen.count({"late rules", 25}) == 1);
  CHECK(most_done > 0);
  CHECK(most_done < 25); // a file is counted after its facts are filtered
  CHECK(std::string(progress.phase.load()) == "merging");
  // Merging counts no files: the phase before it reset the count.
  CHECK(progress.total.load() == 0);
  CHECK(progress.done.load() == 0);
}

TEST_CASE("paths start from the scanned directory; a single file's directory, never the file",
          "[scan][paths]") {
  testing::ScratchTree tree;
  tree.write("pkg/eval/linear.py", kCudaCall);
  const std::string directory = (tree.root() / "pkg" / "eval").string();
  const ScanResult by_file = scan_tree(tree.root() / "pkg" / "eval" / "linear.py");
  CHECK(by_file.root_directory == directory);
  CHECK(path_for_display(by_file, "linear.py") == directory + "/linear.py");
  const ScanResult by_directory = scan_tree(tree.root() / "pkg");
  CHECK(by_directory.root_directory == (tree.root() / "pkg").string());
  CHECK(has_finding(by_directory, "eval/linear.py", "MPS101"));
  CHECK(path_for_display(by_directory, "eval/linear.py") ==
        (tree.root() / "pkg").string() + "/eval/linear.py");
  CHECK(directory_of_root("linear.py") == ".");
  CHECK(directory_of_root("") == ".");
}

TEST_CASE("kept facts: whole, once per name and scope, once per file, or dropped", "[scan][retention]") {
  testing::ScratchTree tree;
  tree.write("train.py", "import torch\n"
                         "def first(loss, opt):\n"
                         "    loss.backward()\n"
                         "    opt.step()\n"
                         "def second(loss, opt):\n"
                         "    loss.backward()\n"
                         "    loss.backward()\n"
                         "    opt.step()\n"
                         "opt.step()\n");
  ScanOptions options;
  options.paths = {tree.root().string()};
  options.use_git = false;
  options.retain_fact = [](const Fact &fact) {
    if (fact.kind != "call")
      return FactRetention::Drop;
    if (fact.name == "loss.backward")
      return FactRetention::Presence;
    if (fact.name == "opt.step")
      return FactRetention::NameOnly;
    return FactRetention::Drop;
  };
  const ScanResult result = run_scan(options, testing::repository_catalog());
  REQUIRE(result.project_files.size() == 1);
  std::vector<std::pair<std::string, std::uint32_t>> backward;
  std::vector<std::pair<std::string, std::uint32_t>> step;
  for (const Fact &fact : result.project_files.front().facts.facts) {
    CHECK(fact.arguments.empty());
    if (fact.name == "loss.backward")
      backward.emplace_back(fact.scope.str(), fact.span.line);
    if (fact.name == "opt.step")
      step.emplace_back(fact.scope.str(), fact.span.line);
  }
  // Presence: the first place only, whatever the scope.
  CHECK(backward == std::vector<std::pair<std::string, std::uint32_t>>{{"first", 3}});
  // NameOnly: once per scope (and guard), each at its first place.
  CHECK(step == std::vector<std::pair<std::string, std::uint32_t>>{{"first", 4}, {"second", 8}, {"", 9}});
}

TEST_CASE("paths read from the current directory, for one root and for several", "[scan][paths]") {
  ScanResult one;
  one.display_prefix = "repo/";
  CHECK(path_for_display(one, "ops/fused.py") == "repo/ops/fused.py");
  CHECK(path_for_display(one, "ops/fused.py:3") == "repo/ops/fused.py:3");
  CHECK(directory_for_display(one, ".") == "repo");
  CHECK(directory_for_display(one, "ops") == "repo/ops");

  ScanResult top; // `scan .`
  CHECK(path_for_display(top, "train.py") == "train.py");
  CHECK(directory_for_display(top, ".") == ".");

  // `scan first second b.py`: a later root's paths carry their root already,
  // and a later file root in the current directory is its own name; the first
  // root's paths get its prefix, also a folder whose name only starts like a
  // later root's.
  ScanResult several;
  several.display_prefix = "first/";
  several.other_root_prefixes = {"second/", "b.py"};
  const std::vector<std::pair<std::string, std::string>> shown{{"train.py", "first/train.py"},
                                                               {"second/train.py", "second/train.py"},
                                                               {"b.py", "b.py"},
                                                               {"b.py:12", "b.py:12"},
                                                               {"b.pyc", "first/b.pyc"}};
  for (const auto &[path, expected] : shown)
    CHECK(path_for_display(several, path) == expected);
  CHECK(directory_for_display(several, "second") == "second");
  CHECK(directory_for_display(several, "seconds") == "first/seconds");
}
