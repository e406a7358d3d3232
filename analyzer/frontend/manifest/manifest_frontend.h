// Front ends for the files that bind a repository to CUDA through what it
// installs and builds: requirements files, pyproject.toml, setup.py and
// setup.cfg, conda environments, CMake, Dockerfiles and shell/job scripts.
//
// Nothing here executes or imports the scanned files: setup.py is parsed with
// tree-sitter, the rest with small readers. The facts they emit (core/fact.h
// and core/fact_kinds.h) are matched by rules/dependencies.toml,
// rules/build.toml and rules/environment.toml.
#pragma once

#include <string>
#include <string_view>

#include "core/fact_kinds.h"
#include "frontend/frontend.h"

namespace mpsaudit {

// Fact kinds these front ends add to core/fact.h's list, with their
// attributes: core/fact_kinds.h (see docs/dependencies.md).
namespace manifest_fact_kind = fact_kind;

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
