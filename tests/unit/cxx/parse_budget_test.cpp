// The bounds on what one C/C++/CUDA file may cost (frontend/cxx/parse_budget.h):
// the budget on its own, then hostile files through the whole front end.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "cxx_test_util.h"
#include "frontend/cxx/ast_scan.h"
#include "frontend/cxx/parse_budget.h"

using namespace mpsaudit;
using namespace mpsaudit::test;
using cxx::ParseBound;
using cxx::ParseBudget;
using cxx::ParseLimits;
using namespace std::chrono_literals;

namespace {

ParseLimits small_limits() {
  ParseLimits limits;
  limits.macro_expansions = 10;
  limits.tokens = 20;
  limits.include_depth = 3;
  limits.included_files = 5;
  limits.included_bytes = 1000;
  limits.memory_bytes = 1u << 20;
  return limits;
}

bool has_diagnostic(const FileFacts &facts, const std::string &code, const std::string &words = "") {
  for (const auto &diagnostic : facts.diagnostics)
    if (diagnostic.code == code && diagnostic.message.find(words) != std::string::npos)
      return true;
  return false;
}

// A directory of its own under the temporary directory, removed at the end.
struct TemporaryTree {
  explicit TemporaryTree(const std::string &name)
      : path(std::filesystem::temp_directory_path() / ("mpsaudit-budget-" + name)) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TemporaryTree() { std::filesystem::remove_all(path); }
  void write(const std::string &name, const std::string &text) const { std::ofstream(path / name) << text; }
  std::filesystem::path path;
};

SourceFile file_in(const TemporaryTree &tree, const std::string &name, const std::string &text) {
  tree.write(name, text);
  SourceFile input = source(name, text);
  input.absolute_path = (tree.path / name).string();
  return input;
}

// `#define A0 ;` and A1..A<levels>, each two copies of the one before.
std::string doubling_macros(int levels) {
  std::string text = "#define A0 ;\n";
  for (int level = 1; level <= levels; ++level)
    text += "#define A" + std::to_string(level) + " A" + std::to_string(level - 1) + " A" +
            std::to_string(level - 1) + "\n";
  return text + "A" + std::to_string(levels) + "\n";
}

const std::string kKernel = "__global__ void touch(float *x) { x[0] = 1.0f; }\n";

} // namespace

TEST_CASE("a parse budget names the first bound passed", "[cxx][budget]") {
  SECTION("macro expansions") {
    ParseBudget budget(small_limits());
    for (int i = 0; i < 10; ++i)
      REQUIRE(budget.expand_macro());
    CHECK_FALSE(budget.expand_macro());
    CHECK(budget.bound() == ParseBound::MacroExpansions);
    CHECK(budget.describe() == "more than 10 macro expansions");
    // Passed stays passed, and the first bound stays the one named.
    CHECK_FALSE(budget.read_token());
    CHECK(budget.bound() == ParseBound::MacroExpansions);
  }
  SECTION("macro nesting, measured in stack") {
    ParseLimits limits = small_limits();
    limits.macro_nesting_bytes = 4096;
    ParseBudget budget(limits);
    REQUIRE(budget.expand_macro(4096));
    CHECK_FALSE(budget.expand_macro(4097));
    CHECK(budget.bound() == ParseBound::MacroNesting);
    CHECK(budget.describe() == "macro expansions nested more than 4 KiB of stack deep");
    CHECK(budget.usage().peak_macro_nesting_bytes == 4097);
  }
  SECTION("tokens") {
    ParseBudget budget(small_limits());
    for (int i = 0; i < 20; ++i)
      REQUIRE(budget.read_token());
    CHECK_FALSE(budget.read_token());
    CHECK(budget.bound() == ParseBound::Tokens);
  }
  SECTION("include depth, counted as files are entered and left") {
    ParseBudget budget(small_limits());
    REQUIRE(budget.enter_file(1));
    REQUIRE(budget.enter_file(1));
    budget.leave_file();
    REQUIRE(budget.enter_file(1));
    REQUIRE(budget.enter_file(1));
    CHECK_FALSE(budget.enter_file(1));
    CHECK(budget.bound() == ParseBound::IncludeDepth);
    CHECK(budget.usage().peak_include_depth == 4);
  }
  SECTION("included files: every entry counts, a header entered twice twice") {
    ParseBudget budget(small_limits());
    for (int i = 0; i < 5; ++i) {
      REQUIRE(budget.enter_file(1));
      budget.leave_file();
    }
    CHECK_FALSE(budget.enter_file(1));
    CHECK(budget.bound() == ParseBound::IncludedFiles);
  }
  SECTION("included bytes") {
    ParseBudget budget(small_limits());
    REQUIRE(budget.enter_file(600));
    budget.leave_file();
    CHECK_FALSE(budget.enter_file(600));
    CHECK(budget.bound() == ParseBound::IncludedBytes);
  }
  SECTION("memory") {
    ParseBudget budget(small_limits());
    REQUIRE(budget.hold_memory(1u << 20));
    CHECK_FALSE(budget.hold_memory((1u << 20) + 1));
    CHECK(budget.bound() == ParseBound::Memory);
    CHECK(budget.describe() == "more than 1 MiB of memory (--max-parse-memory)");
  }
  SECTION("time, read every few hundred charges and when asked") {
    ParseLimits limits;
    limits.time_ms = 50;
    const auto started = ParseBudget::Clock::now();
    ParseBudget budget(limits, started);
    CHECK(budget.check_time(started + 50ms));
    CHECK_FALSE(budget.check_time(started + 51ms));
    CHECK(budget.bound() == ParseBound::Time);
    CHECK(budget.describe() == "longer than 50 ms (--max-parse-time)");
    ParseBudget past(limits, started - 1s);
    bool within = true;
    for (int i = 0; i < 1000 && within; ++i)
      within = past.read_token();
    CHECK_FALSE(within);
    CHECK(past.bound() == ParseBound::Time);
  }
  SECTION("no time limit") {
    ParseBudget budget(ParseLimits{}, ParseBudget::Clock::now() - 24h);
    CHECK(budget.check_time());
  }
}

