#include <catch2/catch.hpp>

#include "frontend/manifest/manifest_frontend.h"
#include "manifest_test_util.h"

using namespace mpsaudit;
using namespace mpsaudit::test;

TEST_CASE("conda environments: channels, CUDA packages and the pip section", "[manifest][conda]") {
  const FileFacts facts = extract_conda_env(R"(name: demo
channels:
  - pytorch
  - nvidia
dependencies:
  - python=3.10
  - pytorch=2.1.0=py3.10_cuda11.8_cudnn8.7.0_0
  - pytorch-cuda=11.8
  - "nvidia::cudnn"
  - pip
  - pip:
      - flash-attn==2.5.0
      - --extra-index-url https://download.pytorch.org/whl/cu118
)",
                                            "environment.yml");
  CHECK(facts.diagnostics.empty());
  const Fact &nvidia = required_fact(facts, "conda-channel", "nvidia");
  check_position(nvidia, 4, 5);

  const Fact &pytorch = required_fact(facts, "dependency", "pytorch");
  CHECK(attribute_or_empty(pytorch, "build") == "py3.10_cuda11.8_cudnn8.7.0_0");
  CHECK_FALSE(attribute_or_empty(pytorch, "cuda_tag").empty());

  const Fact &pytorch_cuda = required_fact(facts, "dependency", "pytorch-cuda");
  CHECK(pytorch_cuda.span.line == 8);
  check_attributes(pytorch_cuda, {{"version", "11.8"}, {"source", "conda"}});

  const Fact &cudnn = required_fact(facts, "dependency", "cudnn");
  CHECK(attribute_or_empty(cudnn, "channel") == "nvidia");
  CHECK(cudnn.span.column == 14);

  const Fact &flash = required_fact(facts, "dependency", "flash-attn");
  check_position(flash, 12, 9);
  CHECK(attribute_or_empty(flash, "source") == "conda-pip");
  const Fact &index = required_fact(facts, "package-index", "https://download.pytorch.org/whl/cu118");
  CHECK(index.span.line == 13);
}

TEST_CASE("YAML with tabs gives a diagnostic with its line", "[manifest][conda][malformed]") {
  const FileFacts facts =
      extract_conda_env("name: demo\ndependencies:\n\t- pytorch-cuda=11.8\n", "environment.yml");
  REQUIRE(facts.diagnostics.size() == 1);
  CHECK(facts.diagnostics[0].path == "environment.yml");
  CHECK(facts.diagnostics[0].line == 3);
  CHECK(facts.diagnostics[0].code == "parse-error");
}

TEST_CASE("a conda file that is not a mapping is diagnosed", "[manifest][conda][malformed]") {
  const FileFacts facts = extract_conda_env("- just\n- a list\n", "environment.yml");
  REQUIRE(facts.diagnostics.size() == 1);
  CHECK(facts.diagnostics[0].line == 1);
}
