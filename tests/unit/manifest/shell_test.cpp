#include <catch2/catch.hpp>

#include "frontend/manifest/manifest_frontend.h"
#include "manifest_test_util.h"

using namespace mpsaudit;
using namespace mpsaudit::test;

TEST_CASE("shell commands, variables and launchers", "[manifest][shell]") {
  const FileFacts facts = extract_shell(R"sh(#!/bin/bash
#SBATCH --job-name=train
#SBATCH --gres=gpu:4
#SBATCH --partition=a100
export CUDA_HOME=/usr/local/cuda
nvidia-smi && echo ok
CUDA_VISIBLE_DEVICES=0,1 torchrun --nproc_per_node=2 train.py
python -m torch.distributed.launch \
    --nproc_per_node 8 train.py  # comment
if [ -x "$(command -v nvidia-smi)" ]; then echo gpu; fi
pip install torch --index-url https://download.pytorch.org/whl/cu121
)sh",
                                        "train.sh");
  CHECK(facts.diagnostics.empty());
  const auto directives = facts_of(facts, "job-directive", "sbatch");
  REQUIRE(directives.size() == 3);
  CHECK(attribute_or_empty(*directives[1], "gpus") == "gpu:4");
  CHECK(attribute_or_empty(*directives[0], "gpus").empty());
  CHECK(attribute_or_empty(*directives[2], "gpus") == "a100");

  const Fact &cuda_home = required_fact(facts, "env-var", "CUDA_HOME");
  CHECK(attribute_or_empty(cuda_home, "how") == "export");
  check_position(cuda_home, 5, 8);

  const Fact &smi = required_fact(facts, "shell", "nvidia-smi");
  CHECK(smi.span.line == 6);
  CHECK(fact_of(facts, "shell", "echo"));

  const Fact &visible = required_fact(facts, "env-var", "CUDA_VISIBLE_DEVICES");
  CHECK(attribute_or_empty(visible, "how") == "prefix");
  const Fact &torchrun = required_fact(facts, "shell", "torchrun");
  CHECK(torchrun.span.column == 26);
  CHECK(attribute_or_empty(torchrun, "env:CUDA_VISIBLE_DEVICES") == "0,1");

  const Fact &launch = required_fact(facts, "shell", "python");
  // The continued command, blanks collapsed, without its trailing comment.
  CHECK(attribute_or_empty(launch, "line") ==
        "python -m torch.distributed.launch --nproc_per_node 8 train.py");
  CHECK(attribute_or_empty(launch, "module") == "torch.distributed.launch");
  CHECK(launch.span.line == 8);

  const auto pips = facts_of(facts, "shell", "pip");
  REQUIRE(pips.size() == 1);
  const Fact &torch = required_fact(facts, "dependency", "torch");
  CHECK(attribute_or_empty(torch, "source") == "shell");
  const Fact &index = required_fact(facts, "package-index", "https://download.pytorch.org/whl/cu121");
  CHECK(attribute_or_empty(index, "cuda_tag") == "cu121");
}

TEST_CASE("Makefile recipes are read as shell, definitions are not", "[manifest][shell]") {
  const FileFacts facts = extract_shell(
      "NVCC ?= nvcc\nall: kernel.o\n\tnvcc -arch=sm_80 -c kernel.cu\n\t@nvidia-smi\n", "Makefile");
  CHECK(fact_of(facts, "shell", "nvcc"));
  CHECK(fact_of(facts, "shell", "nvcc")->span.line == 3);
  CHECK(fact_of(facts, "shell", "nvidia-smi"));
  CHECK(facts_of(facts, "shell").size() == 2);
}

TEST_CASE("Dockerfiles: base images, ENV and RUN", "[manifest][dockerfile]") {
  const FileFacts facts = extract_dockerfile(R"(ARG CUDA=11.8.0
FROM nvidia/cuda:${CUDA}-cudnn8-devel-ubuntu22.04 AS build
ENV TORCH_CUDA_ARCH_LIST="7.0 8.0" FORCE_CUDA=1
ENV NVIDIA_VISIBLE_DEVICES all
RUN apt-get update && \
    nvidia-smi
RUN ["python", "-c", "import torch"]
FROM build
FROM python:3.11-slim
)",
                                             "Dockerfile");
  CHECK(facts.diagnostics.empty());
  const auto images = facts_of(facts, "container-image");
  REQUIRE(images.size() == 2);
  CHECK(images[0]->name == "nvidia/cuda:11.8.0-cudnn8-devel-ubuntu22.04");
  CHECK(attribute_or_empty(*images[0], "repository") == "nvidia/cuda");
  CHECK(attribute_or_empty(*images[0], "cuda_tag") == "cuda");
  CHECK(images[0]->span.line == 2);
  CHECK(images[0]->span.column == 6);
  CHECK(images[1]->name == "python:3.11-slim");
  CHECK(attribute_or_empty(*images[1], "cuda_tag").empty());

  CHECK(attribute_or_empty(*fact_of(facts, "env-var", "TORCH_CUDA_ARCH_LIST"), "value") == "7.0 8.0");
  CHECK(fact_of(facts, "env-var", "FORCE_CUDA"));
  CHECK(attribute_or_empty(*fact_of(facts, "env-var", "NVIDIA_VISIBLE_DEVICES"), "value") == "all");
  const Fact &smi = required_fact(facts, "shell", "nvidia-smi");
  check_position(smi, 6, 5);
  CHECK(fact_of(facts, "shell", "python"));
}

TEST_CASE("unknown Dockerfile instructions are diagnosed", "[manifest][dockerfile][malformed]") {
  const FileFacts facts =
      extract_dockerfile("FROM nvidia/cuda:12.1.0-base\nFROMM x\nRUN nvidia-smi\n", "Dockerfile");
  REQUIRE(facts.diagnostics.size() == 1);
  CHECK(facts.diagnostics[0].line == 2);
  CHECK(facts.diagnostics[0].code == "unknown-instruction");
  CHECK(fact_of(facts, "shell", "nvidia-smi"));
}
