// `mpsaudit facts FILE...`: what the front ends and the project passes made
// of a file, the facts rules match, as JSON (docs/writing-rules.md, "See
// what a rule sees").
#pragma once

#include <nlohmann/json.hpp>

#include "scan/scan.h"

namespace mpsaudit {

// One file: its path (from the current directory), kind, how it was
// understood, its facts (kind, name, scope, span, guard, forward(),
// notebook cell, arguments, attributes) and the front end's diagnostics.
nlohmann::ordered_json facts_to_json(const ScanResult &result, const ProjectFile &file);

} // namespace mpsaudit
