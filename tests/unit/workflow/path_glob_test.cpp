// Path globs of the config: .gitignore-style segments, ** and directories.
#include <catch2/catch.hpp>

#include <string>

#include "workflow/path_glob.h"

using mpsaudit::path_pattern_match;

TEST_CASE("a pattern without a slash matches a name at any depth", "[glob]") {
  CHECK(path_pattern_match("*_test.py", "a_test.py"));
  CHECK(path_pattern_match("*_test.py", "pkg/sub/a_test.py"));
  CHECK_FALSE(path_pattern_match("*_test.py", "pkg/a_test.pyc"));
  CHECK(path_pattern_match("third_party", "third_party/lib/x.cu"));
  CHECK(path_pattern_match("third_party", "src/third_party/x.cu"));
}

TEST_CASE("a pattern with a slash is anchored at the root", "[glob]") {
  CHECK(path_pattern_match("src/*.py", "src/a.py"));
  CHECK_FALSE(path_pattern_match("src/*.py", "src/sub/a.py")); // * stays in its segment
  CHECK_FALSE(path_pattern_match("src/*.py", "lib/src/a.py"));
  CHECK(path_pattern_match("/setup.py", "setup.py"));
  CHECK_FALSE(path_pattern_match("/setup.py", "pkg/setup.py"));
}

TEST_CASE("** spans any number of segments, including none", "[glob]") {
  CHECK(path_pattern_match("src/**/*.py", "src/a.py"));
  CHECK(path_pattern_match("src/**/*.py", "src/x/y/a.py"));
  CHECK(path_pattern_match("src/**", "src/x/y/a.py"));
  CHECK(path_pattern_match("**/tests", "a/b/tests/t.py"));
  CHECK_FALSE(path_pattern_match("src/**/*.py", "lib/a.py"));
}

TEST_CASE("directories match everything beneath them", "[glob]") {
  CHECK(path_pattern_match("vendor/", "vendor/x/y.py"));
  CHECK(path_pattern_match("docs/api", "docs/api/index.md"));
  CHECK_FALSE(path_pattern_match("docs/api", "docs/apis/index.md"));
}

TEST_CASE("? and character classes stay within a segment", "[glob]") {
  CHECK(path_pattern_match("train?.py", "train1.py"));
  CHECK_FALSE(path_pattern_match("a?b", "a/b"));
  CHECK(path_pattern_match("model_[ab].py", "model_a.py"));
  CHECK_FALSE(path_pattern_match("model_[!ab].py", "model_a.py"));
  CHECK(path_pattern_match("model_[0-9].py", "model_7.py"));
  CHECK(path_pattern_match("weird[", "weird["));
}

TEST_CASE("a star before a double star backtracks", "[glob]") {
  CHECK(path_pattern_match("exp*/**/run.sh", "exp_2024/a/b/run.sh"));
  CHECK_FALSE(path_pattern_match("exp*/**/run.sh", "other/a/run.sh"));
}

// Backtracking over many "**" took exponential time: tests/fuzz/fuzz_config
// found a config whose exclude glob of 120 stars hung the scan. Such patterns
// now go to an automaton whose cost is bounded by pattern x path length.
TEST_CASE("patterns with many stars and double stars answer quickly", "[glob][robustness]") {
  const std::string stars(120, '*');
  CHECK_FALSE(path_pattern_match(stars + ")/legacy", "src/a/b/c/d/e/f/g/h/i/j/k.py"));
  CHECK(path_pattern_match(stars + "/legacy", "src/a/b/legacy/k.py"));
  std::string nested, path;
  for (int i = 0; i < 30; ++i)
    nested += "**/a/";
  for (int i = 0; i < 60; ++i)
    path += "a/";
  CHECK_FALSE(path_pattern_match(nested + "b", path + "c"));
  CHECK(path_pattern_match(nested + "b", path + "b"));
  CHECK(path_pattern_match(nested + "*", path + "x.py"));
  CHECK_FALSE(path_pattern_match(std::string(60, '*') + "?[ab]*x", std::string(200, 'a')));
  CHECK(path_pattern_match(std::string(60, '*') + "?[ab]*x", std::string(200, 'a') + "x"));
}
