// One fact, one finding: the scan drops a rule's repeat at one position and
// a generic rule's finding where a more specific rule reports the same line.
#include <algorithm>

#include <catch2/catch.hpp>

#include "../test_support.h"

using namespace mpsaudit;

namespace {

Finding finding_at(const Rule &rule, std::uint32_t line, std::uint32_t column, const std::string &name) {
  Finding finding;
  finding.rule = &rule;
  finding.rule_id = rule.id;
  finding.span.line = line;
  finding.span.column = column;
  finding.name = name;
  return finding;
}

} // namespace

TEST_CASE("the same rule at the same position is reported once", "[rules][redundant]") {
  Rule rule;
  rule.id = "MPS999";
  std::vector<Finding> findings{
      finding_at(rule, 3, 5, "torch.cuda.synchronize"), finding_at(rule, 3, 5, "torch.cuda.synchronize"),
      finding_at(rule, 3, 30, "torch.cuda.synchronize"), finding_at(rule, 4, 5, "torch.cuda.synchronize")};
  drop_redundant_findings(findings);
  REQUIRE(findings.size() == 3);
  CHECK(findings[0].span.column == 5);
  CHECK(findings[1].span.column == 30);
  CHECK(findings[2].span.line == 4);
}

TEST_CASE("a generic rule gives way to the specific rule it is superseded by on one line",
          "[rules][redundant]") {
  Rule generic, specific, other;
  generic.id = "MPS998";
  generic.superseded_by = {"MPS997"};
  specific.id = "MPS997";
  other.id = "MPS996";
  std::vector<Finding> findings{finding_at(specific, 7, 1, "assert"), finding_at(generic, 7, 12, "count"),
                                finding_at(other, 7, 12, "count"), finding_at(generic, 9, 1, "count")};
  drop_redundant_findings(findings);
  std::vector<std::string> kept;
  for (const Finding &finding : findings)
    kept.push_back(finding.rule_id + ":" + std::to_string(finding.span.line));
  CHECK(kept == std::vector<std::string>{"MPS997:7", "MPS996:7", "MPS998:9"});
}

TEST_CASE("a CUDA requirement on a device query is one finding, not two", "[rules][redundant]") {
  const auto findings = testing::findings_for(FileKind::Python, "import torch\n"
                                                                "assert torch.cuda.device_count() > 0\n"
                                                                "n = torch.cuda.device_count()\n");
  std::vector<std::string> kept;
  for (const Finding &finding : findings)
    kept.push_back(finding.rule_id + ":" + std::to_string(finding.span.line));
  CHECK(std::count(kept.begin(), kept.end(), "MPS216:2") == 1);
  CHECK(std::count(kept.begin(), kept.end(), "MPS106:2") == 0);
  CHECK(std::count(kept.begin(), kept.end(), "MPS106:3") == 1);
}

TEST_CASE("superseded_by names rules of the catalog", "[rules][redundant]") {
  const RuleCatalog &catalog = testing::repository_catalog();
  for (const Rule &rule : catalog.rules())
    for (const std::string &specific : rule.superseded_by) {
      INFO(rule.id << " superseded_by " << specific);
      CHECK(catalog.find(specific) != nullptr);
      CHECK(specific != rule.id);
    }
}
