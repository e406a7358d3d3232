// Diagnostics: problems with the input (unreadable, malformed, too large),
// as opposed to findings about the code. A diagnostic always names its file.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mpsaudit {

enum class DiagnosticLevel : std::uint8_t {
  Note,    // informational: a file skipped on purpose (binary, vendored)
  Warning, // the file was read, but part of it could not be understood
  Error,   // the file could not be scanned at all; affects the exit code
};
std::string_view to_string(DiagnosticLevel level);

struct Diagnostic {
  DiagnosticLevel level = DiagnosticLevel::Error;
  std::string path;
  std::uint32_t line = 0; // 0 when the problem is not tied to a line
  std::string code;       // stable short code, e.g. "invalid-utf8", "parse-error"
  std::string message;
};

// Whether any of `diagnostics` is an error.
inline bool has_error(const std::vector<Diagnostic> &diagnostics) {
  return std::any_of(diagnostics.begin(), diagnostics.end(),
                     [](const Diagnostic &diagnostic) { return diagnostic.level == DiagnosticLevel::Error; });
}

} // namespace mpsaudit
