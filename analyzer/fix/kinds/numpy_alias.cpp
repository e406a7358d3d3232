// MPS716: `np.float` (an alias NumPy 1.24 removed) becomes `float`, the
// builtin it always named: the same value wherever the code ran before, so a
// safe fix. Where the file binds the builtin's name itself (`str = ...`, a
// parameter or loop variable called `object`), the bare name would mean that
// binding instead: the edit is unsafe there.
#include <regex>
#include <set>

#include "fix/python_module.h"

namespace mpsaudit {
namespace {

const std::set<std::string, std::less<>> kRemovedAliases{"float", "int", "complex", "object", "str"};

// Whether `name` is assigned, imported as, or bound as a parameter or loop
// variable anywhere in the file (a textual check: it may say yes too often,
// which only makes the edit ask for review).
bool file_binds(std::string_view source, const std::string &name) {
  const std::regex binding("(^|[^.\\w])" + name + "\\s*(=[^=]|:|,|\\))|(as|for|def|class)\\s+" + name +
                           "\\b");
  return std::regex_search(source.begin(), source.end(), binding);
}

FixOutcome plan(FixContext &context, const Finding &finding) {
  PythonModule &module = context.python();
  auto node = module.node_at(finding.span); // `dtype=np.float`: the attribute
  if (!node)
    node = module.call_at(finding.span); // `np.int(x)`: the call
  if (!node)
    return FixOutcome::none("the name was not found");
  TSNode target = *node;
  if (PythonModule::is(target, "call")) // `np.int(x)`: the alias is the function
    target = PythonModule::field(target, "function");
  if (!PythonModule::is(target, "attribute") ||
      !PythonModule::is(PythonModule::field(target, "object"), "identifier"))
    return FixOutcome::none("not `np.<alias>` on the NumPy module's name");
  const std::string alias(module.text(PythonModule::field(target, "attribute")));
  if (!kRemovedAliases.count(alias))
    return FixOutcome::none("not one of the aliases NumPy 1.24 removed");
  PlannedFix fix;
  fix.edits.push_back({PythonModule::begin(target), PythonModule::end(target), alias});
  fix.safety = file_binds(module.source(), alias) ? FixSafety::Unsafe : FixSafety::Safe;
  fix.description = std::string(module.text(target)) + " -> " + alias;
  return FixOutcome::with(std::move(fix));
}

} // namespace

void register_numpy_alias_fix(FixRegistry &registry) {
  registry.add("numpy-builtin-alias", {FileKind::Python}, plan);
}

} // namespace mpsaudit
