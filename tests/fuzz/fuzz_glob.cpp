// libFuzzer target: the path glob matcher of the config (include, exclude,
// per-path ignores), on a pattern and a path split at the input's first
// newline. Configs come with the scanned repository: matching must neither
// crash nor take exponential time (-timeout catches that).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "workflow/path_glob.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char *>(data), size);
  const std::size_t newline = input.find('\n');
  const std::string_view pattern = input.substr(0, newline);
  const std::string_view path =
      newline == std::string_view::npos ? std::string_view() : input.substr(newline + 1);
  mpsaudit::path_pattern_match(pattern, path);
  return 0;
}
