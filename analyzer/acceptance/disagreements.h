// Disagreements between the user's interpreters and the LibTorch probe: the
// facts that make "the probe says MPS works" weaker evidence for the code the
// user really runs. Report writers include them next to the env record.
//
// Codes (severity):
//   interpreter-unavailable (error)  an interpreter could not be queried at all
//   no-torch (warning)               an interpreter cannot import torch
//   mps-not-built (error)            the probe has MPS, or the interpreter runs on
//                                    macOS, but its torch was built without MPS
//   mps-not-available (error)        its torch has MPS built in, but no MPS device
//                                    answers, where the probe's does (or on macOS)
//   translated (error)               the interpreter runs under Rosetta, or its
//                                    architecture differs from the machine's
//   torch-version-differs (warning)  two interpreters, or an interpreter and the
//                                    probe's LibTorch, hold different torch releases
//   torch-build-differs (note)       same release, different build (+cpu, +cu121)
//   mps-fallback-set (warning; note when set to 0)
//                                    PYTORCH_ENABLE_MPS_FALLBACK is set
//   mps-variables-differ (note)      interpreters see different PYTORCH_MPS_* values
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "acceptance/env_record.h"

namespace mpsaudit::acceptance {

// `probe` is optional: the probe's report (mpsaudit-probe --format json, which
// holds an "environment" object) or that environment object itself.
std::vector<Disagreement> find_disagreements(const std::vector<InterpreterRecord> &interpreters,
                                             const nlohmann::json *probe = nullptr);

// The probe's environment object inside a probe report, or `probe` itself
// when it already is one; nullptr when neither.
const nlohmann::json *probe_environment_of(const nlohmann::json &probe);

// PYTORCH_ENABLE_MPS_FALLBACK as PyTorch reads it (std::stoi in
// MPSFallback.mm): on when the value starts with a non-zero integer.
bool fallback_enabled(const std::string &value);

} // namespace mpsaudit::acceptance
