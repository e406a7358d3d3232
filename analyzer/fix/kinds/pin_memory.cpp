// MPS206: `DataLoader(..., pin_memory=True)` pins only where it helps:
// `pin_memory=(device.type == "cuda")`. With a device that is CUDA wherever
// CUDA exists (the module device fix adds, or a CUDA-first selection) the
// value is True on a CUDA machine, as before: a safe fix.
#include "fix/python_module.h"

namespace mpsaudit {
namespace {

FixOutcome plan(FixContext &context, const Finding &finding) {
  PythonModule &module = context.python();
  const auto call = module.call_at(finding.span);
  if (!call)
    return FixOutcome::none("the call was not found");
  const auto arguments = module.call_arguments(*call);
  if (!arguments)
    return FixOutcome::none("unusual argument list");
  const auto keyword = module.keyword_argument(*arguments, "pin_memory");
  if (!keyword)
    return FixOutcome::none("pin_memory is not a keyword argument here");
  const TSNode value = PythonModule::field(*keyword, "value");
  if (module.text(value) != "True")
    return FixOutcome::none("pin_memory is not the literal True");
  const DeviceRef device = module.device_for(*call);
  if (!device.blocked.empty())
    return FixOutcome::none(device.blocked);
  PlannedFix fix;
  fix.edits.push_back({PythonModule::begin(value), PythonModule::end(value),
                       "(" + module.device_type_expression(device) + " == \"cuda\")"});
  fix.safety = device.safety();
  fix.needs_module_device = device.introduced;
  fix.needs_torch_import = device.introduced && module.torch_binding().empty();
  fix.description =
      "pin_memory=True -> pin_memory=(" + module.device_type_expression(device) + " == \"cuda\")";
  return FixOutcome::with(std::move(fix));
}

} // namespace

void register_pin_memory_fix(FixRegistry &registry) {
  registry.add("pin-memory-device", {FileKind::Python}, plan);
}

} // namespace mpsaudit
