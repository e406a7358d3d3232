#include "dispatcher_check.h"

#include <set>

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/version.h>

namespace mpsaudit::probe {

CrossCheckResult cross_check(const CoverageTable &table, const std::string &key) {
  CrossCheckResult result;
  result.table_version = table.version;
  result.key = key;
  c10::DispatchKey dispatch_key = key == "CUDA" ? c10::DispatchKey::CUDA : c10::DispatchKey::CPU;
  auto &dispatcher = c10::Dispatcher::singleton();
  std::set<std::string> seen;
  for (const OperatorCoverage &op : table.operators) {
    seen.insert(op.full_name());
    auto handle = dispatcher.findOp(c10::OperatorName("aten::" + op.name, op.overload));
    if (!handle) {
      result.not_in_dispatcher.push_back(op.full_name());
      continue;
    }
    KernelSource source = key == "CUDA" ? op.cuda : op.cpu;
    CrossCheckRow row{op.full_name(), to_code(source), handle->hasKernelForDispatchKey(dispatch_key)};
    ++result.compared;
    bool table_says = source != KernelSource::None;
    if (table_says == row.dispatcher)
      ++result.agree;
    else if (table_says)
      result.table_only.push_back(row);
    else
      result.dispatcher_only.push_back(row);
  }
  for (const c10::OperatorName &name : dispatcher.getAllOpNames()) {
    if (name.name.rfind("aten::", 0) != 0)
      continue;
    std::string full = name.name.substr(6);
    if (!name.overload_name.empty())
      full += "." + name.overload_name;
    if (!seen.count(full))
      result.not_in_table.push_back(full);
  }
  return result;
}

nlohmann::json to_json(const CrossCheckResult &result) {
  auto rows = [](const std::vector<CrossCheckRow> &list) {
    nlohmann::json out = nlohmann::json::array();
    for (const CrossCheckRow &row : list)
      out.push_back(
          {{"op", row.op}, {"table", std::string(1, row.table_code)}, {"dispatcher", row.dispatcher}});
    return out;
  };
  return {{"table", result.table_version},
          {"key", result.key},
          {"libtorch", TORCH_VERSION},
          {"compared", result.compared},
          {"agree", result.agree},
          {"agreement", result.agreement()},
          {"table_only", rows(result.table_only)},
          {"dispatcher_only", rows(result.dispatcher_only)},
          {"not_in_dispatcher", result.not_in_dispatcher},
          {"not_in_table", result.not_in_table}};
}

} // namespace mpsaudit::probe
