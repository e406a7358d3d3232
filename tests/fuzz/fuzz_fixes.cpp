// libFuzzer target: the fixes catalog loader (rules/fixes.toml's format) on
// arbitrary TOML. A custom rule pack may ship one; errors are diagnostics.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "fix/fix.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  mpsaudit::FixCatalog catalog;
  std::vector<mpsaudit::Diagnostic> diagnostics;
  catalog.load_text(std::string_view(reinterpret_cast<const char *>(data), size), "fuzz-fixes.toml",
                    diagnostics);
  return 0;
}
