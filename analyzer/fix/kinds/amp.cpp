// MPS109: torch.cuda.amp becomes the device-generic torch.amp API.
//
//   torch.cuda.amp.autocast(enabled=amp)  ->  torch.autocast(device_type=device.type, enabled=amp)
//   torch.cuda.amp.GradScaler()           ->  torch.amp.GradScaler(device.type)
//
// torch.cuda.amp.autocast(*args) is torch.autocast("cuda", *args) and
// torch.cuda.amp.GradScaler(*args) is torch.amp.GradScaler("cuda", *args)
// (2.3+), so with a device that is CUDA wherever CUDA exists nothing changes
// on a CUDA machine. Positional arguments of autocast are renamed, since
// torch.autocast's own positional order differs (device_type, dtype, ...).
//
// On a CPU-only machine the device is "cpu": where the CUDA API switched
// itself off, torch.autocast("cpu") turns CPU autocast (bfloat16) on and
// GradScaler("cpu") scales the loss. So the class is unsafe, and one edit
// is shown safe only when the call passes `enabled=False` and the device is
// CUDA wherever CUDA exists. The Mac device needs autocast on MPS (2.5,
// bfloat16 2.6) and GradScaler on MPS (2.8): rules/fixes.toml gates both.
#include "fix/python_module.h"

namespace mpsaudit {
namespace {

// torch.cuda.amp.autocast(enabled=True, dtype=torch.float16, cache_enabled=True)
constexpr const char *kAutocastPositional[] = {"enabled", "dtype", "cache_enabled"};

struct CallSite {
  TSNode call{};
  TSNode function{};
  std::vector<TSNode> arguments;
};

std::optional<CallSite> call_site(PythonModule &module, const Finding &finding, std::string &reason) {
  const auto call = module.call_at(finding.span);
  if (!call) {
    reason = "only calls are rewritten, not references to torch.cuda.amp";
    return std::nullopt;
  }
  const auto arguments = module.call_arguments(*call);
  if (!arguments || PythonModule::has_splat(*arguments)) {
    reason = "arguments passed through *args/**kwargs";
    return std::nullopt;
  }
  return CallSite{*call, PythonModule::field(*call, "function"), *arguments};
}

// Whether the call switches itself off (`enabled=False`, or False as the
// first positional argument of autocast), so that no device sees it.
bool disabled(const PythonModule &module, const CallSite &site, bool enabled_is_first) {
  if (const auto keyword = module.keyword_argument(site.arguments, "enabled"))
    return module.text(PythonModule::field(*keyword, "value")) == "False";
  return enabled_is_first && !site.arguments.empty() &&
         !PythonModule::is(site.arguments.front(), "keyword_argument") &&
         module.text(site.arguments.front()) == "False";
}

FixOutcome plan_autocast(FixContext &context, const Finding &finding) {
  PythonModule &module = context.python();
  std::string reason;
  const auto site = call_site(module, finding, reason);
  if (!site)
    return FixOutcome::none(reason);
  if (module.keyword_argument(site->arguments, "device_type"))
    return FixOutcome::none("already names a device type");
  std::size_t positional = 0;
  for (const TSNode argument : site->arguments)
    if (!PythonModule::is(argument, "keyword_argument"))
      ++positional;
  if (positional > 3)
    return FixOutcome::none("more positional arguments than torch.cuda.amp.autocast takes");
  if (module.text(site->call).find("bfloat16") != std::string_view::npos)
    if (const std::string gate = context.release_gate("autocast-mps-bfloat16"); !gate.empty())
      return FixOutcome::none(gate);
  const DeviceRef device = module.device_for(site->call);
  if (!device.blocked.empty())
    return FixOutcome::none(device.blocked);

  PlannedFix fix;
  const std::string t = module.torch();
  fix.edits.push_back(
      {PythonModule::begin(site->function), PythonModule::end(site->function), t + ".autocast"});
  const bool cpu_unchanged = disabled(module, *site, true);
  const std::string device_type = "device_type=" + module.device_type_expression(device);
  if (site->arguments.empty()) {
    fix.edits.push_back(module.append_argument(site->call, device_type));
  } else {
    const std::size_t first = PythonModule::begin(site->arguments.front());
    fix.edits.push_back({first, first, device_type + ", "});
    std::size_t index = 0;
    for (const TSNode argument : site->arguments) {
      if (PythonModule::is(argument, "keyword_argument"))
        continue;
      const std::size_t at = PythonModule::begin(argument);
      fix.edits.push_back({at, at, std::string(kAutocastPositional[index++]) + "="});
    }
  }
  fix.safety = cpu_unchanged ? device.safety() : FixSafety::Unsafe;
  fix.shown_safe = fix.safety == FixSafety::Safe;
  fix.needs_module_device = device.introduced;
  fix.needs_torch_import = module.torch_binding().empty();
  fix.description = "torch.cuda.amp.autocast -> " + t + ".autocast(device_type=...)" +
                    (cpu_unchanged ? "" : " (turns CPU autocast on without CUDA)");
  return FixOutcome::with(std::move(fix));
}

FixOutcome plan_grad_scaler(FixContext &context, const Finding &finding) {
  PythonModule &module = context.python();
  std::string reason;
  const auto site = call_site(module, finding, reason);
  if (!site)
    return FixOutcome::none(reason);
  if (module.keyword_argument(site->arguments, "device"))
    return FixOutcome::none("already names a device");
  const DeviceRef device = module.device_for(site->call);
  if (!device.blocked.empty())
    return FixOutcome::none(device.blocked);

  PlannedFix fix;
  const std::string t = module.torch();
  fix.edits.push_back(
      {PythonModule::begin(site->function), PythonModule::end(site->function), t + ".amp.GradScaler"});
  const std::string device_type = module.device_type_expression(device);
  if (site->arguments.empty()) {
    fix.edits.push_back(module.append_argument(site->call, device_type));
  } else {
    const std::size_t first = PythonModule::begin(site->arguments.front());
    fix.edits.push_back({first, first, device_type + ", "});
  }
  const bool cpu_unchanged = disabled(module, *site, false);
  fix.safety = cpu_unchanged ? device.safety() : FixSafety::Unsafe;
  fix.shown_safe = fix.safety == FixSafety::Safe;
  fix.needs_module_device = device.introduced;
  fix.needs_torch_import = module.torch_binding().empty();
  fix.description = "torch.cuda.amp.GradScaler -> " + t + ".amp.GradScaler(device type)" +
                    (cpu_unchanged ? "" : " (scales the loss on the CPU without CUDA)");
  return FixOutcome::with(std::move(fix));
}

} // namespace

void register_amp_fixes(FixRegistry &registry) {
  registry.add("amp-autocast", {FileKind::Python}, plan_autocast);
  registry.add("amp-grad-scaler", {FileKind::Python}, plan_grad_scaler);
}

} // namespace mpsaudit
