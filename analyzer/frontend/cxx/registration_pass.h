// The cross-file part of the C++/CUDA front end: for every op registered for
// CUDA, is there a CPU, MPS or composite registration anywhere in the
// repository, or a Python fallback the Python front end saw? Registered as a
// project pass in frontend/registry.cpp.
#pragma once

#include <vector>

#include "core/fact.h"
#include "core/project_pass.h"

namespace mpsaudit {

// Annotates op-registration facts with backend CUDA (attributes documented in
// docs/cxx-frontend.md) and cuda-kernel facts with their launch count across
// the repository.
void resolve_op_registrations(std::vector<ProjectFile> &files);

// What the pass needs of the facts of the kinds it reads: the names of
// module-level functions, of imports behind try/except ImportError and of
// calls of compiled ops from Python; every C++ front-end fact whole.
FactRetention op_registrations_retention(const Fact &fact);

// The same resolution within one file's facts (the front end runs it so that
// a single file is already annotated; the project pass then widens it).
void resolve_op_registrations_in(std::vector<Fact> &facts);

} // namespace mpsaudit
