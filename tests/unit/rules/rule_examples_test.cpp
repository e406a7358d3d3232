// Every rule carries examples of code it must flag and code it must leave
// alone (as ast-grep's rule tests do). This test runs them all and, as
// ast-grep's snapshots do, checks exactly which rules fire: a flag example
// fires its rule and the rules its `also` names, a pass example only those
// of `also`. A second rule firing where nobody said it would fails.
#include <algorithm>
#include <set>
#include <sstream>

#include <catch2/catch.hpp>

#include "../test_support.h"

using namespace mpsaudit;

namespace {

std::string joined(const std::set<std::string> &ids) {
  std::ostringstream out;
  for (const auto &id : ids)
    out << (out.tellp() > 0 ? ", " : "") << id;
  return "{" + out.str() + "}";
}

} // namespace

TEST_CASE("every rule's own examples fire exactly the rules they state", "[rules][examples]") {
  const RuleCatalog &catalog = testing::repository_catalog();
  REQUIRE(catalog.rules().size() > 40);
  for (const Rule &rule : catalog.rules()) {
    if (!rule.examples_waived.empty())
      continue; // binary inputs; covered by the front end's unit tests
    if (find_extractor(rule.kinds.front()) == nullptr)
      continue; // optional front end not built in this configuration
    const bool has_flag =
        std::any_of(rule.examples.begin(), rule.examples.end(), [](auto &e) { return e.must_flag; });
    const bool has_pass =
        std::any_of(rule.examples.begin(), rule.examples.end(), [](auto &e) { return !e.must_flag; });
    INFO("rule " << rule.id << " (" << rule.origin << ")");
    CHECK(has_flag);
    CHECK(has_pass);
    for (std::size_t index = 0; index < rule.examples.size(); ++index) {
      const RuleExample &example = rule.examples[index];
      INFO((example.must_flag ? "flag" : "pass") << " example " << index + 1 << ":\n" << example.code);
      const auto ids = testing::rule_ids(testing::findings_for(example.kind, example.code));
      const std::set<std::string> fired(ids.begin(), ids.end());
      std::set<std::string> expected(example.also.begin(), example.also.end());
      if (example.must_flag)
        expected.insert(rule.id);
      CHECK(joined(fired) == joined(expected));
      if (fired != expected) {
        std::set<std::string> others = fired;
        others.erase(rule.id);
        // What to write if the other rules are right (else fix the rules).
        WARN("example " << index + 1 << " of " << rule.id << ": also = " << joined(others));
      }
    }
  }
}

TEST_CASE("an example's `also` names other rules of the catalog", "[rules][examples]") {
  const RuleCatalog &catalog = testing::repository_catalog();
  for (const Rule &rule : catalog.rules())
    for (const RuleExample &example : rule.examples)
      for (const std::string &id : example.also) {
        INFO("rule " << rule.id << " example names " << id);
        CHECK(id != rule.id);
        CHECK(catalog.find(id) != nullptr);
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
