// Option gating: code on an entry's import path that runs only when an option
// chooses it.
//
// Importing a module runs its top level, not its classes. A Python module is
// option-gated when every file on a main entry's path that imports it uses
// what it imports only behind an option (`if cfg.use_warp: block = WarpBlock`;
// the Python front end marks such imports `use = "optional"`, and a package
// `__init__` that only re-exports it is no use). At least one such use must
// exist: a module nobody visibly uses keeps its status, since a registry or
// getattr may use it.
//
// When that module is the Python face of compiled ops (it calls `_C.op` or
// `torch.ops.ns.op`), the native sources of those ops are gated with it: a
// source belongs to an op when its name stem names the op
// (warp_cuda.cu -> warp_forward), and the rest of its directory follows it.
// Sources no op claims keep the directory rule of assess/reachability.h.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "assess/reachability.h"
#include "core/compiled_op.h"

namespace mpsaudit {

struct OptionGate {
  std::size_t file = 0; // ProjectFile index
  std::string option;   // the module whose uses are optional, e.g. "pkg/layers/warp.py"
};

// The gated files among those `reach` marks Reached; `not_the_op` is the
// policy's words that name a backend or a part rather than an op.
std::vector<OptionGate> find_option_gated_files(const std::vector<ProjectFile> &files,
                                                const ModuleIndex &index, const Reachability &reach,
                                                const std::vector<std::string> &not_the_op);

// Marks the gated files OptionOnly and takes them out of every entry's run.
void apply_option_gating(const std::vector<OptionGate> &gates, Reachability &reach);

// A module-level class or function definition.
bool is_top_level_definition(const Fact &fact);

// "warp_conv_cuda_kernel" -> "warpconv": lower case, letters and digits,
// without the words of `not_the_op` (rules/assess.toml's [compiled_ops]:
// a backend or a part rather than an op).
std::string op_stem(std::string_view name, const std::vector<std::string> &not_the_op);

} // namespace mpsaudit
