// The built-in fix kinds, by name. rules/fixes.toml refers to these names;
// a kind lives in its own unit under fix/kinds/ and registers itself here
// (an explicit list: static registration objects would be dropped by the
// linker from a static library).
#include "fix/fix_kind.h"

namespace mpsaudit {

void FixRegistry::add(std::string name, std::vector<FileKind> file_kinds, FixPlanner plan) {
  FixKindEntry entry{name, std::move(file_kinds), std::move(plan)};
  kinds_[std::move(name)] = std::move(entry);
}

const FixKindEntry *FixRegistry::find(std::string_view name) const {
  const auto found = kinds_.find(name);
  return found == kinds_.end() ? nullptr : &found->second;
}

const FixRegistry &fix_registry() {
  static const FixRegistry registry = [] {
    FixRegistry built;
    register_device_selection_fix(built);
    register_dot_cuda_fix(built);
    register_hard_coded_device_fix(built);
    register_amp_fixes(built);
    register_torch_load_fix(built);
    register_cuda_runtime_fixes(built);
    register_pin_memory_fix(built);
    register_factory_device_fix(built);
    register_requirements_fixes(built);
    register_numpy_alias_fix(built);
    return built;
  }();
  return registry;
}

} // namespace mpsaudit
