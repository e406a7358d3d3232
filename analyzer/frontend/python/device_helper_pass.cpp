#include "frontend/python/device_helper_pass.h"

#include <map>
#include <string>

#include "core/fact_kinds.h"

namespace mpsaudit {
namespace {

constexpr std::string_view kDeviceHelperCall = fact_kind::DeviceHelperCall;

std::string_view leaf_of(std::string_view dotted) {
  return dotted.substr(dotted.rfind('.') + 1);
}

} // namespace

void find_mps_by_name_callers(std::vector<ProjectFile> &files) {
  // Helper function name -> where it tests CUDA ("utils/devices.py:12").
  std::map<std::string, std::string, std::less<>> selectors;
  for (const ProjectFile &file : files)
    for (const Fact &fact : file.facts.facts) {
      const std::string *by_name = fact.attribute("mps_by_name");
      if (fact.kind != fact_kind::DeviceSelection || by_name == nullptr || *by_name != "true" ||
          fact.scope.empty())
        continue;
      selectors.try_emplace(std::string(leaf_of(fact.scope)),
                            file.path + ":" + std::to_string(fact.span.line));
    }
  if (selectors.empty())
    return;
  for (ProjectFile &file : files) {
    std::vector<Fact> added;
    for (const Fact &fact : file.facts.facts) {
      if (fact.kind != kDeviceHelperCall)
        continue;
      const auto selector = selectors.find(leaf_of(fact.name));
      if (selector == selectors.end())
        continue;
      Fact caller = fact;
      caller.kind = std::string(kMpsByNameCallerFact);
      caller.set_attribute("selector_at", selector->second);
      added.push_back(std::move(caller));
    }
    for (Fact &fact : added)
      file.facts.facts.push_back(std::move(fact));
  }
}

FactRetention device_helper_retention(const Fact &fact) {
  if (fact.kind == kDeviceHelperCall)
    return FactRetention::Keep;
  const std::string *by_name = fact.attribute("mps_by_name");
  return by_name != nullptr && *by_name == "true" ? FactRetention::Keep : FactRetention::Drop;
}

} // namespace mpsaudit
