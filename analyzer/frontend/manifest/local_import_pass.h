// The local-import project pass: which imports of the repository's own
// modules fail on a Mac because that module needs something that cannot be
// there.
//
// `from pkg.ops.fused_norm import FusedNorm` is harmless in itself, but when
// pkg/ops/fused_norm.py runs `import triton` at module level, outside any
// guard, the import raises ImportError on a Mac before any of the caller's
// code runs. The library rule reports `import triton` in fused_norm.py; this
// pass reports the line that pulls fused_norm.py in. It looks one step deep:
// the import of the module whose own top level needs a package with no Mac
// support (rules/packages.toml, status "none") or a CUDA extension the
// repository builds (the cuda-extension-imports pass). The modules that import
// those importers fail too, but the fix is one step away from the cause, so
// they are not reported again.
//
// A module is a Python file of the tree, named by its path (pkg/ops/x.py is
// pkg.ops.x, pkg/__init__.py is pkg; a leading src/ or python/ folder is
// dropped too). The importing statement keeps its own guard, so a guarded
// import is reported at a lower severity; but where the code then raises
// because the import failed (`if fn is None: raise ImportError(...)`, a
// required-import fact) that test is reported too, unguarded. Tests are left
// out: they import what they test.
#pragma once

#include <string_view>
#include <vector>

#include "core/fact_kinds.h"
#include "core/project_pass.h"

namespace mpsaudit {

// name: the module of the tree as imported; attributes value (what it needs:
// the package or extension), needed_at ("pkg/ops/x.py:3"), why_missing (why a
// Mac lacks it) and effect (what fails at this line), for the message.
inline constexpr std::string_view kLocalCudaOnlyImportFact = fact_kind::LocalCudaOnlyImport;

void find_local_cuda_only_imports(std::vector<ProjectFile> &files);

// Imports and required-import tests whole (their guard, scope, relative
// names); the extension pass's facts whole; nothing else.
FactRetention local_import_retention(const Fact &fact);

} // namespace mpsaudit
