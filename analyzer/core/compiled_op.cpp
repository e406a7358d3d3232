#include "core/compiled_op.h"

#include <string_view>

namespace mpsaudit {
namespace {

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

constexpr std::string_view kTorchOps = "torch.ops.";

} // namespace

bool is_compiled_op_call(const Fact &fact) {
  if (fact.kind != fact_kind::Call || starts_with(fact.name, "torch._C"))
    return false;
  return starts_with(fact.name, kTorchOps) || starts_with(fact.name, "_C.") ||
         fact.name.find("._C.") != std::string::npos;
}

CompiledOpName compiled_op_name(const Fact &call) {
  CompiledOpName name;
  const std::size_t dot = call.name.rfind('.');
  name.op = dot == std::string::npos ? call.name.str() : call.name.substr(dot + 1);
  if (starts_with(call.name, kTorchOps) && dot > kTorchOps.size())
    name.ns = call.name.substr(kTorchOps.size(), dot - kTorchOps.size());
  return name;
}

} // namespace mpsaudit
