// MPS202: a CUDA device named in a string.
//
//   x.to("cuda")                 ->  x.to(device)   (the device in scope, as for .cuda())
//   torch.device("cuda:0")       ->  torch.device("cuda:0" if torch.cuda.is_available() else "mps" if
//                                                 torch.backends.mps.is_available() else "cpu")
//   def f(device="cuda"): ...    ->  the same selection as the default
//
// The selection keeps the literal as its first choice, so a CUDA machine gets
// exactly the device it got before: safe. From target 2.6 the second choice
// is torch.accelerator's current accelerator.
#include "fix/python_module.h"

namespace mpsaudit {
namespace {

FixOutcome plan(FixContext &context, const Finding &finding) {
  PythonModule &module = context.python();
  const auto literal = module.node_at(finding.span);
  if (!literal || !module.is_cuda_literal(*literal))
    return FixOutcome::none("the device string was not found");
  PlannedFix fix;
  const std::string t = module.torch();
  fix.needs_torch_import = module.torch_binding().empty();

  // `.to("cuda")`: the device variable reads better than a selection.
  const TSNode list = ts_node_parent(*literal);
  const TSNode call = ts_node_is_null(list) ? list : ts_node_parent(list);
  if (PythonModule::is(list, "argument_list") && PythonModule::is(call, "call")) {
    const TSNode function = PythonModule::field(call, "function");
    const auto arguments = PythonModule::named_children(list);
    if (PythonModule::is(function, "attribute") &&
        module.text(PythonModule::field(function, "attribute")) == "to" && !arguments.empty() &&
        ts_node_eq(arguments.front(), *literal)) {
      const DeviceRef device = module.device_for(call);
      if (device.blocked.empty()) {
        fix.edits.push_back({PythonModule::begin(*literal), PythonModule::end(*literal), device.name});
        fix.safety = device.safety();
        fix.needs_module_device = device.introduced;
        fix.needs_torch_import = device.introduced && module.torch_binding().empty();
        fix.description = "`.to(\"cuda\")` -> `.to(" + device.name + ")`";
        return FixOutcome::with(std::move(fix));
      }
    }
  }
  const std::string other =
      module.use_accelerator()
          ? t + ".accelerator.current_accelerator().type if " + t + ".accelerator.is_available() else "
          : module.literal_like(*literal, "mps") + " if " + t + ".backends.mps.is_available() else ";
  fix.edits.push_back({PythonModule::begin(*literal), PythonModule::end(*literal),
                       std::string(module.text(*literal)) + " if " + t + ".cuda.is_available() else " +
                           other + module.literal_like(*literal, "cpu")});
  fix.description = "\"" + finding.name + "\" -> a CUDA-first device selection";
  return FixOutcome::with(std::move(fix));
}

} // namespace

void register_hard_coded_device_fix(FixRegistry &registry) {
  registry.add("hard-coded-device", {FileKind::Python}, plan);
}

} // namespace mpsaudit
