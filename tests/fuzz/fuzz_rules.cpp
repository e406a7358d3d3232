// libFuzzer target: the rule loader on arbitrary TOML. Rules files come from
// users (custom rule packs), so a malformed one must give diagnostics only.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "rules/rule.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  mpsaudit::RuleCatalog catalog;
  std::vector<mpsaudit::Diagnostic> diagnostics;
  catalog.load_text(std::string_view(reinterpret_cast<const char *>(data), size), "fuzz.toml", diagnostics);
  return 0;
}
