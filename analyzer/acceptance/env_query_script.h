// The Python source that `mpsaudit env` runs in each interpreter
// (analyzer/acceptance/env_query.py, compiled in at build time).
#pragma once

#include <string_view>

namespace mpsaudit::acceptance {

std::string_view env_query_script();

// The marker lines around the script's one JSON object on stdout.
inline constexpr std::string_view kEnvQueryBegin = "MPSAUDIT-ENV-BEGIN";
inline constexpr std::string_view kEnvQueryEnd = "MPSAUDIT-ENV-END";

} // namespace mpsaudit::acceptance
