// The cpu-fallback pass: CUDA code that a Mac never needs because its op has
// a CPU path. Registered in frontend/registry.cpp after the op-registration
// pass, whose annotations it reads.
//
// Roots with a fallback: the CUDA functions of device dispatches whose other
// arm does work (device-dispatch facts with cpu_fallback = true), and the
// CUDA implementations of ops that also have a CPU, MPS or composite
// registration. Roots without: the CUDA functions of dispatches that only
// raise otherwise, and of ops registered for CUDA alone (critical_path).
// From both, the pass follows calls and launches (cxx-function facts) to
// every function and kernel they reach, by name, across files.
//
// Then, in C/C++/CUDA files, a fact of the CUDA kinds gets Guard::CpuFallback
// when it sits in a function reached from a fallback root and not from a
// root without one; when it sits in a function reached from neither and the
// file is an optional build source (build-source facts: setup.py or CMake
// only builds it when CUDA is there, and builds a CPU extension otherwise);
// or, outside every function (an #include), when no function of the file is
// needed without a fallback and the file is optional or has a function
// reached from a fallback root.
#pragma once

#include <vector>

#include "core/fact.h"
#include "core/project_pass.h"

namespace mpsaudit {

void resolve_cpu_fallbacks(std::vector<ProjectFile> &files);

// What the pass reads: device dispatches, functions, op registrations,
// kernels and build sources, whole.
FactRetention cpu_fallback_retention(const Fact &fact);

// The fact kinds the pass may guard (it writes their guard).
const std::vector<std::string> &cpu_fallback_guarded_kinds();

} // namespace mpsaudit
