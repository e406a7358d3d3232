// One list of fact kinds (core/fact_kinds.h): rules may name only listed
// kinds, and front ends emit only listed kinds. And fallback rules: a
// catch-all reports a fact only when no specific rule matches it.
#include <algorithm>
#include <set>

#include <catch2/catch.hpp>

#include "../test_support.h"
#include "core/fact_kinds.h"

using namespace mpsaudit;

namespace {

std::string rule_file(const std::string &rules) {
  return "[family]\nname = \"test\"\nprefix = \"MPS9\"\ntitle = \"Test\"\n" + rules;
}

std::string rule_text(const std::string &id, const std::string &match, const std::string &extra = "") {
  return "[[rule]]\nid = \"" + id + "\"\nname = \"r" + id + "\"\nsummary = \"s\"\nkinds = [\"python\"]\n" +
         "effort = \"trivial\"\nseverity = \"warning\"\nmessage = \"m\"\nwhy = \"w\"\nreplacement = \"r\"\n" +
         extra + "[rule.match]\n" + match + "\n";
}

Fact call_fact(const std::string &name, Guard guard = Guard::None) {
  Fact fact;
  fact.kind = std::string(fact_kind::Call);
  fact.name = name;
  fact.span.line = 1;
  fact.guard = guard;
  return fact;
}

std::vector<std::string> fired(const RuleCatalog &catalog, const Fact &fact) {
  FileFacts facts;
  facts.facts.push_back(fact);
  const RuleEngine engine(catalog);
  return testing::rule_ids(
      engine.evaluate("example.py", FileKind::Python, facts, [](std::uint32_t) { return std::string(); }));
}

} // namespace

TEST_CASE("the list of fact kinds names each kind once, core/fact.h's included", "[rules][fact-kinds]") {
  const std::set<std::string_view> unique(kAllFactKinds.begin(), kAllFactKinds.end());
  CHECK(unique.size() == kAllFactKinds.size());
  for (const std::string_view kind :
       {fact_kind::Import, fact_kind::Call, fact_kind::Attribute, fact_kind::Assignment,
        fact_kind::DeviceString, fact_kind::DeviceSelection, fact_kind::Shell, fact_kind::Dependency,
        fact_kind::CudaKernel, fact_kind::DocRequirement}) {
    INFO(kind);
    CHECK(is_known_fact_kind(kind));
  }
  CHECK_FALSE(is_known_fact_kind("cal"));
  CHECK_FALSE(is_known_fact_kind(""));
}

TEST_CASE("an unknown fact kind gets the nearest listed kind as a suggestion", "[rules][fact-kinds]") {
  CHECK(closest_fact_kind("cal") == "call");
  CHECK(closest_fact_kind("cuda-kernal") == "cuda-kernel");
  CHECK(closest_fact_kind("function_def") == "function-def");
  CHECK(closest_fact_kind("completely-different").empty());
}

TEST_CASE("a rule naming an unknown fact kind does not load; the error names file, rule and kind",
          "[rules][fact-kinds]") {
  RuleCatalog catalog;
  std::vector<Diagnostic> diagnostics;
  catalog.load_text(rule_file(rule_text("MPS901", "kind = \"cal\"\nnames = [\"torch.cuda.synchronize\"]")),
                    "rules/typo.toml", diagnostics);
  REQUIRE(diagnostics.size() == 1);
  CHECK(diagnostics[0].level == DiagnosticLevel::Error);
  CHECK(diagnostics[0].path == "rules/typo.toml");
  CHECK(diagnostics[0].line > 0);
  const std::string &message = diagnostics[0].message;
  INFO(message);
  CHECK(message.find("MPS901") != std::string::npos);
  CHECK(message.find("unknown fact kind 'cal'") != std::string::npos);
  CHECK(message.find("did you mean 'call'?") != std::string::npos);
}

TEST_CASE("an unknown kind in a list of kinds is reported, the known ones are not", "[rules][fact-kinds]") {
  RuleCatalog catalog;
  std::vector<Diagnostic> diagnostics;
  catalog.load_text(rule_file(rule_text("MPS902", "kind = [\"call\", \"zzzzzzzz\", \"attribute\"]")),
                    "rules/t.toml", diagnostics);
  REQUIRE(diagnostics.size() == 1);
  CHECK(diagnostics[0].message.find("'zzzzzzzz'") != std::string::npos);
  CHECK(diagnostics[0].message.find("did you mean") == std::string::npos);
}

