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

// Whether scan_ast takes the file's command line from a compile_commands.json
// (which may change its language, include paths and macros) rather than from
// the fixed command line alone.
bool compilation_database_applies(const ExtractOptions &options);

// Where the fixed command line finds angled includes besides the scan root:
// clang's builtin headers (stddef.h, cpuid.h, ...), when they are installed.
std::vector<std::string> builtin_header_directories();

// How many times this process has run clang on a file (tests read it).
std::uint64_t clang_runs();

} // namespace mpsaudit::cxx
