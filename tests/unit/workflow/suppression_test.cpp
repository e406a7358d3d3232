// Inline suppressions: every comment form, line / next-line / file scope,
// notebook cells, reasons, and the MPS001 unused-suppression report.
#include <algorithm>

#include <catch2/catch.hpp>

#include "../test_support.h"
#include "rules/engine.h"
#include "workflow/suppression.h"

using namespace mpsaudit;

namespace {

Finding finding_at(const std::string &rule_id, std::uint32_t line, const std::string &path = "f") {
  Finding finding;
  finding.rule_id = rule_id;
  finding.rule = testing::repository_catalog().find(rule_id);
  finding.path = path;
  finding.span = Span{line, 1, line, 5};
  finding.snippet = "code";
  return finding;
}

struct Applied {
  std::vector<Finding> findings;
  SuppressionCounts counts;
  FileSuppressions suppressions;
};

Applied apply(FileKind kind, const std::string &text, std::vector<Finding> findings) {
  Applied applied;
  applied.suppressions = find_suppressions("f", kind, text);
  const RuleEngine engine(testing::repository_catalog());
  applied.counts = apply_suppressions(applied.suppressions, findings, engine, "f", kind);
  applied.findings = std::move(findings);
  return applied;
}

const Finding *find(const std::vector<Finding> &findings, const std::string &rule_id, std::uint32_t line) {
  for (const auto &finding : findings)
    if (finding.rule_id == rule_id && finding.span.line == line)
      return &finding;
  return nullptr;
}

std::size_t count_rule(const std::vector<Finding> &findings, const std::string &rule_id) {
  return static_cast<std::size_t>(std::count_if(findings.begin(), findings.end(),
                                                [&](const Finding &f) { return f.rule_id == rule_id; }));
}

} // namespace

TEST_CASE("files without the marker cost nothing and yield no directives", "[suppression]") {
  const auto suppressions = find_suppressions("a.py", FileKind::Python, "import torch\nx.cuda()  # noqa\n");
  CHECK(suppressions.empty());
  CHECK(suppressions.diagnostics.empty());
}

TEST_CASE("a trailing # directive suppresses its own line with its reason", "[suppression]") {
  const auto applied =
      apply(FileKind::Python, "a\nx.cuda()  # mpsaudit: ignore[MPS201] cluster only\ny.cuda()\n",
            {finding_at("MPS201", 2), finding_at("MPS201", 3)});
  REQUIRE(find(applied.findings, "MPS201", 2));
  CHECK(find(applied.findings, "MPS201", 2)->suppressed);
  CHECK(find(applied.findings, "MPS201", 2)->suppression_reason == "cluster only");
  CHECK_FALSE(find(applied.findings, "MPS201", 3)->suppressed); // the next line is not covered
  CHECK(applied.counts.directives == 1);
  CHECK(applied.counts.without_reason == 0);
  CHECK(applied.counts.unused == 0);
}

TEST_CASE("a directive alone on its line covers the line below", "[suppression]") {
  const auto applied =
      apply(FileKind::Python, "    # mpsaudit: ignore[MPS101]\n    torch.cuda.synchronize()\nz()\n",
            {finding_at("MPS101", 2), finding_at("MPS101", 3)});
  CHECK(find(applied.findings, "MPS101", 2)->suppressed);
  CHECK_FALSE(find(applied.findings, "MPS101", 3)->suppressed);
  CHECK(applied.counts.without_reason == 1); // allowed, but counted
}

