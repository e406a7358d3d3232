// The baseline: matching on rule, path and normalised code, never on lines;
// duplicates, moves, renames, and a stable text format.
#include <set>
#include <sstream>

#include <catch2/catch.hpp>

#include "workflow/baseline.h"

using namespace mpsaudit;

namespace {

Finding finding(const std::string &rule, const std::string &path, std::uint32_t line,
                const std::string &snippet) {
  Finding f;
  f.rule_id = rule;
  f.path = path;
  f.span = Span{line, 1, line, 2};
  f.snippet = snippet;
  return f;
}

Baseline round_trip(const std::vector<Finding> &findings) {
  std::ostringstream out;
  write_baseline(out, make_baseline(findings));
  std::vector<Diagnostic> diagnostics;
  Baseline parsed = parse_baseline(out.str(), "b", diagnostics);
  REQUIRE(diagnostics.empty());
  return parsed;
}

const auto all_exist = [](const std::string &) { return true; };

} // namespace

TEST_CASE("whitespace does not change the code hash; code does", "[baseline]") {
  CHECK(code_hash(finding("MPS201", "a.py", 1, "x = y.cuda()")) ==
        code_hash(finding("MPS201", "a.py", 9, "    x  =  y.cuda( )\t")));
  CHECK(code_hash(finding("MPS201", "a.py", 1, "x = y.cuda()")) !=
        code_hash(finding("MPS201", "a.py", 1, "x = z.cuda()")));
  CHECK(code_hash(finding("MPS201", "a.py", 1, "x")).size() == 16);
}

TEST_CASE("findings that only moved to other lines stay known", "[baseline]") {
  const Baseline baseline = round_trip(
      {finding("MPS201", "a.py", 3, "m.cuda()"), finding("MPS101", "a.py", 7, "torch.cuda.synchronize()")});
  std::vector<Finding> now{finding("MPS201", "a.py", 40, "m.cuda()"),
                           finding("MPS101", "a.py", 2, "  torch.cuda.synchronize()")};
  const BaselineFilter filter = filter_by_baseline(now, baseline, all_exist);
  CHECK(now.empty());
  CHECK(filter.known == 2);
  CHECK(filter.fixed == 0);
}

TEST_CASE("a second copy of a recorded line in the same file is new", "[baseline]") {
  const Baseline baseline = round_trip({finding("MPS201", "a.py", 3, "m.cuda()")});
  std::vector<Finding> now{finding("MPS201", "a.py", 3, "m.cuda()"),
                           finding("MPS201", "a.py", 9, "m.cuda()")};
  const BaselineFilter filter = filter_by_baseline(now, baseline, all_exist);
  REQUIRE(now.size() == 1);
  CHECK(now.front().span.line == 9);
  CHECK(filter.known == 1);
}

TEST_CASE("recorded duplicates are counted", "[baseline]") {
  const Baseline baseline =
      round_trip({finding("MPS201", "a.py", 3, "m.cuda()"), finding("MPS201", "a.py", 4, "m.cuda()")});
  REQUIRE(baseline.entries.size() == 1);
  CHECK(baseline.entries.begin()->second.count == 2);
  std::vector<Finding> now{finding("MPS201", "a.py", 5, "m.cuda()"),
                           finding("MPS201", "a.py", 6, "m.cuda()")};
  filter_by_baseline(now, baseline, all_exist);
  CHECK(now.empty());
}

TEST_CASE("the same code in another existing file is new", "[baseline]") {
  const Baseline baseline = round_trip({finding("MPS201", "a.py", 3, "m.cuda()")});
  std::vector<Finding> now{finding("MPS201", "a.py", 3, "m.cuda()"),
                           finding("MPS201", "b.py", 3, "m.cuda()")};
  filter_by_baseline(now, baseline, all_exist);
  REQUIRE(now.size() == 1);
  CHECK(now.front().path == "b.py");
}

TEST_CASE("a renamed file keeps its findings known; copies beyond the record are new", "[baseline]") {
  const Baseline baseline = round_trip({finding("MPS201", "old/name.py", 3, "m.cuda()")});
  const auto only_new_exists = [](const std::string &path) { return path != "old/name.py"; };
  std::vector<Finding> now{finding("MPS201", "new/name.py", 3, "m.cuda()"),
                           finding("MPS201", "new/name.py", 8, "m.cuda()")};
  const BaselineFilter filter = filter_by_baseline(now, baseline, only_new_exists);
  CHECK(filter.known == 1);
  REQUIRE(now.size() == 1);
  CHECK(now.front().span.line == 8);
  // While the old file still exists, a copy elsewhere is not a rename.
  std::vector<Finding> copy{finding("MPS201", "new/name.py", 3, "m.cuda()")};
  filter_by_baseline(copy, baseline, all_exist);
  CHECK(copy.size() == 1);
}

TEST_CASE("fixed findings are counted; suppressed findings are neither recorded nor matched", "[baseline]") {
  Finding suppressed = finding("MPS101", "a.py", 1, "torch.cuda.synchronize()");
  suppressed.suppressed = true;
  const Baseline baseline = round_trip({finding("MPS201", "a.py", 3, "m.cuda()"), suppressed});
  CHECK(baseline.entries.size() == 1);
  std::vector<Finding> now{suppressed};
  const BaselineFilter filter = filter_by_baseline(now, baseline, all_exist);
  CHECK(now.size() == 1);
  CHECK(filter.fixed == 1);
}

