// Stated requirements in prose: what must be found, and the decoys that must
// not be (mentions of CUDA/GPUs that are not requirements, changelogs).
#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

#include <catch2/catch.hpp>

#include "../test_support.h"
#include "core/confined_file.h"
#include "frontend/prose/prose_frontend.h"

using namespace mpsaudit;

namespace {

using Requirement = std::tuple<std::string, std::string, std::uint32_t>; // class, value, line

std::set<Requirement> requirements(const std::string &text, const std::string &path = "README.md") {
  std::set<Requirement> out;
  for (const Fact &fact : extract_prose_text(text, path).facts) {
    if (fact.kind == "shell") // launch commands: their own test below
      continue;
    REQUIRE(fact.kind == "doc-requirement");
    REQUIRE(fact.attribute("sentence"));
    out.insert({fact.name, *fact.attribute("value"), fact.span.line});
  }
  return out;
}

std::string read_sample(const std::string &relative) {
  const std::optional<std::string> text =
      read_whole_file(std::string(MPSAUDIT_SOURCE_DIR) + "/samples/memory-fit/" + relative);
  REQUIRE(text);
  return *text;
}

} // namespace

TEST_CASE("the sample README: every stated requirement, no decoy", "[prose]") {
  const auto found = requirements(read_sample("README.md"));
  const std::set<Requirement> expected{
      {"cuda-toolkit", "11.8", 14},       // - PyTorch 2.1 with CUDA 11.8
      {"nvidia-driver", "520.61.05", 15}, // - NVIDIA driver >= 520.61.05
      {"gpu-model", "compute capability 8.0", 16},
      {"gpu-model", "sm_80", 16},
      {"vram", "24 GB", 17}, // - At least 24 GB of GPU memory
      {"linux-only", "Linux only", 19},
      {"cuda-toolkit", "11.8", 25}, // conda install ... pytorch-cuda=11.8
      {"cuda-index", "cu118", 26},  // pip install ... /whl/cu118
  };
  CHECK(found == expected);
}

TEST_CASE("the quoted sentence is the sentence, not the paragraph", "[prose]") {
  const FileFacts facts = extract_prose_text(
      "Welcome to the project. It is fast.\nTraining requires an A100 GPU. Inference is cheap.\n",
      "README.md");
  REQUIRE(facts.facts.size() == 1);
  CHECK(*facts.facts.front().attribute("sentence") == "Training requires an A100 GPU.");
  CHECK(facts.facts.front().span.line == 2);
  CHECK(facts.facts.front().span.column == 22); // "Training requires an " is 21 bytes
  CHECK(facts.facts.front().span.end_column == 26);
}

TEST_CASE("decoys: mentions that are not requirements", "[prose][precision]") {
  for (const char *text : {
           "The code runs on CPU or GPU.",
           "Our method is 3x faster than the baseline on an A100.",
           "We trained the released model on 8 A100 GPUs for two days.",
           "Mixed precision reduces GPU memory by 4 GB compared with fp32.",
           "CUDA is a parallel computing platform by NVIDIA.",
           "Set CUDA_VISIBLE_DEVICES to pick a GPU.",
           "Tested on Linux and macOS.",
           "Windows is not supported.",
           "See the paper (Table 3) for results on V100 and A100.",
           "The dataset is 24 GB on disk.",
           "Update your graphics drivers if the window stays black.",
           "Version 11.8 of the dataset adds 24 new classes.",
           "The rule fires on sentences like \"at least 24 GB of GPU memory\".",
           "Write `requires CUDA 11.8` in the README.",
       }) {
    INFO(text);
    CHECK(requirements(text).empty());
  }
}

TEST_CASE("changelogs do not state requirements", "[prose][precision]") {
  const std::string changes =
      "## v1.2.0\n\n- Added CUDA 12.1 support; requires driver 530.30.\n- Fixed OOM on A100 with 40 GB.\n";
  CHECK(requirements(changes, "CHANGELOG.md").empty());
  CHECK(requirements(changes, "docs/HISTORY.rst").empty());
  // A changelog section inside a README, and dated news items elsewhere.
  const std::string readme = "# Tool\n\n## News\n\n- Requires CUDA 12.1 now.\n\n## Install\n\n"
                             "- 2024-01-05: we now require CUDA 12.1\n- Requires CUDA 11.8\n";
  CHECK(requirements(readme) == std::set<Requirement>{{"cuda-toolkit", "11.8", 10}});
}

TEST_CASE("requirement sections make bare mentions count", "[prose]") {
  const std::string text = "## Hardware\n\n- 1x A100 (80GB)\n\n## Results\n\n- 1x A100 gives 30 it/s\n";
  CHECK(requirements(text) == std::set<Requirement>{{"gpu-model", "A100", 3}, {"vram", "80 GB", 3}});
}