TEST_CASE("every fact the front ends emit for the rules' own examples has a listed kind",
          "[rules][fact-kinds]") {
  const RuleCatalog &catalog = testing::repository_catalog();
  std::set<std::string> seen;
  for (const Rule &rule : catalog.rules())
    for (const RuleExample &example : rule.examples) {
      if (find_extractor(example.kind) == nullptr)
        continue;
      for (const Fact &fact : testing::extract(example.kind, example.code).facts)
        seen.insert(fact.kind);
    }
  CHECK(seen.size() > 20);
  for (const std::string &kind : seen) {
    INFO(kind);
    CHECK(is_known_fact_kind(kind));
  }
}

TEST_CASE("a fallback rule reports only facts no specific rule matches", "[rules][fallback]") {
  RuleCatalog catalog;
  std::vector<Diagnostic> diagnostics;
  catalog.load_text(
      rule_file(
          rule_text("MPS903", "kind = \"call\"\nnames = [\"torch.cuda.synchronize\"]") +
          rule_text("MPS904", "kind = \"call\"\nnames = [\"torch.cuda.*\"]", "fallback = true\n") +
          rule_text("MPS905", "kind = \"call\"\nnames = [\"torch.cuda.seed\"]", "guarded = \"skip\"\n")),
      "rules/t.toml", diagnostics);
  REQUIRE(diagnostics.empty());
  REQUIRE(catalog.find("MPS904")->fallback);
  CHECK_FALSE(catalog.find("MPS903")->fallback);
  CHECK(fired(catalog, call_fact("torch.cuda.synchronize")) == std::vector<std::string>{"MPS903"});
  CHECK(fired(catalog, call_fact("torch.cuda.ipc_collect")) == std::vector<std::string>{"MPS904"});
  // A specific rule that matches but skips a guarded fact still claims it.
  CHECK(fired(catalog, call_fact("torch.cuda.seed", Guard::CudaCheck)).empty());
}

TEST_CASE("two fallback rules on one fact both report it", "[rules][fallback]") {
  RuleCatalog catalog;
  std::vector<Diagnostic> diagnostics;
  catalog.load_text(
      rule_file(rule_text("MPS906", "kind = \"call\"\nnames = [\"torch.*\"]", "fallback = true\n") +
                rule_text("MPS907", "kind = \"call\"\nnames = [\"torch.cuda.*\"]", "fallback = true\n")),
      "rules/t.toml", diagnostics);
  REQUIRE(diagnostics.empty());
  CHECK(fired(catalog, call_fact("torch.cuda.ipc_collect")) == std::vector<std::string>{"MPS906", "MPS907"});
}

TEST_CASE("'fallback' must be a boolean", "[rules][fallback]") {
  RuleCatalog catalog;
  std::vector<Diagnostic> diagnostics;
  catalog.load_text(rule_file(rule_text("MPS908", "kind = \"call\"", "fallback = \"yes\"\n")), "rules/t.toml",
                    diagnostics);
  REQUIRE(diagnostics.size() == 1);
  CHECK(diagnostics[0].message.find("'fallback' must be a boolean") != std::string::npos);
}

TEST_CASE("'safety' is read as a boolean; the hostile-pickle rule is the repository's safety rule",
          "[rules][security]") {
  RuleCatalog catalog;
  std::vector<Diagnostic> diagnostics;
  catalog.load_text(rule_file(rule_text("MPS909", "kind = \"call\"", "safety = true\n") +
                              rule_text("MPS910", "kind = \"call\"", "safety = \"yes\"\n")),
                    "rules/t.toml", diagnostics);
  REQUIRE(diagnostics.size() == 1);
  CHECK(diagnostics[0].message.find("'safety' must be a boolean") != std::string::npos);
  CHECK(catalog.find("MPS909")->safety);
  std::vector<std::string> safety_rules;
  for (const Rule &rule : testing::repository_catalog().rules())
    if (rule.safety)
      safety_rules.push_back(rule.id);
  CHECK(safety_rules == std::vector<std::string>{"MPS964"});
}

TEST_CASE("MPS112 is the repository's fallback for torch.cuda and keeps no list of other rules' names",
          "[rules][fallback]") {
  const Rule *catch_all = testing::repository_catalog().find("MPS112");
  REQUIRE(catch_all != nullptr);
  CHECK(catch_all->fallback);
  CHECK(catch_all->match.not_names.size() <= 3);
  const auto ids = testing::rule_ids(testing::findings_for(FileKind::Python, "import torch\n"
                                                                             "torch.cuda.synchronize()\n"
                                                                             "torch.cuda.ipc_collect()\n"));
  CHECK(ids == std::vector<std::string>{"MPS101", "MPS112"});
}
