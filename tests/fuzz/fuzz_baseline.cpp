// libFuzzer target: the baseline reader (.mpsaudit-baseline) on arbitrary
// text. Baselines are committed files; a malformed line is a diagnostic.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "workflow/baseline.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  std::vector<mpsaudit::Diagnostic> diagnostics;
  mpsaudit::parse_baseline(std::string_view(reinterpret_cast<const char *>(data), size), ".mpsaudit-baseline",
                           diagnostics);
  return 0;
}
