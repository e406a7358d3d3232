// MPS205: `torch.load(p)` becomes `torch.load(p, map_location="cpu")`.
//
// Safe when the result goes straight into `load_state_dict(...)` (also as
// `torch.load(p)["model"]`): load_state_dict copies into the parameters'
// own device, so a CUDA machine ends up with the same model, and on a
// machine without CUDA a checkpoint saved from a GPU only loads this way.
// Without `assign=`, which would keep the CPU tensors instead.
// Unsafe elsewhere: on a CUDA machine tensors saved from a GPU now load on
// the CPU, and code that uses them directly must move them. "cpu" rather
// than the device because float64 tensors in a checkpoint cannot be moved to
// MPS as they are (rule MPS205's replacement).
#include "fix/python_module.h"

namespace mpsaudit {
namespace {

// Whether `call`'s value only feeds `x.load_state_dict(call)` or
// `x.load_state_dict(call[...])`, without `assign=`.
bool feeds_load_state_dict(const PythonModule &module, TSNode call) {
  TSNode value = call;
  TSNode parent = ts_node_parent(value);
  while (PythonModule::is(parent, "subscript") && ts_node_eq(PythonModule::field(parent, "value"), value)) {
    value = parent;
    parent = ts_node_parent(value);
  }
  if (!PythonModule::is(parent, "argument_list"))
    return false;
  const TSNode outer = ts_node_parent(parent);
  const TSNode function = PythonModule::field(outer, "function");
  if (!PythonModule::is(outer, "call") || !PythonModule::is(function, "attribute") ||
      module.text(PythonModule::field(function, "attribute")) != "load_state_dict")
    return false;
  const auto arguments = module.call_arguments(outer);
  return arguments && !arguments->empty() && ts_node_eq(arguments->front(), value) &&
         !module.keyword_argument(*arguments, "assign") && !PythonModule::has_splat(*arguments);
}

FixOutcome plan(FixContext &context, const Finding &finding) {
  PythonModule &module = context.python();
  const auto call = module.call_at(finding.span);
  if (!call)
    return FixOutcome::none("the call was not found");
  const auto arguments = module.call_arguments(*call);
  if (!arguments || arguments->empty())
    return FixOutcome::none("torch.load without arguments");
  if (PythonModule::has_splat(*arguments))
    return FixOutcome::none("arguments passed through *args/**kwargs may already set map_location");
  PlannedFix fix;
  fix.edits.push_back(module.append_argument(*call, "map_location=\"cpu\""));
  fix.shown_safe = feeds_load_state_dict(module, *call);
  fix.safety = fix.shown_safe ? FixSafety::Safe : FixSafety::Unsafe;
  fix.description =
      "torch.load(...) -> torch.load(..., map_location=\"cpu\")" +
      std::string(fix.safety == FixSafety::Safe ? "" : " (on CUDA, GPU-saved tensors then load on the CPU)");
  return FixOutcome::with(std::move(fix));
}

} // namespace

void register_torch_load_fix(FixRegistry &registry) {
  registry.add("torch-load-map-location", {FileKind::Python}, plan);
}

} // namespace mpsaudit
