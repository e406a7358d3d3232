// MPS204: a tensor factory inside forward() without a device gets the
// device of the forward's input: `torch.ones(n)` -> `torch.ones(n, device=x.device)`.
// Only where one input tensor is clearly available: forward has exactly one
// required parameter besides self (or exactly one annotated as a Tensor).
//
// Unsafe: on a CUDA machine the tensor used to be made on the CPU and is now
// made on the GPU; code that relied on a CPU tensor (.numpy(), CPU-only ops)
// must be reviewed.
#include "core/text.h"
#include "fix/python_module.h"

namespace mpsaudit {
namespace {

// The one input tensor of a forward definition, or "".
std::string input_tensor(const PythonModule &module, TSNode forward, std::string &reason) {
  std::vector<std::string> required, annotated_tensors;
  bool first = true;
  for (const TSNode parameter : PythonModule::named_children(PythonModule::field(forward, "parameters"))) {
    const bool is_self = first;
    first = false;
    if (PythonModule::is(parameter, "identifier")) {
      if (!is_self)
        required.emplace_back(module.text(parameter));
    } else if (PythonModule::is(parameter, "typed_parameter")) {
      const TSNode name = ts_node_named_child(parameter, 0);
      if (!PythonModule::is(name, "identifier") || is_self)
        continue;
      required.emplace_back(module.text(name));
      if (module.text(PythonModule::field(parameter, "type")).find("Tensor") != std::string_view::npos)
        annotated_tensors.emplace_back(module.text(name));
    }
  }
  if (required.size() == 1)
    return required.front();
  if (annotated_tensors.size() == 1)
    return annotated_tensors.front();
  reason = required.empty() ? "forward() has no required input"
                            : "forward() has several inputs; which one's device to use is a choice";
  return {};
}

FixOutcome plan(FixContext &context, const Finding &finding) {
  PythonModule &module = context.python();
  const auto call = module.call_at(finding.span);
  if (!call)
    return FixOutcome::none("the call was not found");
  const auto arguments = module.call_arguments(*call);
  if (!arguments || PythonModule::has_splat(*arguments))
    return FixOutcome::none("arguments passed through *args/**kwargs may already set device");
  if (module.keyword_argument(*arguments, "out"))
    return FixOutcome::none("out= decides the device");
  std::optional<TSNode> forward;
  for (auto function = module.enclosing_function(*call); function;
       function = module.enclosing_function(*function))
    if (module.text(PythonModule::field(*function, "name")) == "forward") {
      forward = function;
      break;
    }
  if (!forward)
    return FixOutcome::none("no enclosing forward()");
  std::string reason;
  const std::string input = input_tensor(module, *forward, reason);
  if (input.empty())
    return FixOutcome::none(reason);
  PlannedFix fix;
  fix.edits.push_back(module.append_argument(*call, "device=" + input + ".device"));
  fix.description = "factory in forward(): add device=" + input + ".device";
  return FixOutcome::with(std::move(fix));
}

} // namespace

void register_factory_device_fix(FixRegistry &registry) {
  registry.add("factory-device-in-forward", {FileKind::Python}, plan);
}

} // namespace mpsaudit
