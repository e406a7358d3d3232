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
  const Fact *nvidia = fact_of(facts, "conda-channel", "nvidia");
  REQUIRE(nvidia);
  CHECK(nvidia->span.line == 4);
  CHECK(nvidia->span.column == 5);

  const Fact *pytorch = fact_of(facts, "dependency", "pytorch");
  REQUIRE(pytorch);
  CHECK(attribute_or_empty(*pytorch, "build") == "py3.10_cuda11.8_cudnn8.7.0_0");
  CHECK_FALSE(attribute_or_empty(*pytorch, "cuda_tag").empty());

  const Fact *pytorch_cuda = fact_of(facts, "dependency", "pytorch-cuda");
  REQUIRE(pytorch_cuda);
  CHECK(pytorch_cuda->span.line == 8);
  CHECK(attribute_or_empty(*pytorch_cuda, "version") == "11.8");
  CHECK(attribute_or_empty(*pytorch_cuda, "source") == "conda");

  const Fact *cudnn = fact_of(facts, "dependency", "cudnn");
  REQUIRE(cudnn);
  CHECK(attribute_or_empty(*cudnn, "channel") == "nvidia");
  CHECK(cudnn->span.column == 14);

  const Fact *flash = fact_of(facts, "dependency", "flash-attn");
  REQUIRE(flash);
  CHECK(flash->span.line == 12);
  CHECK(flash->span.column == 9);
  CHECK(attribute_or_empty(*flash, "source") == "conda-pip");
  const Fact *index = fact_of(facts, "package-index", "https://download.pytorch.org/whl/cu118");
  REQUIRE(index);
  CHECK(index->span.line == 13);
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
