// The cuda-option-defaults project pass: options whose default turns on code
// that cannot run on a Mac.
//
// `if self.fused_add_norm:` may guard code that needs Triton (an import of a
// CUDA-only package, an import of a module of the tree that needs one, a
// CUDA extension the tree builds, or a test that raises when such an import
// failed). That code is optional only while the option is off. When a
// dataclass field, a constructor parameter or a config entry of the same
// name defaults to True (`fused_add_norm: bool = True`), the CUDA-only code
// is what runs by default, and the fix on a Mac is to turn it off there.
//
// Options are matched by their last name (`self.cfg.fused` and `fused`); only
// a plain name or attribute chain is an option (`if a and b:` is not).
// Parameter defaults count in constructors and class bodies, where a model's
// switches live; elsewhere a default is a function's, not the model's.
#pragma once

#include <string_view>
#include <vector>

#include "core/fact_kinds.h"
#include "core/project_pass.h"

namespace mpsaudit {

// name: the option's default as written (`fused_add_norm`, `cfg.MODEL.FUSED`);
// attributes value ("True"), option (the test it turns on), gate_at (the
// gated line, "pkg/model.py:12"), needs (what that code needs), why_missing.
inline constexpr std::string_view kCudaOptionDefaultFact = fact_kind::CudaOptionDefault;

void find_cuda_option_defaults(std::vector<ProjectFile> &files);

// Option-gated imports and the import passes' facts; True defaults of
// constructors, class fields and config entries.
FactRetention option_default_retention(const Fact &fact);

} // namespace mpsaudit