TEST_CASE("every comment form is understood, language-agnostically", "[suppression]") {
  struct Form {
    FileKind kind;
    std::string text;
  };
  const std::vector<Form> forms{
      {FileKind::Python, "x.cuda()  # mpsaudit: ignore[MPS201] why\n"},
      {FileKind::Shell, "nvidia-smi  # mpsaudit: ignore[MPS201] why\n"},
      {FileKind::Requirements, "cupy-cuda12x  # mpsaudit: ignore[MPS201] why\n"},
      {FileKind::Pyproject, "deps = [\"triton\"]  # mpsaudit: ignore[MPS201] why\n"},
      {FileKind::CondaEnv, "  - cudatoolkit  # mpsaudit: ignore[MPS201] why\n"},
      {FileKind::Cmake, "enable_language(CUDA)  # mpsaudit: ignore[MPS201] why\n"},
      {FileKind::Dockerfile, "FROM nvidia/cuda:12.1  # mpsaudit: ignore[MPS201] why\n"},
      {FileKind::Cxx, "cudaMalloc(&p, n);  // mpsaudit: ignore[MPS201] why\n"},
      {FileKind::Cuda, "kernel<<<1, 1>>>();  /* mpsaudit: ignore[MPS201] why */\n"},
      {FileKind::Prose, "Needs an A100. <!-- mpsaudit: ignore[MPS201] why -->\n"},
  };
  for (const auto &form : forms) {
    INFO(to_string(form.kind) << ": " << form.text);
    const auto applied = apply(form.kind, form.text, {finding_at("MPS201", 1)});
    REQUIRE(applied.findings.size() == 1);
    CHECK(applied.findings.front().suppressed);
    CHECK(applied.findings.front().suppression_reason == "why"); // comment closers stripped
  }
}

TEST_CASE("codes select by ID and by ID prefix; other rules stay", "[suppression]") {
  const auto applied = apply(
      FileKind::Python, "x  # mpsaudit: ignore[mps2, MPS101] both\n",
      {finding_at("MPS201", 1), finding_at("MPS209", 1), finding_at("MPS101", 1), finding_at("MPS102", 1)});
  CHECK(find(applied.findings, "MPS201", 1)->suppressed);
  CHECK(find(applied.findings, "MPS209", 1)->suppressed);
  CHECK(find(applied.findings, "MPS101", 1)->suppressed);
  CHECK_FALSE(find(applied.findings, "MPS102", 1)->suppressed);
  CHECK(applied.counts.unused == 0);
}

TEST_CASE("a directive without codes covers every rule on its line", "[suppression]") {
  const auto applied =
      apply(FileKind::Python, "x  # mpsaudit: ignore\n", {finding_at("MPS201", 1), finding_at("MPS301", 1)});
  CHECK(find(applied.findings, "MPS201", 1)->suppressed);
  CHECK(find(applied.findings, "MPS301", 1)->suppressed);
}

TEST_CASE("the file-level form covers the whole file, by family prefix", "[suppression]") {
  const auto applied = apply(FileKind::Python, "# mpsaudit: ignore-file[MPS2] a Linux launcher\na\nb\nc\n",
                             {finding_at("MPS201", 3), finding_at("MPS202", 4), finding_at("MPS101", 4)});
  CHECK(find(applied.findings, "MPS201", 3)->suppressed);
  CHECK(find(applied.findings, "MPS202", 4)->suppressed);
  CHECK(find(applied.findings, "MPS202", 4)->suppression_reason == "a Linux launcher");
  CHECK_FALSE(find(applied.findings, "MPS101", 4)->suppressed);
}

TEST_CASE("a finding spanning several lines is covered by a directive on any of them", "[suppression]") {
  Finding call = finding_at("MPS205", 2);
  call.span.end_line = 4;
  const auto applied =
      apply(FileKind::Python, "a\nstate = torch.load(\n  path,\n)  # mpsaudit: ignore[MPS205] cpu\n", {call});
  CHECK(applied.findings.front().suppressed);
}

TEST_CASE("unused directives and codes become MPS001 findings", "[suppression][meta]") {
  const auto applied = apply(FileKind::Python,
                             "x.cuda()  # mpsaudit: ignore[MPS201, MPS301] half used\n"
                             "y = 1  # mpsaudit: ignore\n"
                             "# mpsaudit: ignore-file[MPS4] no such imports\n",
                             {finding_at("MPS201", 1)});
  CHECK(find(applied.findings, "MPS201", 1)->suppressed);
  CHECK(applied.counts.directives == 3);
  CHECK(applied.counts.unused == 3);
  REQUIRE(count_rule(applied.findings, "MPS001") == 3);
  std::vector<std::string> names;
  for (const auto &finding : applied.findings)
    if (finding.rule_id == "MPS001") {
      names.push_back(finding.name);
      CHECK_FALSE(finding.suppressed);
      CHECK(finding.snippet.find("mpsaudit:") != std::string::npos);
    }
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"*", "MPS301", "MPS4"});
  const Finding *partial = find(applied.findings, "MPS001", 1);
  REQUIRE(partial);
  CHECK(partial->message.find("ignore[MPS301]") != std::string::npos);
}

