// What the documentation's own examples and instructions ask of a Mac user:
// CUDA-only example code, Intel-only macOS build lines, Linux and NVIDIA GPUs
// in requirement lists, multi-GPU commands, fp16 recipes.
#include <algorithm>

#include <catch2/catch.hpp>

#include "../test_support.h"
#include "frontend/prose/prose_frontend.h"

using namespace mpsaudit;

namespace {

std::vector<const Fact *> facts_named(const FileFacts &facts, const std::string &name) {
  std::vector<const Fact *> out;
  for (const Fact &fact : facts.facts)
    if (fact.name == name)
      out.push_back(&fact);
  return out;
}

} // namespace

TEST_CASE("CUDA-only example code is one finding per file, with the count of the others", "[prose][docs]") {
  const FileFacts facts = extract_prose_text("# Usage\n"
                                             "\n"
                                             "```python\n"
                                             "model = Net().to('cuda')\n"
                                             "x = x.cuda()\n"
                                             "y = torch.zeros(3, device=\"cuda:0\")\n"
                                             "```\n",
                                             "README.md");
  const auto examples = facts_named(facts, "cuda-example");
  REQUIRE(examples.size() == 1);
  CHECK(examples.front()->span.line == 4);
  CHECK(*examples.front()->attribute("value") == ".to('cuda')");
  CHECK(*examples.front()->attribute("more") == " (and 2 more lines of this file)");
}

TEST_CASE("example code with an MPS branch, and CUDA in prose, are not CUDA-only examples", "[prose][docs]") {
  const FileFacts facts = extract_prose_text("Use `model.cuda()` on a Linux box.\n"
                                             "\n"
                                             "```python\n"
                                             "device = 'cuda' if torch.cuda.is_available() else 'mps' if "
                                             "torch.backends.mps.is_available() else 'cpu'\n"
                                             "model.to(device)\n"
                                             "```\n",
                                             "README.md");
  CHECK(facts_named(facts, "cuda-example").empty());
}

TEST_CASE("the CUDA-else-CPU choice is named as such", "[prose][docs]") {
  const FileFacts facts = extract_prose_text(
      "```\ndevice = \"cuda\" if torch.cuda.is_available() else \"cpu\"\n```\n", "README.md");
  const auto examples = facts_named(facts, "cuda-example");
  REQUIRE(examples.size() == 1);
  CHECK(*examples.front()->attribute("value") == "\"cuda\" if torch.cuda.is_available() else CPU");
}

TEST_CASE("a requirements lead-in makes a bare Linux or NVIDIA GPU item a requirement", "[prose][docs]") {
  const std::string text = "Core requirements:\n"
                           "- Linux\n"
                           "- NVIDIA GPU\n"
                           "\n"
                           "Our results:\n"
                           "- Linux\n";
  const FileFacts facts = extract_prose_text(text, "README.md");
  const auto linux = facts_named(facts, "linux-only");
  REQUIRE(linux.size() == 1);
  CHECK(linux.front()->span.line == 2);
  const auto gpu = facts_named(facts, "gpu-model");
  REQUIRE(gpu.size() == 1);
  CHECK(*gpu.front()->attribute("value") == "an NVIDIA GPU");
  // An item that offers macOS as well states no Linux requirement.
  CHECK(facts_named(extract_prose_text("Requirements:\n- Linux or macOS with Python 3.8\n", "INSTALL.md"),
                    "linux-only")
            .empty());
}

TEST_CASE("a Linux installation heading counts only where the document never mentions a Mac",
          "[prose][docs]") {
  const std::string linux_only = "# Installation\n\n## Linux\n\npip install .\n\n## Windows\n\nUse WSL.\n";
  const FileFacts facts = extract_prose_text(linux_only, "README.md");
  const auto found = facts_named(facts, "linux-only");
  REQUIRE(found.size() == 1);
  CHECK(found.front()->span.line == 3);
  CHECK(
      facts_named(extract_prose_text(linux_only + "\n## macOS\n\npip install .\n", "README.md"), "linux-only")
          .empty());
}

TEST_CASE("x86_64 macOS build flags, multi-GPU commands and fp16 recipes", "[prose][docs]") {
  const FileFacts facts = extract_prose_text("```bash\n"
                                             "ARCHFLAGS=\"-arch x86_64\" pip install -e .\n"
                                             "ARCHFLAGS=\"-arch arm64\" pip install -e .\n"
                                             "torchrun --nproc_per_node 1 train.py\n"
                                             "torchrun --nproc_per_node 8 train.py --amp\n"
                                             "python train.py --amp-dtype bfloat16\n"
                                             "```\n",
                                             "INSTALL.md");
  const auto x86 = facts_named(facts, "x86-arch");
  REQUIRE(x86.size() == 1);
  CHECK(x86.front()->span.line == 2);
  const auto launch = facts_named(facts, "multi-gpu-command");
  REQUIRE(launch.size() == 1);
  CHECK(launch.front()->span.line == 5);
  const auto fp16 = facts_named(facts, "fp16-example");
  REQUIRE(fp16.size() == 1);
  CHECK(fp16.front()->span.line == 5);
}

TEST_CASE("documentation findings never block and never decide the verdict", "[prose][docs][rules]") {
  const RuleCatalog &catalog = testing::repository_catalog();
  for (const Rule &rule : catalog.rules()) {
    if (rule.family != "docs")
      continue;
    INFO(rule.id);
    CHECK(rule.severity != Severity::Error);
    CHECK(rule.effort != Effort::Blocker);
  }
}
