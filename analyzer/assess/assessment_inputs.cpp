#include "assess/assessment_inputs.h"

#include "assess/option_gating.h"

#include <array>
#include <string_view>

#include "assess/assess_policy.h"
#include "assess/roles.h"
#include "core/fact_kinds.h"
#include "core/text.h"

namespace mpsaudit {

// Keep in step with what effort.cpp and memory_fit.cpp read; the roles ask
// role_signal() themselves. A fact missing here silently weakens the
// assessment; the end-to-end report tests go through `mpsaudit scan`, which
// scans with this retention, so their golden decisions and roles catch an
// omission.
FactRetention assessment_retention(const Fact &fact, const AssessPolicy &policy) {
  static constexpr std::array<std::string_view, 6> kWhole{fact_kind::CudaKernel,  fact_kind::OpRegistration,
                                                          fact_kind::Checkpoint,  fact_kind::CheckpointTensor,
                                                          fact_kind::ModelConfig, fact_kind::DocRequirement};
  for (std::string_view kind : kWhole)
    if (fact.kind == kind)
      return FactRetention::Keep;
  // Entry points and the module graph (assess/entry_points.h,
  // reachability.h): imports by name, relative ones with their names; the
  // launch lines of scripts; declared commands; argparse descriptions and
  // flags for an entry's purpose.
  // Imports whose names a file uses only behind an option keep that mark,
  // and modules' top-level definitions their names (assess/option_gating.h).
  if (fact.kind == fact_kind::Import)
    return fact.attribute("relative") || fact.attribute("use") ? FactRetention::Keep
                                                               : FactRetention::NameOnly;
  if (fact.kind == fact_kind::EntryPoint)
    return FactRetention::Keep;
  // Imports of CUDA-only modules of the tree, with their guards: a module
  // every main-path importer reaches only behind a guard is option-only.
  if (fact.kind == fact_kind::LocalCudaOnlyImport)
    return FactRetention::Keep;
  if (fact.kind == fact_kind::Shell && policy.is_launcher(fact.name))
    return FactRetention::Keep;
  if (!policy.generated_source_line(fact).empty()) // a code generator's purpose
    return FactRetention::Keep;
  if (fact.kind == fact_kind::Call &&
      (fact.name == "argparse.ArgumentParser" || fact.name == "importlib.import_module" ||
       ends_with(fact.name, ".add_argument")))
    return FactRetention::Keep;
  // The module flag is an attribute, and the roles count the modules.
  const auto signal = role_signal(fact);
  if (signal == RoleSignal::NnModule)
    return FactRetention::Keep;
  // Option gating reads these per scope (assess/option_gating.h).
  if (is_top_level_definition(fact) || is_compiled_op_call(fact))
    return FactRetention::NameOnly;
  // The other signals only say that a file has them (roles.cpp,
  // entry_points.cpp).
  return signal ? FactRetention::Presence : FactRetention::Drop;
}

// Keep in step with assessment_retention above and role_signal (roles.cpp).
// Module-level definitions are only read in files that call compiled ops
// (option_gating.cpp, find_op_wrappers), hence "_c" and "ops", not "def".
std::string assessment_retention_name(const AssessPolicy &policy) {
  std::string name = "assessment (launchers";
  for (const std::string &launcher : policy.launchers)
    name += " " + launcher;
  return name + ")";
}

std::vector<std::string> assessment_python_triggers() {
  return {"import",             // imports, importlib.import_module, Dataset imports
          "argparse",           // argparse.ArgumentParser and its calls
          "add_argument",       // *.add_argument
          "module",             // nn.Module / LightningModule classes
          "forward",            // def forward
          "optim",              // torch.optim.*
          "backward",           // *.backward
          "step",               // *.step
          "zero_grad",          // *.zero_grad
          "dataloader",         // *DataLoader
          "distributedsampler", // *.DistributedSampler
          "no_grad",            // torch.no_grad
          "inference_mode",     // torch.inference_mode
          "eval",               // *.eval
          "__main__",           // the main guard
          "_c",                 // _C.op, pkg._C.op
          "ops"};               // torch.ops.ns.op
}

} // namespace mpsaudit
