// A rules file whose [family] and [[rule]] are both misspelt would add no
// rule at all: it is an error with a did-you-mean, while a knowledge table
// (packages.toml, fixes.toml) that shares the folder still loads quietly.
#include <catch2/catch.hpp>

#include "../test_support.h"

using namespace mpsaudit;

namespace {

std::vector<Diagnostic> load(const std::string &text) {
  RuleCatalog catalog;
  std::vector<Diagnostic> diagnostics;
  catalog.load_text(text, "rules/extra.toml", diagnostics);
  CHECK(catalog.rules().empty());
  return diagnostics;
}

} // namespace

TEST_CASE("a rules file with [familly] and [[rulle]] is an error naming the near miss", "[rules][catalog]") {
  const auto diagnostics = load("[familly]\nname = \"x\"\n\n[[rulle]]\nid = \"MPS990\"\n");
  REQUIRE(diagnostics.size() == 1);
  CHECK(diagnostics[0].level == DiagnosticLevel::Error);
  CHECK(diagnostics[0].path == "rules/extra.toml");
  CHECK(diagnostics[0].line == 1);
  CHECK(diagnostics[0].message.find("'familly' at the top level: did you mean [family]?") !=
        std::string::npos);
}

TEST_CASE("[[rules]] alone is caught too", "[rules][catalog]") {
  const auto diagnostics = load("[[rules]]\nid = \"MPS990\"\n");
  REQUIRE(diagnostics.size() == 1);
  CHECK(diagnostics[0].message.find("did you mean [[rule]]?") != std::string::npos);
}

TEST_CASE("a knowledge table with other keys loads without a word", "[rules][catalog]") {
  CHECK(load("[[package]]\nname = \"triton\"\n\n[[release]]\nversion = \"2.6\"\n").empty());
  CHECK(load("[trivial]\nper_site = [0.05, 0.15]\n[large]\nper_fix = [1, 2]\n").empty());
}
