#include <catch2/catch.hpp>

#include "frontend/manifest/manifest_frontend.h"
#include "manifest_test_util.h"

using namespace mpsaudit;
using namespace mpsaudit::test;

TEST_CASE("CMake commands become build facts with their arguments", "[manifest][cmake]") {
  const FileFacts facts = extract_cmake(R"(cmake_minimum_required(VERSION 3.18)
project(demo LANGUAGES CXX CUDA)  # a comment
#[[ a bracket
comment ]]
find_package(CUDAToolkit REQUIRED)
set(CMAKE_CUDA_ARCHITECTURES "70;80")
add_library(kernels STATIC src/a.cpp src/b.cu
            src/c.cuh)
target_link_libraries(kernels PRIVATE CUDA::cudart CUDA::cublas)
message(STATUS [=[bracket ] argument]=])
cuda_add_library(old src/d.cu)
)",
                                        "CMakeLists.txt");
  CHECK(facts.diagnostics.empty());
  const Fact &project = required_fact(facts, "build", "project");
  CHECK(attribute_or_empty(project, "languages") == "CXX CUDA");
  CHECK(project.span.line == 2);

  const Fact &find = required_fact(facts, "build", "find_package");
  CHECK(find.span.line == 5);
  check_attributes(find, {{"package", "CUDAToolkit"}, {"required", "true"}});

  const Fact &set = required_fact(facts, "build", "set");
  CHECK(attribute_or_empty(set, "variable") == "CMAKE_CUDA_ARCHITECTURES");
  REQUIRE(set.arguments.size() == 2);
  CHECK(set.arguments[1].value == "70;80");
  CHECK(set.arguments[1].is_string);

  const Fact &library = required_fact(facts, "build", "add_library");
  CHECK(attribute_or_empty(library, "cuda_sources") == "src/b.cu,src/c.cuh");
  CHECK(attribute_or_empty(*fact_of(facts, "build", "target_link_libraries"), "cuda_targets") ==
        "CUDA::cudart,CUDA::cublas");
  const Fact &message = required_fact(facts, "build", "message");
  CHECK(message.arguments.at(1).value == "bracket ] argument");
  CHECK(fact_of(facts, "build", "cuda_add_library"));
}

TEST_CASE("optional CUDA in CMake is a guard", "[manifest][cmake]") {
  const FileFacts facts = extract_cmake(R"(include(CheckLanguage)
check_language(CUDA)
if(CMAKE_CUDA_COMPILER)
  enable_language(CUDA)
  target_sources(k PRIVATE k.cu)
else()
  target_sources(k PRIVATE k_cpu.cpp)
endif()
if(NOT APPLE)
  find_package(NCCL)
endif()
enable_language(CUDA)
)",
                                        "CMakeLists.txt");
  const auto enables = facts_of(facts, "build", "enable_language");
  REQUIRE(enables.size() == 2);
  CHECK(enables[0]->guard == Guard::CudaCheck);
  CHECK(enables[1]->guard == Guard::None);
  const auto sources = facts_of(facts, "build", "target_sources");
  REQUIRE(sources.size() == 2);
  CHECK(sources[0]->guard == Guard::CudaCheck);
  CHECK(sources[1]->guard == Guard::None);
  CHECK(fact_of(facts, "build", "find_package")->guard == Guard::PlatformCheck);
}

TEST_CASE("an unterminated CMake argument gives a diagnostic with its line", "[manifest][cmake][malformed]") {
  const FileFacts facts = extract_cmake(
      "project(demo)\nfind_package(CUDA)\nset(X \"open\n\nadd_library(a b.cu)\n", "CMakeLists.txt");
  REQUIRE_FALSE(facts.diagnostics.empty());
  CHECK(facts.diagnostics[0].path == "CMakeLists.txt");
  CHECK(facts.diagnostics[0].line == 3);
  // What came before is still there.
  CHECK(fact_of(facts, "build", "find_package"));

  const FileFacts unclosed = extract_cmake("find_package(CUDA)\nadd_library(a\n  b.cu\n", "x.cmake");
  REQUIRE_FALSE(unclosed.diagnostics.empty());
  CHECK(unclosed.diagnostics[0].line == 2);
  CHECK(fact_of(unclosed, "build", "find_package"));

  const FileFacts garbage = extract_cmake("= nonsense\nfind_package(Torch)\n", "x.cmake");
  REQUIRE(garbage.diagnostics.size() == 1);
  CHECK(garbage.diagnostics[0].line == 1);
  CHECK(fact_of(garbage, "build", "find_package"));
}

TEST_CASE("CMake: sources added only under a CUDA test are optional", "[manifest][cmake][cpu-fallback]") {
  auto optional = [](const FileFacts &facts, std::string_view name) {
    const auto found = facts_of(facts, "build-source", name);
    REQUIRE(found.size() == 1);
    CHECK(attribute_or_empty(*found.front(), "build") == "cmake");
    return attribute_or_empty(*found.front(), "optional");
  };
  SECTION("through a variable that only a CUDA branch uses") {
    const FileFacts facts = extract_cmake(R"(project(ops LANGUAGES CXX)
file(GLOB OPS_SOURCES csrc/*.cpp)
file(GLOB_RECURSE OPS_CUDA_SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/csrc/*.cu)
set(EXTRA_CUDA csrc/extra_kernel.cu)
include(CheckLanguage)
check_language(CUDA)
if(CMAKE_CUDA_COMPILER)
  enable_language(CUDA)
  list(APPEND OPS_SOURCES ${OPS_CUDA_SOURCES})
  target_sources(ops PRIVATE ${EXTRA_CUDA} csrc/direct_kernel.cu)
endif()
add_library(ops SHARED ${OPS_SOURCES})
)",
                                          "CMakeLists.txt");
    CHECK(optional(facts, "${CMAKE_CURRENT_SOURCE_DIR}/csrc/*.cu") == "true");
    CHECK(optional(facts, "csrc/extra_kernel.cu") == "true");
    CHECK(optional(facts, "csrc/direct_kernel.cu") == "true");
    CHECK(optional(facts, "csrc/*.cpp") == "false");
  }
  SECTION("a project that requires CUDA builds everything with it") {
    const FileFacts facts = extract_cmake(R"(project(ops LANGUAGES CXX CUDA)
if(CUDA_FOUND)
  add_library(ops_cuda csrc/kernel.cu)
endif()
)",
                                          "CMakeLists.txt");
    CHECK(optional(facts, "csrc/kernel.cu") == "false");
  }
  SECTION("sources listed outside any test") {
    const FileFacts facts = extract_cmake("add_library(ops csrc/ops.cpp csrc/kernel.cu)\n", "CMakeLists.txt");
    CHECK(optional(facts, "csrc/kernel.cu") == "false");
    CHECK(optional(facts, "csrc/ops.cpp") == "false");
  }
}

TEST_CASE("CMake: a command that enables CUDA points at the CUDA word", "[manifest][cmake]") {
  const FileFacts facts = extract_cmake("project(\n"
                                        "\ttiny\n"
                                        "\tVERSION 2.0\n"
                                        "\tLANGUAGES CXX CUDA\n"
                                        ")\n"
                                        "enable_language(CXX)\n",
                                        "CMakeLists.txt");
  const Fact &project = required_fact(facts, "build", "project");
  check_position(project, 4, 16);
  CHECK(project.span.end_column == 20);
  // A command without CUDA keeps its own place.
  const Fact &other = required_fact(facts, "build", "enable_language");
  check_position(other, 6, 1);
}