TEST_CASE("a parse budget adds up the runs of other processes", "[cxx][budget]") {
  ParseBudget file(small_limits());
  ParseBudget run = file.with_nothing_spent();
  CHECK(run.deadline() == file.deadline());
  REQUIRE(run.expand_macro());
  REQUIRE(run.enter_file(10));
  file.add_usage(run.usage());
  CHECK(file.usage().macro_expansions == 1);
  CHECK(file.usage().included_bytes == 10);
  CHECK_FALSE(file.exceeded());
  file.record(ParseBound::Time);
  CHECK(file.bound() == ParseBound::Time);
  const ParseBudget later = ParseBudget::until(small_limits(), file.deadline());
  CHECK(later.deadline() == file.deadline());
  CHECK_FALSE(later.exceeded());
}

TEST_CASE("a macro that doubles 35 times stops clang, and the file keeps its tokens' facts",
          "[cxx][budget][security]") {
  const auto started = std::chrono::steady_clock::now();
  const FileFacts facts = extract("bomb.cu", kKernel + doubling_macros(35));
  CHECK(std::chrono::steady_clock::now() - started < 30s);
  CHECK(facts.mode == "lexical");
  CHECK(has_diagnostic(facts, "parse-limit", "macro expansions"));
  CHECK(find_fact(facts, "cuda-kernel", "touch") != nullptr);
  // An error: the file could not be fully scanned.
  for (const auto &diagnostic : facts.diagnostics)
    if (diagnostic.code == "parse-limit")
      CHECK(diagnostic.level == DiagnosticLevel::Error);
}

TEST_CASE("macro calls nested thousands deep stop before they overflow clang's stack",
          "[cxx][budget][security]") {
  std::string calls;
  for (int level = 0; level < 3000; ++level)
    calls += "B(";
  calls += ";" + std::string(3000, ')') + "\n";
  const FileFacts facts = extract("nested.cu", kKernel + "#define B(x) x\n" + calls);
  CHECK(facts.mode == "lexical");
  CHECK(has_diagnostic(facts, "parse-limit", "nested more than 2048 KiB of stack deep"));
  CHECK(find_fact(facts, "cuda-kernel", "touch") != nullptr);
}

TEST_CASE("headers that each include the next twice stop clang", "[cxx][budget][security]") {
  TemporaryTree tree("headers");
  for (int level = 0; level <= 40; ++level) {
    const std::string next = "h" + std::to_string(level + 1) + ".h";
    tree.write("h" + std::to_string(level) + ".h",
               level < 40 ? "#include \"" + next + "\"\n#include \"" + next + "\"\n" : "/* leaf */\n");
  }
  const SourceFile input = file_in(tree, "bomb.cu", "#include \"h0.h\"\n" + kKernel);
  ExtractOptions options;
  options.root = tree.path.string();
  const FileFacts facts = extract_cxx_file(input, options, CxxParseMode::Auto);
  CHECK(facts.mode == "lexical");
  CHECK(has_diagnostic(facts, "parse-limit", "headers entered"));
  CHECK(find_fact(facts, "cuda-kernel", "touch") != nullptr);
}

