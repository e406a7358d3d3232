// rules/packages.toml (package knowledge) and the package rules of
// rules/dependencies.toml must never drift apart.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/confined_file.h"
#include "core/text.h"
#include "frontend/manifest/package_knowledge.h"
#include "rules/engine.h"
#include "rules/rule.h"

using namespace mpsaudit;
using namespace mpsaudit::manifest;

namespace {

std::string read_source_file(const std::string &relative) {
  return read_whole_file(std::string(MPSAUDIT_SOURCE_DIR) + "/" + relative).value_or("");
}

PackageKnowledge load_knowledge() {
  std::vector<Diagnostic> diagnostics;
  PackageKnowledge knowledge =
      parse_package_knowledge(read_source_file("rules/packages.toml"), "rules/packages.toml", diagnostics);
  for (const auto &diagnostic : diagnostics)
    FAIL_CHECK(diagnostic.path << ":" << diagnostic.line << ": " << diagnostic.message);
  return knowledge;
}

} // namespace

TEST_CASE("the compiled-in package knowledge is the checked-in file", "[manifest][packages]") {
  CHECK(embedded_packages_toml() == read_source_file("rules/packages.toml"));
  CHECK(package_knowledge().packages.size() == load_knowledge().packages.size());
}

TEST_CASE("package entries are complete and use known values", "[manifest][packages]") {
  const PackageKnowledge knowledge = load_knowledge();
  REQUIRE(knowledge.packages.size() > 40);
  const std::set<std::string> statuses{"none", "partial", "cpu-only", "mps", "n/a"};
  const std::set<std::string> efforts{"", "trivial", "small", "medium", "large", "blocker"};
  std::set<std::string> names;
  for (const PackageEntry &entry : knowledge.packages) {
    INFO("package " << entry.name);
    CHECK(names.insert(entry.name).second);
    CHECK(statuses.count(entry.status) == 1);
    CHECK(efforts.count(entry.effort) == 1);
    CHECK((entry.ecosystem == "pypi" || entry.ecosystem == "conda"));
    // A package that does not fully work on a Mac is reported by a rule and
    // says why (sources) and what to do instead (alternative).
    if (entry.status == "none" || entry.status == "partial" || entry.status == "cpu-only") {
      CHECK_FALSE(entry.rule.empty());
      CHECK_FALSE(entry.sources.empty());
      CHECK_FALSE(entry.alternative.empty());
      CHECK_FALSE(entry.effort.empty());
    }
  }
}

TEST_CASE("every knowledge package is matched by exactly its rule, and every rule name by a package",
          "[manifest][packages]") {
  const PackageKnowledge knowledge = load_knowledge();
  std::vector<Diagnostic> diagnostics;
  RuleCatalog catalog;
  catalog.load_text(read_source_file("rules/dependencies.toml"), "rules/dependencies.toml", diagnostics);
  REQUIRE(diagnostics.empty());

  std::set<std::string> knowledge_rules;
  for (const auto &entry : knowledge.packages)
    if (!entry.rule.empty())
      knowledge_rules.insert(entry.rule);
  REQUIRE(knowledge_rules.size() >= 4);

  const auto rule_matches = [&](const std::string &id, const std::string &package) {
    const Rule *rule = catalog.find(id);
    REQUIRE(rule);
    for (const auto &pattern : rule->match.names)
      if (glob_match(pattern, package))
        return true;
    return false;
  };

  for (const auto &entry : knowledge.packages) {
    INFO("package " << entry.name);
    for (const auto &id : knowledge_rules) {
      INFO("rule " << id);
      CHECK(rule_matches(id, entry.name) == (id == entry.rule));
    }
  }
  for (const auto &id : knowledge_rules) {
    const Rule *rule = catalog.find(id);
    REQUIRE(rule);
    CHECK(rule->match.kinds == std::vector<std::string>{"dependency"});
    for (const auto &pattern : rule->match.names) {
      INFO("rule " << id << " name " << pattern);
      bool known = false;
      for (const auto &entry : knowledge.packages)
        known = known || (entry.rule == id && glob_match(pattern, entry.name));
      CHECK(known);
      CHECK(normalize_package_name(pattern) == pattern);
    }
  }
}

TEST_CASE("import names of distributions", "[manifest][packages]") {
  const PackageKnowledge &knowledge = package_knowledge();
  CHECK(knowledge.imports_of("faiss-gpu") == std::vector<std::string>{"faiss"});
  CHECK(knowledge.imports_of("opencv-python") == std::vector<std::string>{"cv2"});
  CHECK(knowledge.imports_of("cupy-cuda12x") == std::vector<std::string>{"cupy", "cupyx"});
  CHECK(knowledge.imports_of("ninja").empty());
  CHECK(knowledge.imports_of("some-unknown-pkg") == std::vector<std::string>{"some_unknown_pkg"});
  REQUIRE(knowledge.find("nvidia-cublas-cu12"));
  CHECK(knowledge.find("nvidia-cublas-cu12")->rule == "MPS707");
  CHECK(knowledge.find("torch")->mac_since == "1.12");
}

TEST_CASE("dependency facts carry the knowledge base's status", "[manifest][packages]") {
  Fact fact;
  fact.kind = "dependency";
  fact.name = "faiss-gpu";
  annotate_dependency(fact);
  REQUIRE(fact.attribute("mac_status"));
  CHECK(*fact.attribute("mac_status") == "none");
  CHECK(*fact.attribute("alternative") == "faiss-cpu");

  Fact plain;
  plain.kind = "dependency";
  plain.name = "numpy";
  annotate_dependency(plain);
  CHECK(plain.attributes.empty());
}

TEST_CASE("malformed package knowledge is diagnosed with its line", "[manifest][packages][malformed]") {
  std::vector<Diagnostic> diagnostics;
  parse_package_knowledge("[[package]]\nname = \"Flash_Attn\"\n[[package]]\nstatus = \"none\"\n", "x.toml",
                          diagnostics);
  REQUIRE(diagnostics.size() == 2);
  CHECK(diagnostics[0].code == "unnormalised-name");
  CHECK(diagnostics[0].line == 1);
  CHECK(diagnostics[1].code == "missing-key");
  CHECK(diagnostics[1].line == 3);

  diagnostics.clear();
  parse_package_knowledge("[[package]\n", "x.toml", diagnostics);
  REQUIRE(diagnostics.size() == 1);
  CHECK(diagnostics[0].line == 1);
}
