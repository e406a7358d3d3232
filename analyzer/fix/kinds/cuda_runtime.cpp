// MPS101, MPS102, MPS103: torch.cuda runtime calls become device-agnostic.
//
// synchronize (MPS101): torch.accelerator.synchronize() where the target
//   release has it (2.6+). Before that there is no device-generic call, so a
//   statement of its own is wrapped: the CUDA call stays, behind a CUDA
//   check, and MPS gets its own (torch.mps, 2.0+):
//       if torch.cuda.is_available():
//           torch.cuda.synchronize()
//       elif torch.backends.mps.is_available():
//           torch.mps.synchronize()
// empty_cache (MPS102): always that wrapped form (torch.accelerator gained
//   no cache call in 2.6). Both are safe: on CUDA the same call runs.
// manual_seed / manual_seed_all / seed / seed_all (MPS103): torch.manual_seed
//   and torch.seed, which seed every device, MPS included. Unsafe: on a CUDA
//   machine the CPU generator is now reseeded too, which shifts CPU random
//   streams drawn after this point.
#include "core/text.h"
#include "fix/python_module.h"

namespace mpsaudit {
namespace {

struct Call {
  TSNode call{};
  TSNode function{};
  std::vector<TSNode> arguments;
};

std::optional<Call> find_call(PythonModule &module, const Finding &finding, std::string &reason) {
  const auto call = module.call_at(finding.span);
  if (!call) {
    reason = "only calls are rewritten";
    return std::nullopt;
  }
  const auto arguments = module.call_arguments(*call);
  if (!arguments || PythonModule::has_splat(*arguments)) {
    reason = "arguments passed through *args/**kwargs";
    return std::nullopt;
  }
  return Call{*call, PythonModule::field(*call, "function"), *arguments};
}

// The call as a statement of its own, wrapped in a CUDA check with an MPS
// alternative calling torch.mps.<mps_function>.
FixOutcome wrap_statement(PythonModule &module, const Call &call, const std::string &mps_function) {
  const TSNode statement = ts_node_parent(call.call);
  if (!PythonModule::is(statement, "expression_statement") ||
      PythonModule::named_children(statement).size() != 1)
    return FixOutcome::none("the call's result is used; only a call on its own line is wrapped");
  const TSNode parent = ts_node_parent(statement);
  if (!(PythonModule::is(parent, "block") || PythonModule::is(parent, "module")) ||
      !module.alone_on_lines(statement))
    return FixOutcome::none("the call shares its line with other code");
  if (!call.arguments.empty())
    return FixOutcome::none("the call names a device");
  const std::string indent = module.line_indent(PythonModule::begin(statement));
  const std::string &unit = module.indent_unit();
  const std::string &nl = module.newline();
  const std::string t = module.torch();
  // A comment after the call stays with the CUDA call it describes.
  const std::string_view source = module.source();
  std::size_t end = PythonModule::end(statement);
  std::size_t cursor = end;
  while (cursor < source.size() && (source[cursor] == ' ' || source[cursor] == '\t'))
    ++cursor;
  if (cursor < source.size() && source[cursor] == '#') {
    end = source.find('\n', cursor);
    if (end == std::string_view::npos)
      end = source.size();
    if (end > cursor && source[end - 1] == '\r')
      --end;
  }
  const std::string cuda_line(
      source.substr(PythonModule::begin(statement), end - PythonModule::begin(statement)));
  PlannedFix fix;
  fix.edits.push_back({PythonModule::begin(statement), end,
                       "if " + t + ".cuda.is_available():" + nl + indent + unit + cuda_line + nl + indent +
                           "elif " + t + ".backends.mps.is_available():" + nl + indent + unit + t + ".mps." +
                           mps_function + "()"});
  fix.needs_torch_import = module.torch_binding().empty();
  fix.description = std::string(module.text(call.function)) + "() -> the CUDA call behind a CUDA check, " +
                    t + ".mps." + mps_function + "() for MPS";
  return FixOutcome::with(std::move(fix));
}

FixOutcome plan_synchronize(FixContext &context, const Finding &finding) {
  PythonModule &module = context.python();
  std::string reason;
  const auto call = find_call(module, finding, reason);
  if (!call)
    return FixOutcome::none(reason);
  if (!module.use_accelerator())
    return wrap_statement(module, *call, "synchronize");
  if (!call->arguments.empty())
    return FixOutcome::none("the call names a device");
  PlannedFix fix;
  const std::string t = module.torch();
  fix.edits.push_back({PythonModule::begin(call->function), PythonModule::end(call->function),
                       t + ".accelerator.synchronize"});
  fix.needs_torch_import = module.torch_binding().empty();
  fix.description = "torch.cuda.synchronize() -> " + t + ".accelerator.synchronize()";
  return FixOutcome::with(std::move(fix));
}

FixOutcome plan_empty_cache(FixContext &context, const Finding &finding) {
  PythonModule &module = context.python();
  std::string reason;
  const auto call = find_call(module, finding, reason);
  if (!call)
    return FixOutcome::none(reason);
  return wrap_statement(module, *call, "empty_cache");
}

FixOutcome plan_seed(FixContext &context, const Finding &finding) {
  PythonModule &module = context.python();
  std::string reason;
  const auto call = find_call(module, finding, reason);
  if (!call)
    return FixOutcome::none(reason);
  const std::string leaf = finding.name.substr(finding.name.rfind('.') + 1);
  const bool manual = starts_with(leaf, "manual_seed");
  if (manual != (call->arguments.size() == 1))
    return FixOutcome::none(manual ? "manual_seed takes exactly the seed" : "seed() takes no arguments");
  const std::string t = module.torch();
  const std::string replacement = t + (manual ? ".manual_seed" : ".seed");
  PlannedFix fix;
  fix.edits.push_back({PythonModule::begin(call->function), PythonModule::end(call->function), replacement});
  fix.needs_torch_import = module.torch_binding().empty();
  fix.description = finding.name + "() -> " + replacement + "(), which seeds every device";
  return FixOutcome::with(std::move(fix));
}

} // namespace

void register_cuda_runtime_fixes(FixRegistry &registry) {
  registry.add("cuda-synchronize", {FileKind::Python}, plan_synchronize);
  registry.add("cuda-empty-cache", {FileKind::Python}, plan_empty_cache);
  registry.add("cuda-seed", {FileKind::Python}, plan_seed);
}

} // namespace mpsaudit
