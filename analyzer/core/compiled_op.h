// Calls of a repository's compiled ops from Python, as the Python front end
// names them: `torch.ops.ns.op` (a TORCH_LIBRARY op), `_C.op` or
// `pkg._C.op` (a pybind11 extension module named _C). torch's own `torch._C`
// is not one.
#pragma once

#include <string>

#include "core/fact.h"

namespace mpsaudit {

bool is_compiled_op_call(const Fact &fact);

// A wider net, for what a scan keeps before it knows the tree's extensions:
// is_compiled_op_call, or a call of a function of a module named as compiled
// modules are (private, or ending in _C, _cuda, _ext, _ops ...). Whether the
// module is one comes later, from the build definitions
// (extension_import_pass.h); a module named otherwise is still reported at
// its import, but its calls are not.
bool may_call_compiled_module(const Fact &fact);

// The op a compiled-op call names: its last component, and for
// `torch.ops.ns.op` the namespace (empty for `_C.op`).
struct CompiledOpName {
  std::string ns;
  std::string op;
};
CompiledOpName compiled_op_name(const Fact &call);

} // namespace mpsaudit
