// libFuzzer target: one front end, chosen at compile time by FUZZ_KIND.
// The input is handed to the extractor exactly as a scanned file would be;
// any crash, sanitizer report or uncaught exception is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "frontend/frontend.h"
#include "workflow/suppression.h"

using namespace mpsaudit;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  SourceFile file;
  file.path = "fuzz-input";
  file.absolute_path = "/nonexistent/fuzz-input";
  file.kind = FileKind::FUZZ_KIND;
  file.text.assign(reinterpret_cast<const char *>(data), size);
  if (const Extractor *extractor = find_extractor(file.kind))
    (*extractor)(file, ExtractOptions{});
  // Suppression comments are read from every text file before extraction.
  find_suppressions(file.path, file.kind, file.text);
  return 0;
}
