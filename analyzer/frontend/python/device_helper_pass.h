// The device-helper project pass: calls that leave the device empty when the
// helper they call picks MPS only when asked for "mps" by name.
//
// The Python front end marks a device selection whose every way to MPS needs
// the caller to name "mps" (`mps_by_name`, reported by MPS218 where the
// helper tests CUDA), and every call of a function named like a device helper
// that passes no device, "", None, a parameter defaulting to one of those, or
// an option (`opt.device`) declared with an empty default (`device-helper-call`;
// the option case is reported once, at the option). This pass keeps the calls
// whose helper is such a selector anywhere in the repository and adds an
// `mps-by-name-caller` fact there: on a Mac these callers get the CPU.
#pragma once

#include <string_view>
#include <vector>

#include "core/fact_kinds.h"
#include "core/project_pass.h"

namespace mpsaudit {

// name: the helper as called; attributes how (what the caller passes) and
// selector ("utils/devices.py:12", where the helper tests CUDA).
inline constexpr std::string_view kMpsByNameCallerFact = fact_kind::MpsByNameCaller;

void find_mps_by_name_callers(std::vector<ProjectFile> &files);

// The pass needs the by-name selections and the helper calls whole, nothing
// else.
FactRetention device_helper_retention(const Fact &fact);

} // namespace mpsaudit
