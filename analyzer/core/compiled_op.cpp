#include "core/compiled_op.h"

#include <algorithm>
#include <string_view>

#include "core/fact_kinds.h"
#include "core/text.h"

namespace mpsaudit {
namespace {

constexpr std::string_view kTorchOps = "torch.ops.";

// How compiled modules are named: private (`_C`, `_nvdiffrast_c`, `_ext`) or
// after their back end (`selective_scan_cuda`, `fused_layer_norm_cuda`,
// `pointnet2_ext`, `amp_C`).
constexpr std::string_view kCompiledModuleSuffixes[] = {"_C",   "_c",       "cuda",    "_cu",      "_ext",
                                                        "_cpp", "_gpu",     "_kernel", "_kernels", "_ops",
                                                        "_op",  "_backend", "_native", "_lib"};

} // namespace

bool is_compiled_op_call(const Fact &fact) {
  if (fact.kind != fact_kind::Call || starts_with(fact.name, "torch._C"))
    return false;
  return starts_with(fact.name, kTorchOps) || starts_with(fact.name, "_C.") ||
         fact.name.find("._C.") != std::string::npos;
}

bool may_call_compiled_module(const Fact &fact) {
  if (is_compiled_op_call(fact))
    return true;
  if (fact.kind != fact_kind::Call || starts_with(fact.name, "torch."))
    return false;
  const std::string_view name = fact.name;
  const std::size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || dot == 0)
    return false;
  const std::string_view module = name.substr(0, dot);
  const std::string_view last = module.substr(module.rfind('.') + 1);
  return starts_with(last, "_") ||
         std::any_of(std::begin(kCompiledModuleSuffixes), std::end(kCompiledModuleSuffixes),
                     [&](std::string_view suffix) { return ends_with(last, suffix); });
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
