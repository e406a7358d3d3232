// The C++/CUDA front end (Clang LibTooling) and the Metal evidence front end.
//
// C++ and CUDA files are always matched by clang's raw lexer, and parsed by
// clang as well ("ast" mode) when the AST could add to what the tokens show;
// files with nothing for clang to add, files over kAstByteLimit and files
// whose AST is unusable get the token path alone ("lexical" mode). Metal
// shader files are lexical only. Fact kinds: docs/cxx-frontend.md.
#pragma once

#include <cstddef>

#include "core/fact.h"
#include "frontend/frontend.h"

namespace mpsaudit {

// Files larger than this are never handed to clang: the raw-lexer path is
// linear in the file size, a clang parse of a generated multi-megabyte unit
// is not bounded in time or memory.
inline constexpr std::size_t kCxxAstByteLimit = 1u << 20; // 1 MiB

enum class CxxParseMode {
  Auto,    // clang when the file is small enough and clang could add to the
           // token model (cxx_frontend.cpp, clang_could_add_to), else tokens
  Lexical, // the raw-lexer path only (tests and benchmarks compare the two)
  Ast,     // clang whenever the file is small enough, on every function
           // body: the reference the gate and the skipped bodies are tested against
};

// Facts of one C, C++, Objective-C++ or CUDA file.
FileFacts extract_cxx_file(const SourceFile &file, const ExtractOptions &options,
                           CxxParseMode mode = CxxParseMode::Auto);
// Facts of one .metal shader file.
FileFacts extract_metal_file(const SourceFile &file, const ExtractOptions &options);

// Registers the front end for C, C++, CUDA and Metal files without loading
// Clang: the extractors load the plugin (cxx_plugin.h) on first use.
void register_cxx_frontends(ExtractorTable &table);

} // namespace mpsaudit
