// Every rule carries examples of code it must flag and code it must leave
// alone (as ast-grep's rule tests do). This test runs them all.
#include <algorithm>

#include <catch2/catch.hpp>

#include "../test_support.h"

using namespace mpsaudit;

TEST_CASE("every rule's own examples behave as stated", "[rules][examples]") {
  const RuleCatalog &catalog = testing::repository_catalog();
  REQUIRE(catalog.rules().size() > 40);
  for (const Rule &rule : catalog.rules()) {
    if (!rule.examples_waived.empty())
      continue; // binary inputs; covered by the front end's unit tests
    if (find_extractor(rule.kinds.front()) == nullptr)
      continue; // optional front end not built in this configuration
    const bool has_flag = std::any_of(rule.examples.begin(), rule.examples.end(), [](auto &e) { return e.must_flag; });
    const bool has_pass = std::any_of(rule.examples.begin(), rule.examples.end(), [](auto &e) { return !e.must_flag; });
    INFO("rule " << rule.id << " (" << rule.origin << ")");
    CHECK(has_flag);
    CHECK(has_pass);
    for (const RuleExample &example : rule.examples) {
      INFO((example.must_flag ? "flag" : "pass") << " example:\n" << example.code);
      const auto findings = testing::findings_for(example.kind, example.code);
      const auto ids = testing::rule_ids(findings);
      const bool fired = std::find(ids.begin(), ids.end(), rule.id) != ids.end();
      CHECK(fired == example.must_flag);
    }
  }
}

TEST_CASE("rule IDs are unique, prefixed by their family, and documented", "[rules]") {
  const RuleCatalog &catalog = testing::repository_catalog();
  for (const Rule &rule : catalog.rules()) {
    INFO(rule.id);
    CHECK(rule.id.rfind("MPS", 0) == 0);
    CHECK(rule.id.size() == 6);
    CHECK_FALSE(rule.why.empty());
    CHECK_FALSE(rule.replacement.empty());
    CHECK_FALSE(rule.sources.empty());
    const auto family = std::find_if(catalog.families().begin(), catalog.families().end(),
                                     [&](const RuleFamily &f) { return f.name == rule.family; });
    REQUIRE(family != catalog.families().end());
    CHECK(rule.id.rfind(family->prefix, 0) == 0);
  }
}
