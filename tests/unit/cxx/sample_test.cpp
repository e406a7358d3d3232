// samples/cuda-extension through the real front ends (C++/CUDA and Python)
// and the registration pass: what separates the op with fallbacks from the
// ops on the critical path.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "core/confined_file.h"
#include "cxx_test_util.h"
#include "frontend/cxx/registration_pass.h"
#include "frontend/frontend.h"

using namespace mpsaudit;
using namespace mpsaudit::test;

namespace {

std::vector<ProjectFile> extract_sample(const std::string &name) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(MPSAUDIT_SOURCE_DIR) / "samples" / name;
  std::vector<std::string> paths;
  for (const auto &entry : fs::recursive_directory_iterator(root))
    if (entry.is_regular_file())
      paths.push_back(fs::relative(entry.path(), root).generic_string());
  std::sort(paths.begin(), paths.end());
  ExtractOptions options;
  options.root = root.string();
  std::vector<ProjectFile> files;
  for (const auto &path : paths) {
    SourceFile source;
    source.path = path;
    source.absolute_path = (root / path).string();
    source.kind = classify_path(path);
    source.text = read_whole_file(source.absolute_path).value_or("");
    const Extractor *extractor = find_extractor(source.kind);
    if (!extractor)
      continue;
    ProjectFile file;
    file.path = path;
    file.kind = source.kind;
    file.facts = (*extractor)(source, options);
    files.push_back(std::move(file));
  }
  return files;
}

const Fact *find(const std::vector<ProjectFile> &files, const std::string &path, const std::string &kind,
                 const std::string &name) {
  for (const auto &file : files)
    if (file.path == path)
      for (const auto &fact : file.facts.facts)
        if (fact.kind == kind && fact.name == name)
          return &fact;
  return nullptr;
}

} // namespace

TEST_CASE("the cuda-extension sample: one op with fallbacks, three on the critical path", "[cxx][sample]") {
  std::vector<ProjectFile> files = extract_sample("cuda-extension");
  resolve_op_registrations(files);
  const std::string cuda = "csrc/fused_ops_cuda.cu";

  for (const auto &file : files)
    if (file.path == cuda)
      CHECK(file.facts.mode == "ast");

  const Fact *scaled_add = find(files, cuda, "op-registration", "fused_ops::scaled_add");
  CHECK(attribute(scaled_add, "backend") == "CUDA");
  CHECK(attribute(scaled_add, "has_cpu_impl") == "true");
  CHECK(attribute(scaled_add, "cpu_impl_at") == "csrc/fused_ops.cpp:23");
  CHECK(attribute(scaled_add, "has_python_fallback") == "true");
  // fused_ops/__init__.py's scaled_add wraps the op; reference.py replaces it.
  CHECK(attribute(scaled_add, "python_fallback_at") == "def scaled_add at fused_ops/reference.py:4");
  CHECK(attribute(scaled_add, "has_mps_impl") == "false");
  CHECK(attribute(scaled_add, "critical_path") == "false");

  for (const char *op : {"fused_ops::segment_softmax", "fused_ops::gram", "fused_ops::sorted_unique"}) {
    INFO(op);
    const Fact *registration = find(files, cuda, "op-registration", op);
    CHECK(attribute(registration, "fallbacks") == "none");
    CHECK(attribute(registration, "critical_path") == "true");
  }

  const Fact *softmax = find(files, cuda, "cuda-kernel", "segment_softmax_kernel");
  CHECK(attribute(softmax, "launches") == "1");
  CHECK(attribute(softmax, "has_double") == "true");
  CHECK(attribute(softmax, "shared_memory") == "2");
  CHECK(attribute(find(files, cuda, "cuda-kernel", "scaled_add_kernel"), "template") == "true");
}
