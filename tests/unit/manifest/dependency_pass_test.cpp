#include <catch2/catch.hpp>

#include <algorithm>

#include "../test_support.h"
#include "frontend/manifest/dependency_pass.h"
#include "frontend/manifest/manifest_frontend.h"
#include "manifest_test_util.h"

using namespace mpsaudit;
using namespace mpsaudit::test;
using mpsaudit::testing::python_file;

namespace {

Fact import_fact(const std::string &module, std::uint32_t line) {
  Fact fact;
  fact.kind = "import";
  fact.name = module;
  fact.span = {line, 1, line, 7};
  return fact;
}

ProjectFile requirements_file(const std::string &text) {
  SourceFile source;
  source.path = "requirements.txt";
  source.text = text;
  ProjectFile file;
  file.path = source.path;
  file.kind = FileKind::Requirements;
  file.facts = extract_requirements(source, ExtractOptions{});
  return file;
}

} // namespace

TEST_CASE("declared but never imported, and imported but never declared", "[manifest][pass]") {
  std::vector<ProjectFile> files;
  files.push_back(requirements_file("torch\nopencv-python\nfaiss-gpu\nscipy\nninja\n"));
  files.push_back(python_file("src/demo/train.py",
                              {import_fact("torch.nn", 1), import_fact("cv2", 2),
                               import_fact("flash_attn.flash_attn_interface", 3), import_fact("os", 4),
                               import_fact("demo.model", 5), import_fact("faiss", 6)}));
  cross_check_dependencies(files);

  const auto unused = facts_of(files[0].facts, "unused-dependency");
  REQUIRE(unused.size() == 1); // scipy: torch, cv2 and faiss are imported; ninja is a tool
  CHECK(unused[0]->name == "scipy");
  CHECK(unused[0]->span.line == 4);
  CHECK(attribute_or_empty(*unused[0], "imports") == "scipy");

  const auto undeclared = facts_of(files[1].facts, "undeclared-import");
  REQUIRE(undeclared.size() == 1); // os is not a known distribution, demo is local
  CHECK(undeclared[0]->name == "flash_attn");
  CHECK(undeclared[0]->span.line == 3);
  CHECK(attribute_or_empty(*undeclared[0], "distribution") == "flash-attn");
}

TEST_CASE("the pass is silent without manifests or without code", "[manifest][pass]") {
  std::vector<ProjectFile> only_code{python_file("a.py", {import_fact("flash_attn", 1)})};
  cross_check_dependencies(only_code);
  CHECK(facts_of(only_code[0].facts, "undeclared-import").empty());

  std::vector<ProjectFile> only_manifest{requirements_file("scipy\n")};
  cross_check_dependencies(only_manifest);
  CHECK(facts_of(only_manifest[0].facts, "unused-dependency").empty());
}

TEST_CASE("optional extras and included files count as declarations", "[manifest][pass]") {
  std::vector<ProjectFile> files;
  ProjectFile pyproject;
  pyproject.path = "pyproject.toml";
  pyproject.kind = FileKind::Pyproject;
  pyproject.facts = extract_pyproject(
      "[project]\ndependencies = [\"numpy\"]\n[project.optional-dependencies]\ncuda = [\"triton\"]\n",
      "pyproject.toml");
  files.push_back(std::move(pyproject));
  files.push_back(python_file("model.py", {import_fact("numpy", 1)}));
  cross_check_dependencies(files);
  // triton is only in an extra: not reported although nothing imports it.
  CHECK(facts_of(files[0].facts, "unused-dependency").empty());

  std::vector<ProjectFile> with_import{files[0],
                                       python_file("kernels.py", {import_fact("triton.language", 1)})};
  with_import[0].facts.facts.erase(
      std::remove_if(with_import[0].facts.facts.begin(), with_import[0].facts.facts.end(),
                     [](const Fact &f) { return f.kind == "unused-dependency"; }),
      with_import[0].facts.facts.end());
  cross_check_dependencies(with_import);
  // triton is declared through the extra, so its import is not undeclared.
  CHECK(facts_of(with_import[1].facts, "undeclared-import").empty());
}

TEST_CASE("development requirements files are not checked for unused packages", "[manifest][pass]") {
  std::vector<ProjectFile> files;
  for (const char *path : {"requirements-dev.txt", "requirements/test.txt", "docs/requirements.txt"}) {
    ProjectFile file = requirements_file("pytest\nsphinx\n");
    file.path = path;
    files.push_back(std::move(file));
  }
  ProjectFile runtime = requirements_file("scipy\n");
  runtime.path = "requirements/special.txt";
  files.push_back(std::move(runtime));
  files.push_back(python_file("train.py", {import_fact("numpy", 1)}));
  cross_check_dependencies(files);
  for (std::size_t i = 0; i < 3; ++i)
    CHECK(facts_of(files[i].facts, "unused-dependency").empty());
  CHECK(facts_of(files[3].facts, "unused-dependency").size() == 1);
}

TEST_CASE("import names are matched through the knowledge base, case-insensitively", "[manifest][pass]") {
  std::vector<ProjectFile> files;
  files.push_back(requirements_file("hydra-core\ntensorboardX\nattrs\n"));
  files.push_back(python_file("train.py", {import_fact("hydra", 1), import_fact("tensorboardX", 2),
                                           import_fact("attr", 3), import_fact("cv2", 4)}));
  cross_check_dependencies(files);
  CHECK(facts_of(files[0].facts, "unused-dependency").empty());
  const auto undeclared = facts_of(files[1].facts, "undeclared-import");
  REQUIRE(undeclared.size() == 1);
  CHECK(undeclared[0]->name == "cv2");
  CHECK(attribute_or_empty(*undeclared[0], "distribution") == "opencv-python");
}

TEST_CASE("an undeclared package is reported once, at its first import, with the count of other files",
          "[manifest][pass]") {
  std::vector<ProjectFile> files;
  files.push_back(requirements_file("torch\n"));
  files.push_back(python_file("a.py", {import_fact("flash_attn", 4), import_fact("flash_attn.ops", 9)}));
  files.push_back(python_file("b.py", {import_fact("flash_attn", 2)}));
  files.push_back(python_file("c.py", {import_fact("flash_attn.layers", 7), import_fact("cv2", 8)}));
  cross_check_dependencies(files);

  const auto in_a = facts_of(files[1].facts, "undeclared-import");
  REQUIRE(in_a.size() == 1);
  CHECK(in_a[0]->span.line == 4);
  CHECK(attribute_or_empty(*in_a[0], "more") == " (imported in 2 more files)");
  CHECK(facts_of(files[2].facts, "undeclared-import").empty());
  const auto in_c = facts_of(files[3].facts, "undeclared-import");
  REQUIRE(in_c.size() == 1); // cv2, whose only import is here
  CHECK(in_c[0]->name == "cv2");
  CHECK(attribute_or_empty(*in_c[0], "more").empty());
}