TEST_CASE("the file is sorted, tab-separated and stable", "[baseline]") {
  const std::vector<Finding> findings{finding("MPS301", "b.py", 1, "x.double()"),
                                      finding("MPS201", "z.py", 2, "m.cuda()"),
                                      finding("MPS201", "a.py", 2, "n.cuda()\tx")};
  std::ostringstream first, second;
  write_baseline(first, make_baseline(findings));
  write_baseline(second, make_baseline({findings[2], findings[0], findings[1]}));
  CHECK(first.str() == second.str());
  std::istringstream lines(first.str());
  std::vector<std::string> data;
  for (std::string line; std::getline(lines, line);)
    if (!line.empty() && line[0] != '#')
      data.push_back(line);
  REQUIRE(data.size() == 3);
  CHECK(data[0].rfind("MPS201\ta.py\t", 0) == 0);
  CHECK(data[1].rfind("MPS201\tz.py\t", 0) == 0);
  CHECK(data[2].rfind("MPS301\tb.py\t", 0) == 0);
  CHECK(data[0].substr(data[0].rfind('\t') + 1) == "n.cuda() x"); // readable code without tabs
}

TEST_CASE("malformed baseline lines are errors naming the line", "[baseline]") {
  std::vector<Diagnostic> diagnostics;
  parse_baseline("# mpsaudit baseline "
                 "v1\nMPS201\ta.py\n\nMPS201\ta.py\tnothex\t1\tx\nMPS201\ta.py\t0123456789abcdef\tmany\tx\n",
                 "base", diagnostics);
  REQUIRE(diagnostics.size() == 3);
  CHECK(diagnostics[0].line == 2);
  CHECK(diagnostics[1].line == 4);
  CHECK(diagnostics[2].line == 5);
  CHECK(diagnostics[0].path == "base");
}

// Finding 16 of the security review: a count of 0, an unknown rule and an
// unknown format version were accepted without a word.
TEST_CASE("a zero count, an unknown rule or format, or no header is reported", "[baseline][security]") {
  const std::string hash = "0123456789abcdef";
  const auto known = [](std::string_view rule) { return rule == "MPS201"; };
  std::vector<Diagnostic> diagnostics;
  Baseline baseline = parse_baseline("# mpsaudit baseline v1\n"
                                     "MPS201\ta.py\t" +
                                         hash +
                                         "\t0\tx\n"
                                         "MPS201\ta.py\t" +
                                         hash +
                                         "\t000\tx\n"
                                         "MPS999\ta.py\t" +
                                         hash +
                                         "\t1\tx\n"
                                         "E501\ta.py\t" +
                                         hash +
                                         "\t1\tx\n"
                                         "MPS201\t\t" +
                                         hash +
                                         "\t1\tx\n"
                                         "MPS201\tb.py\t" +
                                         hash + "\t2\tx\n",
                                     "base", diagnostics, known);
  REQUIRE(diagnostics.size() == 5);
  CHECK(diagnostics[0].line == 2);
  CHECK(diagnostics[0].level == DiagnosticLevel::Error);
  CHECK(diagnostics[0].message == "the count must be a positive whole number");
  CHECK(diagnostics[1].line == 3);
  CHECK(diagnostics[1].level == DiagnosticLevel::Error);
  CHECK(diagnostics[2].line == 4);
  CHECK(diagnostics[2].level == DiagnosticLevel::Warning); // well-formed, but of another version
  CHECK(diagnostics[2].message.find("MPS999 is not a rule of this mpsaudit") == 0);
  CHECK(diagnostics[3].line == 5);
  CHECK(diagnostics[3].level == DiagnosticLevel::Error);
  CHECK(diagnostics[3].message.find("`E501` is not a rule ID") == 0);
  CHECK(diagnostics[4].line == 6);
  CHECK(diagnostics[4].message == "the path is empty");
  REQUIRE(baseline.entries.size() == 1); // only the good line
  CHECK(baseline.entries.begin()->second.count == 2);

  diagnostics.clear();
  baseline =
      parse_baseline("# mpsaudit baseline v2\nMPS201\ta.py\t" + hash + "\t1\tx\n", "base", diagnostics);
  REQUIRE(diagnostics.size() == 1);
  CHECK(diagnostics[0].level == DiagnosticLevel::Error);
  CHECK(diagnostics[0].line == 1);
  CHECK(diagnostics[0].message.find("unknown baseline format `v2`: this mpsaudit reads v1") == 0);
  CHECK(baseline.entries.empty());

  diagnostics.clear();
  parse_baseline("\nMPS201\ta.py\t" + hash + "\t1\tx\n", "base", diagnostics);
  REQUIRE(diagnostics.size() == 1);
  CHECK(diagnostics[0].line == 2);
  CHECK(diagnostics[0].message.find("not an mpsaudit baseline") == 0);

  diagnostics.clear();
  CHECK(parse_baseline(" \n\n", "base", diagnostics).entries.empty()); // blank: an empty baseline
  CHECK(diagnostics.empty());
}
