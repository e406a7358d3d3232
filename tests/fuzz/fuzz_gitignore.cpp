// libFuzzer target: .gitignore files and git's wildmatch, read in-process
// from the scanned repository (workflow/gitignore.h). The input's last line
// is a path; the lines before it are an ignore file. Matching must neither
// crash nor take exponential time (-timeout catches that).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "workflow/gitignore.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char *>(data), size);
  const std::size_t last_newline = input.rfind('\n');
  const std::string_view patterns =
      last_newline == std::string_view::npos ? input : input.substr(0, last_newline);
  std::string path(last_newline == std::string_view::npos ? std::string_view()
                                                          : input.substr(last_newline + 1));
  path.resize(std::min(path.size(), path.find('\0'))); // paths never hold NUL
  const mpsaudit::IgnoreFile file(patterns, "base/");
  file.match(path, false);
  file.match(path, true);
  file.match("base/" + path, false);
  mpsaudit::wildmatch(patterns.substr(0, patterns.find('\n')), path, true);
  mpsaudit::wildmatch(patterns.substr(0, patterns.find('\n')), path, false);
  return 0;
}
