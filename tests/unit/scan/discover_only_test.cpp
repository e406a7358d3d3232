// Discovery of known candidates (--staged, --changed-since, files named by
// pre-commit): the result must be the full discovery restricted to those
// paths, though git is asked about the candidates alone.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "../git_test_support.h"
#include "scan/discover.h"

using namespace mpsaudit;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> paths_of(const Discovery &discovery) {
  std::vector<std::string> out;
  for (const auto &file : discovery.files)
    out.push_back(file.path + "|" + file.absolute_path + "|" + std::string(to_string(file.kind)));
  return out;
}

std::vector<std::string> diagnostics_of(const Discovery &discovery, const std::set<std::string> *only) {
  std::vector<std::string> out;
  for (const auto &diagnostic : discovery.diagnostics)
    if (!only || only->count(diagnostic.path))
      out.push_back(diagnostic.path + "|" + diagnostic.code + "|" + diagnostic.message);
  return out;
}

// The full discovery, with files and diagnostics limited to `only`.
void check_same_as_full(const std::string &root, const std::vector<std::string> &only, bool use_git) {
  const Discovery full = discover_files(root, use_git);
  const Discovery narrowed = discover_files(root, use_git, &only);
  const std::set<std::string> wanted(only.begin(), only.end());
  std::vector<std::string> expected;
  for (const auto &file : full.files)
    if (wanted.count(file.path))
      expected.push_back(file.path + "|" + file.absolute_path + "|" + std::string(to_string(file.kind)));
  CHECK(paths_of(narrowed) == expected);
  CHECK(narrowed.used_git == full.used_git);
  if (use_git)
    CHECK(diagnostics_of(narrowed, nullptr) == diagnostics_of(full, &wanted));
  else // the walk names every unreadable directory, wanted or not
    CHECK(diagnostics_of(narrowed, nullptr) == diagnostics_of(full, nullptr));
}

// A repository with every kind of path a change can name.
void fill(const testing::ScratchRepository &tree) {
  tree.write("src/model.py");
  tree.write("src/old.py");
  tree.write("src/gone.py");
  tree.write("src/ghost.py");
  tree.write("requirements.txt", "torch\n");
  tree.write(".gitignore", "ignored.py\nbuild/\n");
  tree.link("src/dangling.py", "missing.py");
  tree.write("real/inner.py");
  tree.link("linked", "real");
  tree.git("add -A");
  tree.git("commit -q -m start");
  tree.write("src/model.py", "import torch\nx = 1\n");
  tree.git("mv src/old.py src/renamed.py");
  tree.git("rm -q src/gone.py");
  tree.write("src/with space/new file.py");
  tree.write("src/star[1].py");
  tree.write("src/star1.py");
  tree.write("venv/x.py");
  tree.write("ignored.py");
  tree.write("build/generated.py");
  tree.write("untracked/deep/u.py");
  tree.write("notes.bin", "x");
  tree.link("src/broken.py", "nowhere.py");
  tree.git("add -A");
  tree.git("add -f venv/x.py");
  fs::remove(fs::path(tree.root()) / "src/ghost.py");
}

} // namespace

TEST_CASE("narrowed discovery equals the full listing restricted to the candidates", "[scan][discovery]") {
  REQUIRE(std::system("git --version >/dev/null 2>&1") == 0);
  const testing::ScratchRepository tree;
  fill(tree);
  const std::vector<std::string> candidates{"src/model.py",
                                            "src/renamed.py",
                                            "src/gone.py",
                                            "src/ghost.py",
                                            "src/with space/new file.py",
                                            "src/star[1].py",
                                            "venv/x.py",
                                            "ignored.py",
                                            "build/generated.py",
                                            "untracked/deep/u.py",
                                            "requirements.txt",
                                            "src/broken.py",
                                            "src/no-such-file.py",
                                            "notes.bin",
                                            "src"};
  check_same_as_full(tree.root(), candidates, true);
  // The literal pathspec of src/star[1].py does not match src/star1.py, and
  // a directory named as a candidate does not bring in the files under it.
  const Discovery narrowed = discover_files(tree.root(), true, &candidates);
  const auto has = [&](const std::string &path) {
    return std::any_of(narrowed.files.begin(), narrowed.files.end(),
                       [&](const DiscoveredFile &file) { return file.path == path; });
  };
  CHECK(has("src/star[1].py"));
  CHECK_FALSE(has("src/star1.py"));
  CHECK(has("src/with space/new file.py"));
  CHECK(has("untracked/deep/u.py"));
  CHECK_FALSE(has("ignored.py"));
  CHECK_FALSE(has("venv/x.py"));
  CHECK_FALSE(has("src/ghost.py"));        // in the index, gone from the work tree: skipped as before
  CHECK(narrowed.diagnostics.size() == 1); // src/broken.py; src/dangling.py is not a candidate
}

TEST_CASE("narrowed discovery falls back to the full listing when git refuses a pathspec",
          "[scan][discovery]") {
  const testing::ScratchRepository tree;
  fill(tree);
  // git rejects a pathspec outside the repository; the full listing answers.
  check_same_as_full(tree.root(), {"../outside.py", "src/model.py"}, true);
  // Through a symbolic link to a directory: git lists nothing there, nor
  // does the full listing.
  check_same_as_full(tree.root(), {"linked/inner.py", "src/model.py"}, true);
  // Too many candidates for one command line: the full listing again.
  std::vector<std::string> many{"src/model.py"};
  for (int i = 0; i < 4000; ++i)
    many.push_back("pkg/a-rather-long-directory-name/module_" + std::to_string(i) + ".py");
  check_same_as_full(tree.root(), many, true);
}

TEST_CASE("narrowed discovery with no candidates finds nothing", "[scan][discovery]") {
  const testing::ScratchRepository tree;
  fill(tree);
  const std::vector<std::string> none;
  const Discovery narrowed = discover_files(tree.root(), true, &none);
  CHECK(narrowed.used_git);
  CHECK(narrowed.files.empty());
  CHECK(narrowed.diagnostics.empty());
}

TEST_CASE("without git, narrowed discovery keeps the walk's files among the candidates",
          "[scan][discovery]") {
  const testing::ScratchRepository tree;
  fill(tree);
  check_same_as_full(tree.root(),
                     {"src/model.py", "ignored.py", "src/with space/new file.py", "src/broken.py"}, false);
}