TEST_CASE("a header that includes itself without a guard stops at the depth bound",
          "[cxx][budget][security]") {
  TemporaryTree tree("self");
  tree.write("self.h", "#include \"self.h\"\n");
  const SourceFile input = file_in(tree, "bomb.cu", "#include \"self.h\"\n" + kKernel);
  ExtractOptions options;
  options.root = tree.path.string();
  const FileFacts facts = extract_cxx_file(input, options, CxxParseMode::Auto);
  CHECK(facts.mode == "lexical");
  CHECK(has_diagnostic(facts, "parse-limit", "nested more than 100 deep"));
}

// Nested calls of a macro that uses its argument twice: each level's
// argument is expanded, then copied into both uses, inside clang and
// without a callback; only the worker's memory cap stops it. (Not under
// AddressSanitizer, which reports a refused allocation as its own error:
// the file still falls back, as a crash.)
#if defined(__linux__) && !defined(__SANITIZE_ADDRESS__)
TEST_CASE("a macro argument doubled at every level stops at the memory cap", "[cxx][budget][security]") {
  std::string calls;
  for (int level = 0; level < 30; ++level)
    calls += "B(";
  calls += ";" + std::string(30, ')') + "\n";
  ExtractOptions options;
  options.parse_memory_bytes = 256ull << 20;
  const FileFacts facts =
      extract("bomb.cu", kKernel + "#define B(x) x x\n" + calls, CxxParseMode::Auto, options);
  CHECK(facts.mode == "lexical");
  CHECK(has_diagnostic(facts, "parse-limit", "256 MiB of memory"));
  CHECK(find_fact(facts, "cuda-kernel", "touch") != nullptr);
}
#endif

TEST_CASE("a C++ file's parse is bounded by --max-parse-time", "[cxx][budget]") {
  ExtractOptions options;
  options.parse_timeout_ms = 1;
  // Thousands of redefinitions keep Sema busy well past a millisecond.
  std::string text = kKernel;
  for (int i = 0; i < 20000; ++i)
    text += "int leaf;\n";
  const FileFacts facts = extract("slow.cu", text, CxxParseMode::Auto, options);
  CHECK(facts.mode == "lexical");
  CHECK(has_diagnostic(facts, "parse-timeout", "longer than 1 ms (--max-parse-time)"));
  CHECK(find_fact(facts, "cuda-kernel", "touch") != nullptr);
}

TEST_CASE("ordinary files stay within every bound", "[cxx][budget]") {
  ExtractOptions options;
  options.parse_timeout_ms = 10000;
  options.parse_memory_bytes = 1024ull << 20;
  const FileFacts facts =
      extract("kernel.cu", "__global__ void scale(float *x) { x[threadIdx.x] *= 2.0f; }\n",
              CxxParseMode::Auto, options);
  CHECK(facts.mode == "ast");
  CHECK_FALSE(has_diagnostic(facts, "parse-limit"));
  CHECK_FALSE(has_diagnostic(facts, "parse-timeout"));
}

TEST_CASE("the gate gives up on a header of a million includes and lets clang decide",
          "[cxx][budget][gate]") {
  TemporaryTree tree("gate");
  tree.write("leaf.h", "#pragma once\nint leaf_value();\n");
  std::string many;
  for (int i = 0; i < 100000; ++i)
    many += "#include \"leaf.h\"\n";
  tree.write("many.h", many);
  // No evidence in the file: only the headers could hold some.
  const SourceFile input =
      file_in(tree, "host.cu", "#include \"many.h\"\nint host() { return leaf_value(); }\n");
  ExtractOptions options;
  options.root = tree.path.string();
  const auto started = std::chrono::steady_clock::now();
  const std::uint64_t before = cxx::clang_runs();
  const FileFacts facts = extract_cxx_file(input, options, CxxParseMode::Auto);
  CHECK(cxx::clang_runs() - before == 1);
  CHECK(std::chrono::steady_clock::now() - started < 30s);
  CHECK_FALSE(has_diagnostic(facts, "parse-limit", ""));
}
