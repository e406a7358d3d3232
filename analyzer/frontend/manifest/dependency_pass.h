// The dependency project pass: cross-checks what manifests declare against
// what Python code imports, across all files of a scan.
//
//  - a distribution declared (requirements, pyproject, setup.py/cfg, conda's
//    pip section) whose modules no Python file or notebook imports gets an
//    `unused-dependency` fact at its declaration;
//  - an import of a module that the package knowledge base attributes to a
//    distribution no manifest declares gets an `undeclared-import` fact at
//    the import.
// Development groups and development requirements files (requirements-dev.txt,
// requirements/test.txt), build requirements, constraints, conda packages and
// tools without modules are left out; optional extras count as declared but
// are not reported as unused; nothing is reported unless the project declares
// dependencies and has Python code. It is listed among the project passes
// (frontend/registry.cpp): it reads `dependency` and `import` facts and writes
// `unused-dependency` and `undeclared-import` facts.
#pragma once

#include <vector>

#include "core/project_pass.h"

namespace mpsaudit {

void cross_check_dependencies(std::vector<ProjectFile> &files);

// What the pass needs: dependency facts whole, imports by name (it reads
// their name, position, scope and guard, and reports a module once per
// file).
FactRetention dependency_pass_retention(const Fact &fact);

} // namespace mpsaudit
