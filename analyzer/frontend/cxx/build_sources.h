// What the build files say about the C/C++/CUDA files they compile, from
// their build-source facts (setup.py and CMake front ends): whether a file is
// built only when CUDA is there, whether the program goes on without it (a
// JIT build behind a fallback), and which Python module its extension
// becomes. A file belongs to its nearest build: the deepest directory with
// a build file that names it.
#pragma once

#include <string>
#include <vector>

#include "core/project_pass.h"

namespace mpsaudit {

class BuildSources {
public:
  explicit BuildSources(const std::vector<ProjectFile> &files);

  // Whether the nearest build that names `path` only builds it with CUDA.
  bool only_with_cuda(const std::string &path) const;
  // Whether every build of `path` is a JIT build the program goes on without
  // (python_frontend.cpp, record_jit_build_sources).
  bool program_runs_without(const std::string &path) const;
  // The Python modules ("pkg.ops_cuda") of the extensions the nearest build
  // compiles `path` into, where the build names them.
  std::vector<std::string> extension_modules(const std::string &path) const;

private:
  struct Source {
    std::string pattern;
    bool optional = false;
    bool runs_without = false; // a JIT build behind a fallback: the program goes on without it
    std::string extension;     // the extension's module, "" when not known
  };
  struct BuildFile {
    std::string directory; // "" at the root
    std::vector<Source> sources;
  };
  // The sources of the nearest build that name `path`; empty when none does.
  std::vector<const Source *> naming_sources(const std::string &path) const;

  std::vector<BuildFile> builds_;
};

} // namespace mpsaudit