TEST_CASE("naming MPS001 keeps a deliberate suppression quiet", "[suppression][meta]") {
  const auto applied = apply(FileKind::Python, "x  # mpsaudit: ignore[MPS201, MPS001] kept for later\n", {});
  REQUIRE(count_rule(applied.findings, "MPS001") == 1);
  CHECK(applied.findings.front().suppressed);
}

TEST_CASE("malformed directives are warnings naming the line, never crashes", "[suppression]") {
  const auto suppressions = find_suppressions("bad.py", FileKind::Python,
                                              "a  # mpsaudit: ignroe[MPS201]\n"
                                              "b  # mpsaudit: ignore[MPS201\n"
                                              "c  # mpsaudit: ignore[]\n"
                                              "d  # mpsaudit: ignore[E501]\n"
                                              "e = 'mpsaudit: not a comment'\n");
  CHECK(suppressions.directives.empty());
  REQUIRE(suppressions.diagnostics.size() == 4);
  for (std::uint32_t i = 0; i < 4; ++i) {
    CHECK(suppressions.diagnostics[i].line == i + 1);
    CHECK(suppressions.diagnostics[i].code == "invalid-suppression");
    CHECK(suppressions.diagnostics[i].level == DiagnosticLevel::Warning);
  }
}

TEST_CASE("through the Python front end and the rules, end to end", "[suppression]") {
  const auto findings = testing::findings_for(
      FileKind::Python, "import torch\n"
                        "m = torch.nn.Linear(2, 2).cuda()  # mpsaudit: ignore[MPS201] on the cluster\n"
                        "torch.cuda.synchronize()\n");
  bool saw_suppressed = false, saw_open = false;
  for (const auto &finding : findings) {
    if (finding.rule_id == "MPS201") {
      saw_suppressed = finding.suppressed && finding.suppression_reason == "on the cluster";
    }
    if (finding.rule_id == "MPS101")
      saw_open = !finding.suppressed;
  }
  CHECK(saw_suppressed);
  CHECK(saw_open);
  CHECK(
      std::none_of(findings.begin(), findings.end(), [](const Finding &f) { return f.rule_id == "MPS001"; }));
}

TEST_CASE("in notebooks a directive applies within its own code cell", "[suppression][notebook]") {
  // Cell 1 suppresses its own line; cell 2's identical line stays open. The
  // markdown cell does not count as a code cell.
  const std::string notebook = R"({"cells": [
 {"cell_type": "code", "metadata": {}, "outputs": [], "source": ["import torch\n", "x = torch.zeros(2).cuda()  # mpsaudit: ignore[MPS201] demo\n"]},
 {"cell_type": "markdown", "metadata": {}, "source": ["# mpsaudit: ignore[MPS201] prose, not code\n"]},
 {"cell_type": "code", "metadata": {}, "outputs": [], "source": ["x = torch.zeros(2).cuda()\n", "# mpsaudit: ignore[MPS101]\n", "y = 1\n"]}
], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})";
  const auto findings = testing::findings_for(FileKind::Notebook, notebook, "nb.ipynb");
  int suppressed = 0, open = 0;
  const Finding *unused = nullptr;
  for (const auto &finding : findings) {
    if (finding.rule_id == "MPS201")
      (finding.suppressed ? suppressed : open) += 1;
    if (finding.rule_id == "MPS001")
      unused = &finding;
  }
  CHECK(suppressed == 1);
  CHECK(open == 1);
  REQUIRE(unused);
  CHECK(unused->cell == 1); // the second code cell (0-based)
  CHECK(unused->cell_line == 2);
  CHECK(unused->span.line == 4); // its line in the .ipynb file
}
