// The Python prefilter's words: derived from the rules so that no file a rule
// flags is spared, and off when a rule can match without a literal.
#include <catch2/catch.hpp>

#include "../test_support.h"
#include "core/literal_filter.h"
#include "frontend/frontend.h"
#include "scan/python_prefilter.h"

using namespace mpsaudit;

TEST_CASE("the longest literal of a name glob", "[prefilter]") {
  testing::check_cases(longest_literal, {{"torch.cuda.synchronize", "synchronize"},
                                         {"torch.cuda.*", "torch"},
                                         {"*DataLoader", "DataLoader"},
                                         {"*.to", "to"}});
  CHECK(longest_literal("*").empty());
  CHECK(longest_literal("?.*").empty());
}

TEST_CASE("a literal filter matches any case and keeps the shortest words", "[prefilter]") {
  const LiteralFilter filter({"cuda", "CUDAExtension", "GradScaler", ""});
  CHECK(filter.words() == std::vector<std::string>{"cuda", "gradscaler"});
  CHECK(filter.may_match("x = torch.CUDA"));
  CHECK(filter.may_match("from torch.cuda.amp import GradScaler"));
  CHECK_FALSE(filter.may_match("VERSION = '1.0'\n"));
  CHECK_FALSE(filter.may_match(""));
}

TEST_CASE("every Python example a rule flags contains one of the prefilter's words", "[prefilter]") {
  std::string off_because;
  const auto filter =
      python_prefilter(testing::repository_catalog().rules(), frontend_project_passes(), {}, off_because);
  REQUIRE(filter);
  INFO("words: " << filter->words().size());
  std::size_t examples = 0;
  for (const Rule &rule : testing::repository_catalog().rules())
    for (const RuleExample &example : rule.examples)
      if (example.must_flag && example.kind == FileKind::Python && rule.applies_to(FileKind::Python)) {
        INFO(rule.id << " flags:\n" << example.code);
        CHECK(filter->may_match(example.code));
        ++examples;
      }
  CHECK(examples > 50);
}

TEST_CASE("a rule that matches without a literal turns the prefilter off", "[prefilter]") {
  Rule any_call;
  any_call.id = "TEST1";
  any_call.kinds = {FileKind::Python};
  any_call.match.kinds = {"call"};
  any_call.match.names = {"*"};
  std::string off_because;
  CHECK_FALSE(python_prefilter({any_call}, {}, {}, off_because));
  CHECK(off_because.find("TEST1") != std::string::npos);

  SECTION("unless it requires a keyword argument") {
    any_call.match.argument_matches.push_back({"device_map", -1, {"cuda"}});
    off_because.clear();
    const auto filter = python_prefilter({any_call}, {}, {}, off_because);
    REQUIRE(filter);
    CHECK(filter->words() == std::vector<std::string>{"device_map"});
  }
}
