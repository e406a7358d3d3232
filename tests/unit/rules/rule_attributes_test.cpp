// The attributes the assessment reads of a rule (docs/writing-rules.md,
// "Attributes"): a [family] table gives its rules defaults, a rule's own
// value wins, and a wrong value is an error naming the rule.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "../test_support.h"
#include "rules/rule.h"

using namespace mpsaudit;

namespace {

std::string family_with(const std::string &attributes) {
  return "[family]\nname = \"test\"\nprefix = \"MPS9\"\ntitle = \"Test\"\n" + attributes;
}

std::string rule_with(const std::string &id, const std::string &attributes = "") {
  return "[[rule]]\nid = \"" + id + "\"\nname = \"r" + id +
         "\"\nsummary = \"s\"\nkinds = [\"python\"]\neffort = \"small\"\nseverity = \"warning\"\n"
         "message = \"m\"\nwhy = \"w\"\nreplacement = \"r\"\n" +
         attributes + "[rule.match]\nkind = \"call\"\n";
}

// The attributes a rule sets, as one line: "cuda_only package_cause acceptance=seed".
std::string attributes_of(const Rule &rule) {
  std::string text;
  for (const auto &[name, set] : {std::pair<const char *, bool>{"cuda_only", rule.cuda_only},
                                  {"training_scale", rule.training_scale},
                                  {"package_cause", rule.package_cause}})
    if (set)
      text += std::string(name) + " ";
  return text + "acceptance=" + std::string(to_string(rule.acceptance));
}

} // namespace

TEST_CASE("a family's attributes are its rules' defaults, and a rule's own value wins",
          "[rules][attributes]") {
  RuleCatalog catalog;
  std::vector<Diagnostic> diagnostics;
  catalog.load_text(
      family_with("cuda_only = true\npackage_cause = true\n") + rule_with("MPS901") +
          rule_with("MPS902", "cuda_only = false\ntraining_scale = true\nacceptance = \"seed\"\n"),
      "rules/t.toml", diagnostics);
  REQUIRE(diagnostics.empty());
  REQUIRE(catalog.families().size() == 1);
  CHECK(catalog.families()[0].cuda_only);
  CHECK_FALSE(catalog.families()[0].training_scale);
  CHECK(attributes_of(*catalog.find("MPS901")) == "cuda_only package_cause acceptance=");
  CHECK(attributes_of(*catalog.find("MPS902")) == "training_scale package_cause acceptance=seed");
}

TEST_CASE("a family without attributes sets none", "[rules][attributes]") {
  RuleCatalog catalog;
  std::vector<Diagnostic> diagnostics;
  catalog.load_text(family_with("") + rule_with("MPS901", "acceptance = \"float64\"\n"), "rules/t.toml",
                    diagnostics);
  REQUIRE(diagnostics.empty());
  CHECK(attributes_of(*catalog.find("MPS901")) == "acceptance=float64");
}

TEST_CASE("a wrong attribute value is an error that names the rule or the family", "[rules][attributes]") {
  RuleCatalog catalog;
  std::vector<Diagnostic> diagnostics;
  catalog.load_text(family_with("training_scale = \"yes\"\n") +
                        rule_with("MPS901", "acceptance = \"seeds\"\n") +
                        rule_with("MPS902", "cuda_only = 1\n"),
                    "rules/t.toml", diagnostics);
  std::vector<std::string> messages;
  for (const Diagnostic &diagnostic : diagnostics)
    messages.push_back(diagnostic.message);
  CHECK(messages == std::vector<std::string>{"'training_scale' must be a boolean in [family]",
                                             "rule MPS901: acceptance must be seed, load or float64",
                                             "'cuda_only' must be a boolean in rule MPS902"});
  CHECK(diagnostics[1].line == 16); // the acceptance line, not the table's
}

TEST_CASE("the repository's rules: every C++/CUDA rule is CUDA-only, the acceptance checks are set",
          "[rules][attributes]") {
  int seed = 0, load = 0, float64 = 0;
  for (const Rule &rule : testing::repository_catalog().rules()) {
    if (rule.family == "cxx")
      CHECK(rule.cuda_only);
    seed += rule.acceptance == AcceptanceCheck::Seed;
    load += rule.acceptance == AcceptanceCheck::Load;
    float64 += rule.acceptance == AcceptanceCheck::Float64;
  }
  CHECK(seed > 0);
  CHECK(load > 0);
  CHECK(float64 > 0);
}
