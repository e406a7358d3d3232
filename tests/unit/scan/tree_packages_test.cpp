// The tree's own packages (scan/tree_packages.h): packages at the root or
// under src/ or python/ are the tree's; vendored copies, plain modules and
// names no import can spell are not.
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "core/temporary_directory.h"
#include "scan/tree_packages.h"

using namespace mpsaudit;
namespace fs = std::filesystem;

namespace {

void write(const fs::path &path) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << "\n";
}

} // namespace

TEST_CASE("the tree's own packages are those at its root or in a source folder", "[scan][tree-packages]") {
  TemporaryDirectory tree("mpsaudit-tree-packages-");
  REQUIRE(tree.created());
  const fs::path root = tree.path();
  write(root / "fastlib" / "__init__.py");
  write(root / "fastlib" / "ops.py");
  write(root / "src" / "srclib" / "__init__.py");
  write(root / "python" / "pylib" / "__init__.py");
  write(root / "third_party" / "vendored" / "vendored" / "__init__.py");
  write(root / "scripts" / "__init__.py.txt");
  write(root / "train.py");
  fs::create_directories(root / "namespace_only");

  const TreePackages packages(root.string());
  CHECK(packages.provides("fastlib"));
  CHECK(packages.provides("fastlib.ops.fused"));
  CHECK(packages.provides("srclib.layers"));
  CHECK(packages.provides("pylib"));
  CHECK_FALSE(packages.provides("vendored")); // a copy deeper in the tree is a vendored library
  CHECK_FALSE(packages.provides("third_party"));
  CHECK_FALSE(packages.provides("train")); // a module file, not a package
  CHECK_FALSE(packages.provides("namespace_only"));
  CHECK_FALSE(packages.provides("scripts"));
  CHECK_FALSE(packages.provides("triton"));
  // Relative imports and names no import statement can spell.
  CHECK_FALSE(packages.provides(".fastlib"));
  CHECK_FALSE(packages.provides(""));
  CHECK_FALSE(packages.provides("../fastlib"));
  CHECK_FALSE(packages.provides("fast lib"));
  // Asked twice, answered the same (the answers are remembered).
  CHECK(packages.provides("fastlib"));
  CHECK_FALSE(packages.provides("vendored"));

  CHECK_FALSE(TreePackages("").provides("fastlib"));
}
