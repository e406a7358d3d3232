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
//
// Not offered where the edit could change working code (docs/fix.md, "Safety
// model"): in a function that names another device too (on a CPU-only
// machine both would become "cpu", and a test comparing them would fail),
// or where the Mac device needs a newer release than the target (autocast,
// GradScaler and bfloat16 on MPS). The device type of an autocast or a
// GradScaler is unsafe unless it is disabled: on a CPU-only machine it used
// to be "cuda", which turns itself off there, and "cpu" would turn CPU
// autocast (bfloat16) or CPU loss scaling on.
#include "core/text.h"
#include "fix/python_module.h"

namespace mpsaudit {
namespace {

// The call a device literal is an argument of (`f("cuda")`, `f(device="cuda")`).
std::optional<TSNode> call_of_argument(TSNode literal) {
  TSNode list = ts_node_parent(literal);
  if (PythonModule::is(list, "keyword_argument"))
    list = ts_node_parent(list);
  const TSNode call = ts_node_is_null(list) ? list : ts_node_parent(list);
  if (PythonModule::is(list, "argument_list") && PythonModule::is(call, "call"))
    return call;
  return std::nullopt;
}

bool ends_with_name(std::string_view callee, std::string_view name) {
  return callee == name || (callee.size() > name.size() && ends_with(callee, name) &&
                            callee[callee.size() - name.size() - 1] == '.');
}

// What the call needs of the Mac device: the [[release]] features of
// rules/fixes.toml, and whether it switches something on for "cpu".
struct MacNeeds {
  std::vector<std::string> features;
  bool enabled_on_cpu = false;
};

MacNeeds mac_needs(PythonModule &module, std::optional<TSNode> call) {
  MacNeeds needs;
  if (!call)
    return needs;
  const std::string_view callee = module.text(PythonModule::field(*call, "function"));
  const std::string_view whole = module.text(*call);
  const bool bfloat16 = whole.find("bfloat16") != std::string_view::npos;
  const auto arguments = module.call_arguments(*call);
  const auto enabled = arguments ? module.keyword_argument(*arguments, "enabled") : std::nullopt;
  const bool disabled = enabled && module.text(PythonModule::field(*enabled, "value")) == "False";
  if (ends_with_name(callee, "autocast")) {
    needs.features.push_back(bfloat16 ? "autocast-mps-bfloat16" : "autocast-mps");
    needs.enabled_on_cpu = !disabled;
  } else if (ends_with_name(callee, "GradScaler")) {
    needs.features.push_back("grad-scaler-mps");
    needs.enabled_on_cpu = !disabled;
  } else if (bfloat16) {
    needs.features.push_back("bfloat16-mps");
  }
  return needs;
}

FixOutcome plan(FixContext &context, const Finding &finding) {
  PythonModule &module = context.python();
  const auto literal = module.node_at(finding.span);
  if (!literal || !module.is_cuda_literal(*literal))
    return FixOutcome::none("the device string was not found");
  // Device types, not indexes: "cuda" and "cuda:1" both keep CUDA first.
  const auto type_of = [](const std::string &device) { return device.substr(0, device.find(':')); };
  const std::set<std::string> devices = module.device_strings_in_scope(*literal);
  const std::string value = module.string_value(*literal);
  for (const std::string &other : devices)
    if (type_of(other) != type_of(value))
      return FixOutcome::none("\"" + value + "\" and \"" + other +
                              "\" in one function: it tells devices apart, and both would be the CPU "
                              "on a machine without CUDA");
  const MacNeeds needs = mac_needs(module, call_of_argument(*literal));
  for (const std::string &feature : needs.features)
    if (const std::string gate = context.release_gate(feature); !gate.empty())
      return FixOutcome::none(gate);

  PlannedFix fix;
  const std::string t = module.torch();
  fix.needs_torch_import = module.torch_binding().empty();
  if (needs.enabled_on_cpu)
    fix.safety = FixSafety::Unsafe;

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
        fix.safety = worse(fix.safety, device.safety());
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
  fix.description = "\"" + finding.name + "\" -> a CUDA-first device selection" +
                    (needs.enabled_on_cpu ? " (turns CPU autocast or loss scaling on without CUDA)" : "");
  return FixOutcome::with(std::move(fix));
}

} // namespace

void register_hard_coded_device_fix(FixRegistry &registry) {
  registry.add("hard-coded-device", {FileKind::Python}, plan);
}

} // namespace mpsaudit
