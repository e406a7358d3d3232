// The requirements-file reader, shared by requirements files, the pip section
// of conda environments and `pip install` lines.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/fact.h"

namespace mpsaudit::manifest {

struct RequirementsInclude {
  bool constraint = false; // -c rather than -r
  std::string target;
  std::uint32_t line = 0;
  std::uint32_t column = 0;
};

struct RequirementsParse {
  FileFacts facts;
  std::vector<RequirementsInclude> includes;
  bool hashed = false; // some requirement carries --hash
};

// Reads requirements-file text; `first_line` numbers its first line (for text
// embedded in another file). Includes are returned, not followed.
RequirementsParse parse_requirements_text(std::string_view text, const std::string &path,
                                          std::string_view source, std::uint32_t first_line);

} // namespace mpsaudit::manifest
