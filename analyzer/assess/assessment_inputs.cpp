#include "assess/assessment_inputs.h"

namespace mpsaudit {

// Keep in step with what roles.cpp, effort.cpp and memory_fit.cpp read; a
// kind missing here silently weakens the assessment. The end-to-end report
// tests go through `mpsaudit scan`, which scans with this list, so their
// golden decisions and roles catch an omission.
std::vector<std::string> assessment_fact_kinds() {
  return {"class-def",  "function-def", "main-guard",       "call",          "import",     "cuda-kernel",
          "op-registration", "checkpoint", "checkpoint-tensor", "model-config", "doc-requirement"};
}

} // namespace mpsaudit
