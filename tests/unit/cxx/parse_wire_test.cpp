// What a clang parse's worker process is sent and sends back
// (frontend/cxx/parse_wire.h): everything reads back whole, and bytes that
// are not one of ours are refused, never read past.
#include <catch2/catch.hpp>

#include "frontend/cxx/parse_wire.h"

using namespace mpsaudit::cxx;

namespace {

ParseOutcome sample_outcome() {
  ParseOutcome outcome;
  outcome.ran = true;
  outcome.diagnostics.missing_includes = {{"torch/extension.h", 1}, {"cuda.h", 2}};
  outcome.diagnostics.parse_errors = 3;
  outcome.diagnostics.first_parse_error = "expected ';'";
  outcome.diagnostics.first_parse_error_line = 7;
  outcome.diagnostics.first_error = "unknown type name";
  outcome.diagnostics.first_error_line = 5;
  CodeRegion kernel;
  kernel.is_kernel = true;
  kernel.is_template = true;
  kernel.name = "scale";
  kernel.qualified_name = "ns::scale";
  kernel.line = 4;
  kernel.column = 17;
  kernel.end_column = 22;
  kernel.body_begin_line = 4;
  kernel.body_end_line = 9;
  kernel.origin = "ast";
  outcome.model.regions.push_back(kernel);
  outcome.model.launches.push_back({"scale", "triple-chevron", "1, 32", 12, 3, 8, "ast"});
  outcome.model.asm_sites.push_back({"mov.u32 %0, %%laneid;", 6, 5, 8, "ast"});
  outcome.model.shared_lines = {5};
  outcome.model.double_lines = {6, 6};
  outcome.model.barrier_lines = {8};
  outcome.bound = ParseBound::IncludedFiles;
  outcome.usage.macro_expansions = 12;
  outcome.usage.peak_macro_nesting_bytes = 40000;
  outcome.usage.tokens = 3400;
  outcome.usage.peak_include_depth = 4;
  outcome.usage.included_files = 10001;
  outcome.usage.included_bytes = 123456;
  outcome.usage.peak_memory = 1 << 20;
  outcome.usage.instantiations = 9;
  outcome.skipped_bodies = 2;
  outcome.dropped_instantiations = 1;
  return outcome;
}

} // namespace

TEST_CASE("a parse's outcome reads back whole", "[cxx][wire]") {
  const ParseOutcome sent = sample_outcome();
  const std::optional<ParseOutcome> got = decode_outcome(encode_outcome(sent));
  REQUIRE(got.has_value());
  CHECK(got->ran);
  CHECK_FALSE(got->crashed);
  REQUIRE(got->diagnostics.missing_includes.size() == 2);
  CHECK(got->diagnostics.missing_includes[1].header == "cuda.h");
  CHECK(got->diagnostics.missing_includes[1].line == 2);
  CHECK(got->diagnostics.first_parse_error == "expected ';'");
  CHECK(got->diagnostics.first_error_line == 5);
  REQUIRE(got->model.regions.size() == 1);
  CHECK(got->model.regions[0].qualified_name == "ns::scale");
  CHECK(got->model.regions[0].is_template);
  CHECK(got->model.regions[0].body_end_line == 9);
  REQUIRE(got->model.launches.size() == 1);
  CHECK(got->model.launches[0].config == "1, 32");
  REQUIRE(got->model.asm_sites.size() == 1);
  CHECK(got->model.asm_sites[0].text == "mov.u32 %0, %%laneid;");
  CHECK(got->model.double_lines == std::vector<std::uint32_t>{6, 6});
  CHECK(got->bound == ParseBound::IncludedFiles);
  CHECK(got->usage.included_files == 10001);
  CHECK(got->usage.peak_macro_nesting_bytes == 40000);
  CHECK(got->usage.peak_include_depth == 4);
  CHECK(got->skipped_bodies == 2);
  CHECK(got->dropped_instantiations == 1);
}

TEST_CASE("a parse request reads back whole", "[cxx][wire]") {
  ParseRequest sent;
  sent.invocation.arguments = {"clang", "-xcuda", "/src/a.cu"};
  sent.invocation.working_directory = "/src";
  sent.invocation.source = "fixed";
  sent.main_path = "/src/a.cu";
  sent.text = std::string("__global__ void k() {}\n\0tail", 29);
  sent.skip_unread_bodies = false;
  sent.limits.time_ms = 10000;
  sent.limits.included_files = 7;
  sent.limits.macro_nesting_bytes = 99;
  sent.deadline = ParseBudget::Clock::now();
  const std::optional<ParseRequest> got = decode_request(encode_request(sent));
  REQUIRE(got.has_value());
  CHECK(got->invocation.arguments == sent.invocation.arguments);
  CHECK(got->invocation.working_directory == "/src");
  CHECK(got->text == sent.text);
  CHECK_FALSE(got->skip_unread_bodies);
  CHECK(got->limits.time_ms == 10000);
  CHECK(got->limits.included_files == 7);
  CHECK(got->limits.macro_nesting_bytes == 99);
  CHECK(got->limits.tokens == ParseLimits{}.tokens);
  CHECK(got->deadline == sent.deadline);
}

TEST_CASE("bytes that are not a whole message are refused", "[cxx][wire]") {
  const std::string whole = encode_outcome(sample_outcome());
  for (std::size_t size = 0; size < whole.size(); ++size)
    CHECK_FALSE(decode_outcome(whole.substr(0, size)).has_value());
  CHECK_FALSE(decode_outcome(whole + "x").has_value());
  // A count far beyond the input allocates nothing: it is refused.
  std::string huge(16, '\xff');
  CHECK_FALSE(decode_outcome(huge).has_value());
  CHECK_FALSE(decode_request(huge).has_value());
  CHECK_FALSE(decode_request("").has_value());
}
