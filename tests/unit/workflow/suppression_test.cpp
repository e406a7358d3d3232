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
  CHECK(suppressions.malformed.empty());
}

TEST_CASE("the marker is found at every offset and in any case, and near misses are not", "[suppression]") {
  // The search tries sixteen positions at a time: put the marker on each
  // side of those blocks, at the end of the text, and beside decoys that
  // share its first and last letters. The lower-case marker is a directive;
  // another case is found too, and reported as malformed.
  for (const std::string marker : {"mpsaudit", "MPSAUDIT", "MpsAudit"})
    for (std::size_t padding = 0; padding < 40; ++padding) {
      const std::string decoys = "# mpsaudiT-ish mxxxxxxt maudit\n";
      const std::string text =
          decoys + std::string(padding, 'm') + "\nx = 1  # " + marker + ": ignore[MPS201]";
      INFO(marker << " after " << padding << " bytes");
      const auto suppressions = find_suppressions("a.py", FileKind::Python, text);
      if (marker == "mpsaudit") {
        REQUIRE(suppressions.directives.size() == 1);
        CHECK(suppressions.directives[0].line == 3);
        CHECK(suppressions.directives[0].codes == std::vector<std::string>{"MPS201"});
      } else {
        CHECK(suppressions.directives.empty());
        REQUIRE(suppressions.malformed.size() == 1);
        CHECK(suppressions.malformed[0].line == 3);
      }
    }
  CHECK(find_suppressions("a.py", FileKind::Python, "# mpsaudi t mpsaudiT\n" + std::string(64, 't')).empty());
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

TEST_CASE("every comment form is understood, in each file kind's own syntax", "[suppression]") {
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
      {FileKind::Metal, "kernel void k() {}  // mpsaudit: ignore[MPS201] why\n"},
      {FileKind::SetupPy, "install_requires=['cupy']  # mpsaudit: ignore[MPS201] why\n"},
      {FileKind::SetupCfg, "; mpsaudit: ignore-file[MPS201] why\n"},
      {FileKind::ModelConfig, "hidden_size: 4096  # mpsaudit: ignore[MPS201] why\n"},
      {FileKind::Python, "x.cuda()  # noqa: E501  # mpsaudit: ignore[MPS201] why\n"},
      {FileKind::Python, "x.cuda()  #mpsaudit:ignore[MPS201] why\n"}, // blanks are optional
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

TEST_CASE("malformed directives are MPS002 findings naming the line, never crashes", "[suppression][meta]") {
  const auto applied = apply(FileKind::Python,
                             "a  # mpsaudit: ignroe[MPS201]\n"
                             "b  # mpsaudit: ignore[MPS201\n"
                             "c  # mpsaudit: ignore[]\n"
                             "d  # mpsaudit: ignore[E501]\n"
                             "e = 'mpsaudit: not a comment'\n",
                             {finding_at("MPS201", 1), finding_at("MPS201", 2)});
  CHECK(applied.suppressions.directives.empty());
  CHECK_FALSE(find(applied.findings, "MPS201", 1)->suppressed);
  CHECK_FALSE(find(applied.findings, "MPS201", 2)->suppressed);
  REQUIRE(count_rule(applied.findings, "MPS002") == 4);
  for (std::uint32_t line = 1; line <= 4; ++line) {
    const Finding *bad = find(applied.findings, "MPS002", line);
    REQUIRE(bad);
    CHECK(bad->severity == static_cast<int>(Severity::Warning));
    CHECK(bad->message.find("suppresses nothing") != std::string::npos);
  }
  CHECK(find(applied.findings, "MPS002", 2)->message.find("no closing `]`") != std::string::npos);
}

// Finding 16 of the security review: near misses of the marker were skipped
// without a word, so the finding below them stayed open while its author
// believed it excused.
TEST_CASE("near misses of the marker are MPS002 findings and suppress nothing",
          "[suppression][meta][security]") {
  const std::vector<std::pair<std::string, std::string>> near_misses{
      {"x.cuda()  # MPSAUDIT: IGNORE[MPS201] why\n", "lower case"},
      {"x.cuda()  # Mpsaudit: ignore[MPS201] why\n", "lower case"},
      {"x.cuda()  # mpsaudit : ignore [MPS201] why\n", "colon right after"},
      {"x.cuda()  # mpsaudit ignore[MPS201] why\n", "colon right after"},
      {"x.cuda()  # mpsaudit-ignore[MPS201] why\n", "colon right after"},
      {"x.cuda()  # mpsaudit: IGNORE[MPS201] why\n", "directives are lower case"},
      {"x.cuda()  # mpsaudit: ignore [MPS201] why\n", "cover every rule"},
      {"x.cuda()  # mpsaudit: ignore-file [MPS201] why\n", "cover every rule"},
      {"x.cuda()  # mpsaudit: ignore[MPS201 why\n", "no closing `]`"},
      {"x.cuda()  // MPSAUDIT: ignore[MPS201] why\n", "lower case"},
  };
  for (const auto &[text, problem] : near_misses) {
    INFO(text);
    const auto applied = apply(text.find("//") != std::string::npos ? FileKind::Cxx : FileKind::Python, text,
                               {finding_at("MPS201", 1)});
    CHECK_FALSE(find(applied.findings, "MPS201", 1)->suppressed);
    const Finding *bad = find(applied.findings, "MPS002", 1);
    REQUIRE(bad);
    CHECK_FALSE(bad->suppressed);
    CHECK(bad->message.find(problem) != std::string::npos);
    CHECK(count_rule(applied.findings, "MPS001") == 0);
  }
  // Comments that merely mention mpsaudit are prose, not near misses.
  const auto prose = apply(FileKind::Python, "# mpsaudit runs in CI; see mpsaudit: docs\nx = 1\n", {});
  CHECK(prose.findings.empty());
}

TEST_CASE("an MPS002 finding can be silenced by naming MPS002, not by a blanket directive",
          "[suppression][meta]") {
  const auto named = apply(FileKind::Python,
                           "# mpsaudit: ignore-file[MPS002] kept as an example\n"
                           "x  # MPSAUDIT: IGNORE[MPS201]\n",
                           {});
  REQUIRE(count_rule(named.findings, "MPS002") == 1);
  CHECK(find(named.findings, "MPS002", 2)->suppressed);
  CHECK(count_rule(named.findings, "MPS001") == 0); // the MPS002 code was used
  const auto blanket =
      apply(FileKind::Python, "# mpsaudit: ignore-file\nx  # MPSAUDIT: IGNORE[MPS201]\n", {});
  REQUIRE(find(blanket.findings, "MPS002", 2));
  CHECK_FALSE(find(blanket.findings, "MPS002", 2)->suppressed);
}

// Finding 11 of the security review: a marker inside a string literal was
// honoured, so data could silence a whole file.
TEST_CASE("a marker inside a string, heredoc or code span suppresses nothing", "[suppression][security]") {
  struct Case {
    FileKind kind;
    std::string text;
    std::uint32_t finding_line;
  };
  const std::vector<Case> cases{
      {FileKind::Python, "help = \"see # mpsaudit: ignore-file[MPS2] docs\"\nx.cuda()\n", 2},
      {FileKind::Python, "help = '# mpsaudit: ignore[MPS201]'; x.cuda()\n", 1},
      {FileKind::Python, "\"\"\"Usage:\n# mpsaudit: ignore-file[MPS2]\n\"\"\"\nx.cuda()\n", 4},
      {FileKind::Python, "s = f'{x:#} # mpsaudit: ignore-file[MPS2]'\nx.cuda()\n", 2},
      {FileKind::Python, "s = f\"{d['k']} # mpsaudit: ignore-file[MPS2] {y}\"\nx.cuda()\n", 2},
      {FileKind::Python, "s = rb'''\n# mpsaudit: ignore-file[MPS2]\n'''\nx.cuda()\n", 4},
      {FileKind::SetupPy, "setup(description='# mpsaudit: ignore-file')\nx.cuda()\n", 2},
      {FileKind::Cxx, "const char *s = \"// mpsaudit: ignore-file\";\ncudaMalloc(&p, n);\n", 2},
      {FileKind::Cuda, "auto s = R\"(\n// mpsaudit: ignore-file\n)\";\ncudaMalloc(&p, n);\n", 4},
      {FileKind::Shell, "echo \"# mpsaudit: ignore-file\"\nnvidia-smi\n", 2},
      {FileKind::Shell, "cat <<EOF > x.py\n# mpsaudit: ignore-file\nEOF\nnvidia-smi\n", 4},
      {FileKind::Dockerfile, "LABEL note=\"# mpsaudit: ignore-file\"\nFROM nvidia/cuda:12.1\n", 2},
      {FileKind::Cmake, "message(\"# mpsaudit: ignore-file\")\nenable_language(CUDA)\n", 2},
      {FileKind::Pyproject, "description = \"# mpsaudit: ignore-file\"\ndeps = [\"triton\"]\n", 2},
      {FileKind::CondaEnv, "name: \"# mpsaudit: ignore-file\"\n  - cudatoolkit\n", 2},
      {FileKind::CondaEnv, "note: |\n  # mpsaudit: ignore-file\ndependencies:\n  - cudatoolkit\n", 4},
      {FileKind::Requirements, "x @ https://h/x.whl#mpsaudit:ignore-file\ncupy-cuda12x\n", 2},
      {FileKind::Prose, "Write `<!-- mpsaudit: ignore-file -->` to silence it.\nNeeds an A100.\n", 2},
      {FileKind::Prose, "```\n# mpsaudit: ignore-file\n```\nNeeds an A100.\n", 4},
      {FileKind::Prose, "# mpsaudit: ignore-file\nNeeds an A100.\n", 2}, // a heading, not a comment
  };
  for (const auto &test : cases) {
    INFO(to_string(test.kind) << ":\n" << test.text);
    const auto applied = apply(test.kind, test.text, {finding_at("MPS201", test.finding_line)});
    CHECK(applied.suppressions.directives.empty());
    CHECK(applied.suppressions.malformed.empty());
    CHECK_FALSE(find(applied.findings, "MPS201", test.finding_line)->suppressed);
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
  CHECK(unused->cell == 2); // cells are numbered by position, markdown cells included
  CHECK(unused->cell_line == 2);
  CHECK(unused->span.line == 4); // its line in the .ipynb file
}

TEST_CASE("in notebooks, cells after a markdown cell are matched by position", "[suppression][notebook]") {
  // Directives used to count code cells only while findings count every cell,
  // so a directive below a markdown cell never matched its finding.
  const std::string notebook = R"({"cells": [
 {"cell_type": "markdown", "metadata": {}, "source": ["# Setup\n"]},
 {"cell_type": "code", "metadata": {}, "outputs": [], "source": ["import torch\n", "x = torch.zeros(2).cuda()  # mpsaudit: ignore[MPS201] demo\n"]},
 {"cell_type": "code", "metadata": {}, "outputs": [], "source": ["note = '# mpsaudit: ignore-file[MPS2]'\n", "y = torch.zeros(2).cuda()\n"]}
], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})";
  const auto findings = testing::findings_for(FileKind::Notebook, notebook, "nb.ipynb");
  int suppressed = 0, open = 0;
  for (const auto &finding : findings) {
    CHECK(finding.rule_id != "MPS001");
    if (finding.rule_id == "MPS201")
      (finding.suppressed ? suppressed : open) += 1;
  }
  CHECK(suppressed == 1); // cell 2's directive
  CHECK(open == 1);       // cell 3's string is data, not a file-level directive
}

TEST_CASE("comments that only talk about mpsaudit are neither directives nor MPS002", "[suppression][meta]") {
  const auto applied = apply(FileKind::Cxx,
                             "// mpsaudit: can this repository run on a Mac?\n"
                             "// Write a suppression as `# mpsaudit: ignore[ID] reason`.\n"
                             "// Examples: \"x  # mpsaudit:\", \"/* mpsaudit:\"\n",
                             {});
  CHECK(applied.suppressions.directives.empty());
  CHECK(applied.suppressions.malformed.empty());
  CHECK(applied.findings.empty());
  // A typo of the directive, or an unknown word with a code list, is reported.
  const auto typos =
      apply(FileKind::Python, "a  # mpsaudit: ingore[MPS201]\nb  # mpsaudit: skip[MPS201]\n", {});
  CHECK(count_rule(typos.findings, "MPS002") == 2);
}
