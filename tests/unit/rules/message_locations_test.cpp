// A message's `{..._at}` placeholders are places in the tree, shown from the
// current directory as the finding's own path is; other placeholders are
// written as the fact holds them (docs/writing-rules.md).
#include <catch2/catch.hpp>

#include "../test_support.h"
#include "core/fact_kinds.h"

using namespace mpsaudit;

namespace {

const char *const kRule = "[family]\nname = \"test\"\nprefix = \"MPS9\"\ntitle = \"Test\"\n"
                          "[[rule]]\nid = \"MPS990\"\nname = \"r\"\nsummary = \"s\"\nkinds = [\"python\"]\n"
                          "effort = \"trivial\"\nseverity = \"warning\"\n"
                          "message = \"`{name}` needs {needs} (see {needed_at}; quoted {origin})\"\n"
                          "why = \"w\"\nreplacement = \"r\"\n[rule.match]\nkind = \"call\"\n";

std::string message_for(const Fact &fact, const RuleEngine::LocationText &shown_location) {
  RuleCatalog catalog;
  std::vector<Diagnostic> diagnostics;
  catalog.load_text(kRule, "test.toml", diagnostics);
  REQUIRE(diagnostics.empty());
  FileFacts facts;
  facts.facts.push_back(fact);
  const RuleEngine engine(catalog);
  const auto findings = engine.evaluate(
      "a.py", FileKind::Python, facts, [](std::uint32_t) { return std::string(); }, shown_location);
  REQUIRE(findings.size() == 1);
  return findings.front().message;
}

Fact call_with_places() {
  Fact fact;
  fact.kind = std::string(fact_kind::Call);
  fact.name = "fused";
  fact.span.line = 1;
  fact.set_attribute("needs", "triton");
  fact.set_attribute("needed_at", "ops/fused.py:3");
  fact.set_attribute("origin", "ops/fused.py");
  return fact;
}

} // namespace

TEST_CASE("an _at placeholder is shown from the current directory; others as written", "[rules][message]") {
  const auto from_parent = [](const std::string &location) { return "repo/" + location; };
  CHECK(message_for(call_with_places(), from_parent) ==
        "`fused` needs triton (see repo/ops/fused.py:3; quoted ops/fused.py)");
}

TEST_CASE("without a way to show places, an _at placeholder is written as the fact holds it",
          "[rules][message]") {
  CHECK(message_for(call_with_places(), {}) ==
        "`fused` needs triton (see ops/fused.py:3; quoted ops/fused.py)");
}
