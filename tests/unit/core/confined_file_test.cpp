#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>

#include "core/confined_file.h"
#include "core/temporary_directory.h"

using namespace mpsaudit;
namespace fs = std::filesystem;

namespace {

// A scanned tree `root/` beside a file outside it.
struct Tree {
  TemporaryDirectory directory{"mpsaudit-confined-"};
  fs::path base = fs::canonical(directory.path());
  fs::path root = base / "root";
  std::vector<fs::path> roots;
  Tree() {
    fs::create_directories(root / "sub");
    std::ofstream(root / "inside.txt") << "numpy\n";
    std::ofstream(base / "secret.txt") << "password\n";
    roots = confinement_roots({root.string()});
  }
};

} // namespace

TEST_CASE("confinement roots are real directories; a scanned file stands for its directory",
          "[core][security]") {
  const Tree tree;
  REQUIRE(tree.roots.size() == 1);
  CHECK(tree.roots.front() == tree.root);
  CHECK(confinement_roots({(tree.root / "inside.txt").string()}) == std::vector<fs::path>{tree.root});
  CHECK(confinement_roots({(tree.root / "missing").string()}).empty());
}

TEST_CASE("is_within compares whole path components", "[core][security]") {
  const std::vector<fs::path> roots{"/repo"};
  CHECK(is_within("/repo", roots));
  CHECK(is_within("/repo/a/b.txt", roots));
  CHECK_FALSE(is_within("/repo-evil/a.txt", roots));
  CHECK_FALSE(is_within("/etc/passwd", roots));
  CHECK_FALSE(is_within("/", roots));
}

TEST_CASE("a file inside the tree is read", "[core][security]") {
  const Tree tree;
  const ConfinedFile file = read_confined_file(tree.root / "sub", "../inside.txt", tree.roots, 1000);
  CHECK(file.status == ConfinedStatus::Ok);
  CHECK(file.text == "numpy\n");
  CHECK(file.real_path == tree.root / "inside.txt");
}

TEST_CASE("paths outside the tree are refused before they are opened", "[core][security]") {
  const Tree tree;
  for (const char *path :
       {"../secret.txt", "/etc/passwd", "/dev/zero", "/dev/stdin", "sub/../../secret.txt"}) {
    CAPTURE(path);
    const ConfinedFile file = read_confined_file(tree.root, path, tree.roots, 1000);
    CHECK(file.status == ConfinedStatus::OutsideRoot);
    CHECK(file.text.empty());
  }
}

TEST_CASE("a symlink inside the tree that points out of it is refused", "[core][security]") {
  const Tree tree;
  fs::create_symlink(tree.base / "secret.txt", tree.root / "link.txt");
  fs::create_directory_symlink(tree.base, tree.root / "up");
  for (const char *path : {"link.txt", "up/secret.txt", "up/root/../secret.txt"}) {
    CAPTURE(path);
    const ConfinedFile file = read_confined_file(tree.root, path, tree.roots, 1000);
    CHECK(file.status == ConfinedStatus::OutsideRoot);
    CHECK(file.text.empty());
  }
  // A symlink that stays inside is followed.
  fs::create_symlink(tree.root / "inside.txt", tree.root / "sub" / "alias.txt");
  CHECK(read_confined_file(tree.root, "sub/alias.txt", tree.roots, 1000).text == "numpy\n");
}

TEST_CASE("a FIFO, a directory or a device is refused without blocking", "[core][security]") {
  const Tree tree;
  REQUIRE(::mkfifo((tree.root / "pipe").c_str(), 0600) == 0);
  const auto started = std::chrono::steady_clock::now();
  CHECK(read_confined_file(tree.root, "pipe", tree.roots, 1000).status == ConfinedStatus::NotRegular);
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(5));
  CHECK(read_confined_file(tree.root, "sub", tree.roots, 1000).status == ConfinedStatus::NotRegular);
  // The same checks guard a path the caller has already confined.
  CHECK(read_regular_file("/dev/zero", 1000).status == ConfinedStatus::NotRegular);
  CHECK(read_regular_file(tree.root / "pipe", 1000).status == ConfinedStatus::NotRegular);
}

TEST_CASE("a file over the size limit is refused; a missing one is reported", "[core][security]") {
  const Tree tree;
  std::ofstream(tree.root / "big.txt") << std::string(2000, 'x');
  const ConfinedFile big = read_confined_file(tree.root, "big.txt", tree.roots, 1000);
  CHECK(big.status == ConfinedStatus::TooLarge);
  CHECK(big.text.empty());
  CHECK(read_confined_file(tree.root, "big.txt", tree.roots, 2000).status == ConfinedStatus::Ok);
  CHECK(read_confined_file(tree.root, "absent.txt", tree.roots, 1000).status == ConfinedStatus::Missing);
  fs::create_symlink("loop", tree.root / "loop");
  CHECK(read_confined_file(tree.root, "loop", tree.roots, 1000).status == ConfinedStatus::Missing);
}
