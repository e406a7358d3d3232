// The AST path: clang on the file's in-memory text, with the project's
// compile_commands.json when there is one and otherwise a fixed command line
// (no CUDA SDK, the embedded shim force-included). Missing headers do not stop
// it: clang's recovery AST is matched as far as it goes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/diagnostic.h"
#include "core/source.h"
#include "frontend/cxx/file_model.h"
#include "frontend/cxx/token_scan.h"
#include "frontend/frontend.h"

namespace mpsaudit::cxx {

struct AstScanResult {
  bool usable = false;
  std::string unusable_reason; // why the token path must stand alone
  std::string command_source;  // "compile_commands.json" or "fixed"
  FileModel model;
  std::vector<Diagnostic> diagnostics; // missing-include, parse-error
};

AstScanResult scan_ast(const SourceFile &file, SourceLanguage language, const ExtractOptions &options,
                       std::uint32_t line_count);

// The shim header's text, as embedded at build time.
const char *cuda_shim_text();

} // namespace mpsaudit::cxx
