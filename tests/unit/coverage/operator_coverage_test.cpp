// The mps-operator-coverage pass: torch calls looked up in the target
// release's coverage table, no LibTorch (docs/runtime-probe.md, "MPS gaps in
// the default scan").
#include <algorithm>
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "../test_support.h"
#include "coverage/operator_coverage_pass.h"
#include "coverage_table.h"

using namespace mpsaudit;

namespace {

const char *const kSpectral = R"(import torch
import torch.nn.functional as F
from torchvision.ops import nms, deform_conv2d

def run(wave, window, boxes, scores, image, x, offset, weight):
    spec = torch.stft(wave, 512, window=window, return_complex=True)
    keep = nms(boxes, scores, 0.5)
    sharp = F.interpolate(image, scale_factor=2, mode="bicubic", antialias=True)
    smooth = F.interpolate(image, scale_factor=2, mode="bilinear")
    u, s, vh = torch.linalg.svd(x)
    y = deform_conv2d(image, offset, weight)
    return torch.cdist(x, x), x.sort()
)";

// The mps-missing-op facts of `files`, as "line name: answer".
std::vector<std::string> gaps(const std::vector<ProjectFile> &files) {
  std::vector<std::string> out;
  for (const ProjectFile &file : files)
    for (const Fact &fact : file.facts.facts)
      if (fact.kind == kMpsMissingOpFact)
        out.push_back(std::to_string(fact.span.line) + " " + fact.name + ": " + *fact.attribute("value"));
  return out;
}

std::vector<std::string> gaps_for_release(const std::string &release,
                                          std::vector<ProjectFile> extra_files = {}) {
  OperatorCoverageSettings settings = source_tree_operator_coverage();
  settings.target_torch = release;
  configure_operator_coverage(settings);
  std::vector<ProjectFile> files{
      {"model.py", FileKind::Python, testing::extract(FileKind::Python, kSpectral)}};
  for (ProjectFile &file : extra_files)
    files.push_back(std::move(file));
  find_missing_mps_operators(files);
  configure_operator_coverage(source_tree_operator_coverage());
  return gaps(files);
}

bool has(const std::vector<std::string> &found, const std::string &text) {
  return std::any_of(found.begin(), found.end(), [&](const std::string &f) { return f == text; });
}

} // namespace

TEST_CASE("the same file gets a different answer for torch 2.0 and torch 2.11", "[coverage]") {
  const auto old_release = gaps_for_release("2.0");
  INFO(Catch::Detail::stringify(old_release));
  CHECK(has(old_release, "6 torch.stft: has no MPS kernel in torch 2.0.0 (added by 2.4.0); set "
                         "PYTORCH_ENABLE_MPS_FALLBACK=1 or move it to the CPU"));
  CHECK(has(old_release, "7 torchvision.ops.nms: has no MPS kernel in torch 2.0 (added in 2.1); set "
                         "PYTORCH_ENABLE_MPS_FALLBACK=1 or move it to the CPU"));
  CHECK(has(old_release, "8 torch.nn.functional.interpolate: has no MPS kernel in torch 2.0.0 (added by "
                         "2.11.0); set PYTORCH_ENABLE_MPS_FALLBACK=1 or move it to the CPU"));
  CHECK(has(old_release, "10 torch.linalg.svd: always falls back to the CPU under MPS in torch 2.0.0 "
                         "(MPSFallback.mm, whatever PYTORCH_ENABLE_MPS_FALLBACK says)"));
  CHECK(has(old_release, "11 torchvision.ops.deform_conv2d: has no MPS kernel in torch 2.0 (added in 2.8); "
                         "set PYTORCH_ENABLE_MPS_FALLBACK=1 or move it to the CPU"));
  CHECK(old_release.size() == 5); // bilinear interpolate, cdist and a method sort run on MPS

  const auto new_release = gaps_for_release("2.11");
  INFO(Catch::Detail::stringify(new_release));
  CHECK(new_release.size() == 1);
  CHECK(has(new_release, "10 torch.linalg.svd: always falls back to the CPU under MPS in torch 2.11.0 "
                         "(MPSFallback.mm, whatever PYTORCH_ENABLE_MPS_FALLBACK says)"));
}

TEST_CASE("without target-torch the manifests' torch pin picks the release", "[coverage]") {
  const auto pinned = gaps_for_release(
      "", {{"requirements.txt", FileKind::Requirements,
            testing::extract(FileKind::Requirements, "torch==2.0.1\n", "requirements.txt")}});
  CHECK(has(pinned, "7 torchvision.ops.nms: has no MPS kernel in torch 2.0.1 (added in 2.1); set "
                    "PYTORCH_ENABLE_MPS_FALLBACK=1 or move it to the CPU"));
  // Unpinned: the newest table, where only the forced-CPU svd is left.
  CHECK(gaps_for_release("").size() == 1);
}

TEST_CASE("without coverage tables the pass adds nothing", "[coverage]") {
  configure_operator_coverage({"/nonexistent/coverage", "/nonexistent/data", "2.0"});
  std::vector<ProjectFile> files{
      {"model.py", FileKind::Python, testing::extract(FileKind::Python, kSpectral)}};
  find_missing_mps_operators(files);
  configure_operator_coverage(source_tree_operator_coverage());
  CHECK(gaps(files).empty());
}

TEST_CASE("every extra row's ATen operators are in the newest table", "[coverage]") {
  const std::string root = std::string(MPSAUDIT_SOURCE_DIR) + "/runtime-probe";
  std::vector<probe::TableProblem> problems;
  const auto table = probe::read_table_file(root + "/coverage/2.11.0.tsv", problems);
  REQUIRE(table);
  std::ifstream extras(root + "/data/mps-extra-ops.tsv");
  int rows = 0;
  for (std::string line; std::getline(extras, line);) {
    if (line.empty() || line[0] == '#')
      continue;
    ++rows;
    std::stringstream columns(line);
    std::string name, when, aten;
    std::getline(columns, name, '\t');
    std::getline(columns, when, '\t');
    std::getline(columns, aten, '\t');
    std::stringstream operators(aten == "-" ? "" : aten);
    for (std::string op; std::getline(operators, op, ',');) {
      INFO(name << " -> " << op);
      CHECK(table->has_name(op));
    }
  }
  CHECK(rows > 10);
}

TEST_CASE("a method call is looked up only through an explicit row", "[coverage]") {
  // x.sort() could be a list; x.to_sparse() runs on MPS in the newest table.
  const auto findings = testing::findings_for(FileKind::Python, "import torch\nx.sort()\nx.to_sparse()\n");
  CHECK(testing::rule_ids(findings).empty());
}
