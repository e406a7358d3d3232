// libFuzzer target: the project config (mpsaudit.toml, and pyproject.toml's
// [tool.mpsaudit]) on arbitrary text, then its globs against a few paths.
// Configs come from the scanned repository; a malformed one must give
// diagnostics only.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "workflow/path_glob.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char *>(data), size);
  for (const char *name : {"mpsaudit.toml", "pyproject.toml"}) {
    std::vector<mpsaudit::Diagnostic> diagnostics;
    const mpsaudit::ConfigLoad load = mpsaudit::load_config_text(text, name, diagnostics);
    for (const auto *globs : {&load.config.include.value, &load.config.exclude.value})
      for (const auto &glob : *globs)
        for (const char *path : {"train.py", "src/model/net.py", "third_party/a/b/c/d.cu"})
          mpsaudit::path_pattern_match(glob, path);
  }
  return 0;
}
