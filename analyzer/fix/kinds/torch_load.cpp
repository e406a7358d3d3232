// MPS205: `torch.load(p)` becomes `torch.load(p, map_location="cpu")`.
//
// Unsafe: on a CUDA machine tensors saved from a GPU now load on the CPU.
// Code that passes the result to load_state_dict (which copies into the
// model's own device) behaves the same; code that uses the loaded tensors
// directly must move them with .to(device). "cpu" rather than the device
// because float64 tensors in a checkpoint cannot be moved to MPS as they
// are (rule MPS205's replacement).
#include "fix/python_module.h"

namespace mpsaudit {
namespace {

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
  fix.description = "torch.load(...) -> torch.load(..., map_location=\"cpu\")";
  return FixOutcome::with(std::move(fix));
}

} // namespace

void register_torch_load_fix(FixRegistry &registry) {
  registry.add("torch-load-map-location", {FileKind::Python}, plan);
}

} // namespace mpsaudit
