// Bad input never crashes a manifest front end: every prefix of every sample
// file, and byte-mangled copies, go through every extractor.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/confined_file.h"
#include "frontend/manifest/manifest_frontend.h"

using namespace mpsaudit;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> sample_texts() {
  std::vector<std::string> texts;
  const fs::path root = fs::path(MPSAUDIT_SOURCE_DIR) / "samples" / "deps-hard-cases";
  for (const auto &entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file())
      continue;
    texts.push_back(mpsaudit::read_whole_file(entry.path()).value_or(""));
  }
  return texts;
}

struct Outcome {
  std::size_t facts = 0;
  std::size_t diagnostics = 0;
  std::size_t unnamed = 0; // diagnostics that do not name their file
  void add(const FileFacts &result) {
    facts += result.facts.size();
    diagnostics += result.diagnostics.size();
    for (const auto &diagnostic : result.diagnostics)
      unnamed += diagnostic.path.empty() ? 1 : 0;
  }
};

Outcome run_all(const std::string &text) {
  SourceFile file;
  file.path = "requirements.txt";
  file.text = text;
  Outcome outcome;
  outcome.add(extract_requirements(file, ExtractOptions{}));
  outcome.add(extract_pyproject(text, "pyproject.toml"));
  outcome.add(extract_setup_cfg(text, "setup.cfg"));
  outcome.add(extract_setup_py(text, "setup.py"));
  outcome.add(extract_conda_env(text, "environment.yml"));
  outcome.add(extract_cmake(text, "CMakeLists.txt"));
  outcome.add(extract_dockerfile(text, "Dockerfile"));
  outcome.add(extract_shell(text, "run.sh"));
  outcome.add(extract_shell(text, "Makefile"));
  return outcome;
}

} // namespace

TEST_CASE("every prefix of every sample file is read without crashing", "[manifest][malformed]") {
  const auto texts = sample_texts();
  REQUIRE(texts.size() > 10);
  std::size_t total = 0, unnamed = 0;
  for (const auto &text : texts)
    for (std::size_t length = 0; length <= text.size(); length += 11) {
      const Outcome outcome = run_all(text.substr(0, length));
      total += outcome.facts;
      unnamed += outcome.unnamed;
    }
  CHECK(total > 0);
  CHECK(unnamed == 0);
}

TEST_CASE("mangled bytes are read without crashing", "[manifest][malformed]") {
  const auto texts = sample_texts();
  // A fixed linear congruential sequence: deterministic, no timing.
  std::uint32_t state = 12345;
  const auto next = [&] { return state = state * 1103515245u + 12345u; };
  const std::string specials = "\"'[](){}#\\\n\t=;:$@`\0\xff";
  for (const auto &original : texts) {
    for (int round = 0; round < 8; ++round) {
      std::string text = original;
      for (std::size_t k = 0; k < 1 + text.size() / 20 && !text.empty(); ++k)
        text[next() % text.size()] = specials[next() % specials.size()];
      CHECK(run_all(text).unnamed == 0);
    }
  }
  // Pathological nesting and lengths are diagnosed, not recursed into.
  CHECK(run_all(std::string(10000, '(')).diagnostics > 0);
  CHECK(run_all(std::string(5000, '[') + "x").diagnostics > 0);
  CHECK(run_all("-r " + std::string(3000, 'a')).diagnostics > 0);
}
