// The environment report: what this LibTorch and this machine offer, the
// first question being whether MPS is there at all.
#pragma once

#include <map>
#include <string>

#include "verdicts.h"

namespace mpsaudit::probe {

// Reads the live process: LibTorch version, MPS built/available, CUDA,
// OS/arch/Rosetta; the variables reported are `user_variables` (what the
// user had set, see user_environment()).
EnvironmentReport probe_environment(const std::map<std::string, std::string> &user_variables,
                                    bool fallback_cleared);

// The variables that steer MPS behaviour and are set in `variables`
// (PYTORCH_ENABLE_MPS_FALLBACK, PYTORCH_MPS_*, PYTORCH_DEBUG_MPS_*).
std::map<std::string, std::string> mps_variables(const std::map<std::string, std::string> &variables);
// PYTORCH_ENABLE_MPS_FALLBACK is parsed with std::stoi by MPSFallback.mm: on
// when it starts with a non-zero integer.
bool fallback_enabled(const std::map<std::string, std::string> &variables);

// MPSFallback.mm reads PYTORCH_ENABLE_MPS_FALLBACK while LibTorch loads,
// before main() runs, so unsetting it in-process is too late. When it is set,
// this re-executes the probe without it (keeping the user's value in
// MPSAUDIT_PROBE_USER_MPS_FALLBACK for the report) and does not return on
// success. Returns false when nothing had to be done.
bool reexec_without_fallback(char **argv);
// The process environment, with the user's PYTORCH_ENABLE_MPS_FALLBACK
// restored after a re-exec. Sets `cleared` when the probe had cleared it.
std::map<std::string, std::string> user_environment(bool &cleared);

} // namespace mpsaudit::probe
