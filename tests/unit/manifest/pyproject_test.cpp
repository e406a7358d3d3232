#include <catch2/catch.hpp>

#include "frontend/manifest/manifest_frontend.h"
#include "manifest_test_util.h"

using namespace mpsaudit;
using namespace mpsaudit::test;

TEST_CASE("PEP 621 dependencies, extras and build requirements", "[manifest][pyproject]") {
  const FileFacts facts = extract_pyproject(R"([build-system]
requires = ["setuptools", "torch>=2.0"]

[project]
name = "demo"
dependencies = [
  "numpy>=1.24",
  "triton==2.1.0; platform_system == 'Linux'",
]

[project.optional-dependencies]
cuda = ["flash-attn>=2.0"]

[dependency-groups]
dev = ["pytest"]
)",
                                            "pyproject.toml");
  CHECK(facts.diagnostics.empty());
  const auto torch = facts_of(facts, "dependency", "torch");
  REQUIRE(torch.size() == 1);
  CHECK(attribute_or_empty(*torch[0], "source") == "build-system");
  CHECK(torch[0]->span.line == 2);
  CHECK(torch[0]->span.column == 28);

  const Fact &triton = required_fact(facts, "dependency", "triton");
  CHECK(triton.guard == Guard::PlatformCheck);
  check_position(triton, 8, 4);

  const Fact &flash = required_fact(facts, "dependency", "flash-attn");
  CHECK(flash.guard == Guard::OptionalExtra);
  CHECK(attribute_or_empty(flash, "extra") == "cuda");

  const Fact &pytest = required_fact(facts, "dependency", "pytest");
  CHECK(attribute_or_empty(pytest, "group") == "dev");
}

TEST_CASE("Poetry dependencies, groups and CUDA sources", "[manifest][pyproject]") {
  const FileFacts facts = extract_pyproject(R"([tool.poetry]
name = "demo"

[tool.poetry.dependencies]
python = "^3.10"
torch = { version = "2.1.0+cu118", source = "pytorch-cu118" }
bitsandbytes = { version = "^0.41", optional = true }
numpy = "^1.24"

[tool.poetry.group.dev.dependencies]
black = "^23"

[[tool.poetry.source]]
name = "pytorch-cu118"
url = "https://download.pytorch.org/whl/cu118"
priority = "explicit"
)",
                                            "pyproject.toml");
  CHECK(facts.diagnostics.empty());
  CHECK_FALSE(fact_of(facts, "dependency", "python"));
  const Fact &torch = required_fact(facts, "dependency", "torch");
  check_position(torch, 6, 1);
  check_attributes(torch, {{"source", "poetry"},
                           {"local_version", "cu118"},
                           {"cuda_tag", "cu118"},
                           {"index_url", "https://download.pytorch.org/whl/cu118"}});

  CHECK(required_fact(facts, "dependency", "bitsandbytes").guard == Guard::OptionalExtra);
  CHECK(attribute_or_empty(*fact_of(facts, "dependency", "black"), "group") == "dev");

  const Fact &index = required_fact(facts, "package-index", "https://download.pytorch.org/whl/cu118");
  CHECK(index.span.line == 15);
  check_attributes(index, {{"option", "poetry-source"}, {"explicit", "true"}});
}

TEST_CASE("uv sources tie a dependency to a CUDA index unless a marker excludes the Mac",
          "[manifest][pyproject]") {
  const FileFacts facts = extract_pyproject(R"([project]
dependencies = ["torch>=2.1", "torchvision"]

[[tool.uv.index]]
name = "pytorch-cu121"
url = "https://download.pytorch.org/whl/cu121"
explicit = true

[tool.uv.sources]
torch = { index = "pytorch-cu121" }
torchvision = [{ index = "pytorch-cu121", marker = "sys_platform == 'linux'" }]
)",
                                            "pyproject.toml");
  CHECK(attribute_or_empty(*fact_of(facts, "dependency", "torch"), "cuda_tag") == "cu121");
  CHECK(attribute_or_empty(*fact_of(facts, "dependency", "torchvision"), "cuda_tag").empty());
}

TEST_CASE("broken TOML gives a diagnostic with its line", "[manifest][pyproject][malformed]") {
  const FileFacts facts =
      extract_pyproject("[project]\nname = \"x\"\ndependencies = [\"torch\",\n", "pyproject.toml");
  REQUIRE(facts.diagnostics.size() == 1);
  CHECK(facts.diagnostics[0].path == "pyproject.toml");
  CHECK(facts.diagnostics[0].code == "parse-error");
  CHECK(facts.diagnostics[0].line >= 3);
  CHECK(facts.facts.empty());
}

TEST_CASE("setup.cfg install_requires and extras_require", "[manifest][setup-cfg]") {
  const FileFacts facts = extract_setup_cfg(R"([metadata]
name = demo

[options]
install_requires =
    torch>=2.0
    xformers ; sys_platform != "darwin"

[options.extras_require]
gpu =
    cupy-cuda12x
)",
                                            "setup.cfg");
  CHECK(facts.diagnostics.empty());
  const Fact &torch = required_fact(facts, "dependency", "torch");
  check_position(torch, 6, 5);
  CHECK(attribute_or_empty(torch, "source") == "setup-cfg");
  CHECK(fact_of(facts, "dependency", "xformers")->guard == Guard::PlatformCheck);
  const Fact &cupy = required_fact(facts, "dependency", "cupy-cuda12x");
  CHECK(cupy.guard == Guard::OptionalExtra);
  CHECK(attribute_or_empty(cupy, "extra") == "gpu");
}
