// The AST path: clang on the file's in-memory text, with the project's
// compile_commands.json when there is one and otherwise a fixed command line
// (no CUDA SDK, the embedded shim force-included). Missing headers do not stop
// it: clang's recovery AST is matched as far as it goes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/diagnostic.h"
#include "core/source.h"
#include "frontend/cxx/file_model.h"
#include "frontend/cxx/parse_budget.h"
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

// skip_unread_bodies: leave unparsed the function bodies the model cannot
// read anything from (ast_scan.cpp, BodyFilter); false parses every body.
// clang runs in a child process under the budget's bounds and deadline and
// options.parse_memory_bytes; past any of them the result is unusable and
// the budget names the bound.
AstScanResult scan_ast(const SourceFile &file, SourceLanguage language, const ExtractOptions &options,
                       std::uint32_t line_count, ParseBudget &budget, bool skip_unread_bodies = true);

// The process the calling thread's clang parses run in, or -1 while there
// is none (benchmarks add its processor time to the thread's).
int parse_worker_process();

// Ends the worker processes clang's parses run in (one per thread that
// parsed); a later parse starts another. For when the scan has read its
// last C/C++/CUDA file.
void stop_parse_workers();

// Parse workers started from now on exec `executable CAP`, the parse worker
// (parse_worker_main.cpp), rather than fork this process, which only a
// process with one thread may do safely (core/isolated_worker.h). A
// thread's worker already running is kept.
void use_parse_worker_program(const std::string &executable);

// The parse worker's side: answers parse requests on `socket` under a cap
// of `memory_bytes` more address space. Never returns.
[[noreturn]] void serve_parse_worker(int socket, std::uint64_t memory_bytes);

// The shim header's text, as embedded at build time.
const char *cuda_shim_text();

// Whether scan_ast takes the file's command line from a compile_commands.json
// (which may change its language, include paths and macros) rather than from
// the fixed command line alone.
bool compilation_database_applies(const ExtractOptions &options);

// Where the fixed command line finds angled includes besides the scan root:
// clang's builtin headers (stddef.h, cpuid.h, ...), when they are installed.
std::vector<std::string> builtin_header_directories();

// The words that let clang's model differ from the token model (regions,
// launches, asm, shared memory; cxx_frontend.cpp, "when clang can add
// nothing", says why each), in CUDA mode or in the other languages.
const std::vector<std::string_view> &clang_evidence_words(bool cuda);
bool is_identifier_char(char c);
// Whether `word` occurs in `text` as a whole identifier.
bool contains_word(std::string_view text, std::string_view word);
// Whether `text` (comments included: erring towards clang) holds one of
// those words, or `<<<` in CUDA mode.
bool has_clang_evidence(std::string_view text, bool cuda);

// How many times this process has run clang on a file (tests read it).
std::uint64_t clang_runs();
// How many function bodies clang has left unparsed in this process (tests).
std::uint64_t skipped_function_bodies();
// How many function-template instantiations clang was spared in this process
// (tests): the model reads templates as written.
std::uint64_t dropped_template_instantiations();

} // namespace mpsaudit::cxx
