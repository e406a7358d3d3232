// Front ends for the files that bind a repository to CUDA through what it
// installs and builds: requirements files, pyproject.toml, setup.py and
// setup.cfg, conda environments, CMake, Dockerfiles and shell/job scripts.
//
// Nothing here executes or imports the scanned files: setup.py is parsed with
// tree-sitter, the rest with small readers. The facts they emit (core/fact.h
// and manifest_fact_kind below) are matched by rules/dependencies.toml,
// rules/build.toml and rules/environment.toml.
#pragma once

#include <string>
#include <string_view>

#include "core/fact.h"
#include "frontend/frontend.h"

namespace mpsaudit {

// Fact kinds these front ends add to core/fact.h's list (see docs/dependencies.md).
namespace manifest_fact_kind {
// name: the index URL; attributes option (index-url, extra-index-url,
// find-links, poetry-source, uv-index), cuda_tag (cu118, cuda, nvidia) when the
// index serves CUDA builds.
inline constexpr std::string_view PackageIndex = "package-index";
// name: the conda channel (nvidia, pytorch, conda-forge).
inline constexpr std::string_view CondaChannel = "conda-channel";
// name: the CMake command in lower case; arguments: its arguments;
// attributes arg0, args (all, space-joined), and per command: package and
// required (find_package), languages (project, enable_language), variable
// (set, list, string), cuda_sources (.cu files), cuda_targets (CUDA::x).
inline constexpr std::string_view Build = "build";
// name: CUDAExtension or CppExtension (setup.py); attributes ext_name,
// sources, cuda_sources, cpu_fallback.
inline constexpr std::string_view CxxExtension = "cxx-extension";
// name: a C/C++/CUDA source path or glob (op_cuda.cu, *.cu) that setup.py
// or CMakeLists.txt builds; attributes build (setup.py, cmake), glob, and
// optional: "true" when the source is only built when CUDA is there (a
// CUDA_HOME / torch.cuda.is_available() / FORCE_CUDA / if(CUDA_FOUND) test)
// and the build goes on without it (a CppExtension otherwise, CUDA not
// required by the CMake project). Read by the C++ front end's cpu-fallback
// pass.
inline constexpr std::string_view BuildSource = "build-source";
// What setup.py runs at module level that needs the CUDA toolkit: nvcc
// through subprocess (directly or in a function of the file) or CUDA_HOME
// built into a path. name: the expression; attributes form (nvcc,
// cuda-home), detail (for the message).
inline constexpr std::string_view CudaProbe = "cuda-probe";
// name: the image reference of a Dockerfile FROM; attributes repository, tag.
inline constexpr std::string_view ContainerImage = "container-image";
// name: the variable; attributes value, how (env, arg, export, prefix).
inline constexpr std::string_view EnvVar = "env-var";
// name: "sbatch"; attributes option, value, gpus (the GPU request, if any).
inline constexpr std::string_view JobDirective = "job-directive";
// name: the object reference of a declared script, "pkg.mod:func"; attribute
// script: the command name ([project.scripts], console_scripts). Read by the
// assessment's entry-point discovery (assess/entry_points.h).
inline constexpr std::string_view EntryPoint = "entry-point";
// Added by the dependency project pass (dependency_pass.h):
// name: the distribution declared but never imported by any Python file.
inline constexpr std::string_view UnusedDependency = "unused-dependency";
// name: the imported top-level module; attribute distribution: the
// distribution that provides it, which no manifest of the project declares.
inline constexpr std::string_view UndeclaredImport = "undeclared-import";
} // namespace manifest_fact_kind

// One extractor per file kind. Each is also usable on its own (tests).
FileFacts extract_requirements(const SourceFile &file, const ExtractOptions &options);
FileFacts extract_pyproject(std::string_view text, const std::string &path);
FileFacts extract_setup_cfg(std::string_view text, const std::string &path);
FileFacts extract_setup_py(std::string_view text, const std::string &path);
FileFacts extract_conda_env(std::string_view text, const std::string &path);
FileFacts extract_cmake(std::string_view text, const std::string &path);
FileFacts extract_dockerfile(std::string_view text, const std::string &path);
FileFacts extract_shell(std::string_view text, const std::string &path);
FileFacts extract_gitmodules(std::string_view text, const std::string &path);

void register_manifest_frontends(ExtractorTable &table);

} // namespace mpsaudit