TEST_CASE("install specs and wheel indexes count inside code blocks", "[prose]") {
  const std::string text =
      "Setup:\n\n```\nconda install cudatoolkit=11.3 -c nvidia\n"
      "pip install torch==1.13.1+cu117 -f https://download.pytorch.org/whl/torch_stable.html\n"
      "# CUDA 10 is too old\n```\n";
  CHECK(requirements(text) == std::set<Requirement>{{"cuda-toolkit", "11.3", 4}, {"cuda-index", "cu117", 5}});
}

TEST_CASE("commands in inline code still count", "[prose]") {
  CHECK(requirements("Run `conda install pytorch-cuda=12.1 -c nvidia` first.\n") ==
        std::set<Requirement>{{"cuda-toolkit", "12.1", 1}});
  CHECK(requirements("Use `pip install torch --index-url https://download.pytorch.org/whl/cu121`.\n") ==
        std::set<Requirement>{{"cuda-index", "cu121", 1}});
}

TEST_CASE("reStructuredText: headings, literal blocks, directives", "[prose]") {
  const std::string text =
      "Installation\n============\n\nInstall with::\n\n"
      "    pip install mmcv-full -f https://download.openmmlab.com/mmcv/dist/cu113/torch1.11/index.html\n\n"
      ".. note:: ignored directive\n\n"
      "The CUDA extensions are not supported on macOS.\n\n"
      "Changelog\n---------\n\n* Dropped support for CUDA 10.2.\n";
  CHECK(requirements(text, "docs/install.rst") ==
        std::set<Requirement>{{"cuda-index", "cu113", 6}, {"linux-only", "macOS not supported", 10}});
}

TEST_CASE("HTML comments and long lines", "[prose][malformed]") {
  CHECK(requirements("<!-- Requires CUDA 11.8 -->\n<!--\nRequires an A100\n-->\n").empty());
  const std::string long_line(200000, 'a');
  CHECK(requirements(long_line + " requires CUDA 11.8\n").empty()); // cut before matching, no crash
  CHECK(requirements(std::string("\xff\xfe requires CUDA 11.8\n")) ==
        std::set<Requirement>{{"cuda-toolkit", "11.8", 1}});
}

TEST_CASE("prose rules fire on requirements and stay silent on decoys", "[prose][rules]") {
  using testing::findings_for;
  using testing::rule_ids;
  const auto ids = rule_ids(findings_for(FileKind::Prose, read_sample("README.md"), "README.md"));
  for (const char *id : {"MPS950", "MPS951", "MPS952", "MPS953", "MPS954", "MPS955"}) {
    INFO(id);
    CHECK(std::count(ids.begin(), ids.end(), id) >= 1);
  }
  CHECK(findings_for(FileKind::Prose, "The code runs on CPU or GPU.\n").empty());
  const auto findings = findings_for(FileKind::Prose, "You need CUDA 11.8.\n");
  REQUIRE(findings.size() == 1);
  CHECK(findings.front().message == "documentation requires CUDA 11.8: \"You need CUDA 11.8.\"");
}

TEST_CASE("launch commands in code blocks and inline code are shell facts", "[prose][entry-points]") {
  const std::string readme = "# Usage\n"
                             "Prepare, then train:\n"
                             "```bash\n"
                             "$ python prepare.py --out data/\n"
                             "CUDA_VISIBLE_DEVICES=0 torchrun --nproc_per_node 2 train.py --epochs 3\n"
                             "pip install -r requirements.txt\n"
                             "python -m pkg.serve --port 8000\n"
                             "```\n"
                             "Then `python sample.py --count 4` prints samples; `utils.py` has helpers.\n"
                             "```python\n"
                             "model = train(data)\n"
                             "```\n";
  using Launch = std::tuple<std::uint32_t, std::uint32_t, std::string, std::string, std::string>;
  std::vector<Launch> launches; // line, column, command, args, module
  for (const Fact &fact : extract_prose_text(readme, "README.md").facts)
    if (fact.kind == "shell") {
      const std::string *module = fact.attribute("module");
      launches.emplace_back(fact.span.line, fact.span.column, fact.name, *fact.attribute("args"),
                            module ? *module : "");
    }
  // Not pip (no launcher), not a file named in inline code, not Python code.
  CHECK(launches == std::vector<Launch>{{4, 3, "python", "prepare.py --out data/", ""},
                                        {5, 24, "torchrun", "--nproc_per_node 2 train.py --epochs 3", ""},
                                        {7, 1, "python", "-m pkg.serve --port 8000", "pkg.serve"},
                                        {9, 7, "python", "sample.py --count 4", ""}});
}
