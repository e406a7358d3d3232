// MPS201: `x.cuda()` becomes `x.to(device)`, with the device variable in
// scope or, when there is none, one added once per module (cuda → mps →
// cpu). Keyword arguments stay, but `non_blocking=True` becomes
// `non_blocking=str(device).startswith("cuda")`: non-blocking on CUDA as
// before, blocking on MPS, where a non-blocking copy from pageable memory
// can read freed memory (MPS208, whose replacement this is; `str()` holds
// for a device given as a string too). A device index (`.cuda(1)`,
// `.cuda(device=rank)`) is a choice fix cannot make.
//
// Safe when the device is the module device fix adds, or a variable chosen
// CUDA-first: on a CUDA machine it is then `cuda`, as before. Any other
// existing variable (`device = args.device`) makes the edit unsafe.
#include "fix/python_module.h"

namespace mpsaudit {
namespace {

FixOutcome plan(FixContext &context, const Finding &finding) {
  PythonModule &module = context.python();
  const auto call = module.call_at(finding.span);
  if (!call)
    return FixOutcome::none("the call was not found");
  const TSNode function = PythonModule::field(*call, "function");
  if (!PythonModule::is(function, "attribute") ||
      module.text(PythonModule::field(function, "attribute")) != "cuda")
    return FixOutcome::none("not a `.cuda()` method call");
  const auto arguments = module.call_arguments(*call);
  if (!arguments)
    return FixOutcome::none("unusual argument list");
  for (const TSNode argument : *arguments) {
    if (!PythonModule::is(argument, "keyword_argument") ||
        module.text(PythonModule::field(argument, "name")) == "device")
      return FixOutcome::none("`.cuda(...)` names a device; choose the device by hand");
  }
  const DeviceRef device = module.device_for(*call);
  if (!device.blocked.empty())
    return FixOutcome::none(device.blocked);

  const TSNode list = PythonModule::field(*call, "arguments");
  const std::size_t inside_begin = PythonModule::begin(list) + 1;
  std::string inside(module.source().substr(inside_begin, PythonModule::end(list) - inside_begin - 1));
  for (auto argument = arguments->rbegin(); argument != arguments->rend(); ++argument) {
    const TSNode value = PythonModule::field(*argument, "value");
    if (module.text(PythonModule::field(*argument, "name")) == "non_blocking" && module.text(value) == "True")
      inside.replace(PythonModule::begin(value) - inside_begin,
                     PythonModule::end(value) - PythonModule::begin(value),
                     "str(" + device.name + ").startswith(\"cuda\")");
  }
  PlannedFix fix;
  TextEdit edit;
  edit.begin = PythonModule::begin(PythonModule::field(function, "attribute"));
  edit.end = PythonModule::end(*call);
  edit.replacement = "to(" + device.name + (arguments->empty() ? std::string() : ", " + inside) + ")";
  // A trailing comma inside `.cuda(non_blocking=True,)` stays valid.
  fix.edits.push_back(std::move(edit));
  fix.safety = device.safety();
  fix.needs_module_device = device.introduced;
  fix.needs_torch_import = device.introduced && module.torch_binding().empty();
  fix.description =
      "`.cuda()` -> `.to(" + device.name + ")`" + (device.introduced ? " (module device added)" : "");
  return FixOutcome::with(std::move(fix));
}

} // namespace

void register_dot_cuda_fix(FixRegistry &registry) {
  registry.add("dot-cuda-to-device", {FileKind::Python}, plan);
}

} // namespace mpsaudit
