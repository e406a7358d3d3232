// The token path: clang's raw lexer over the file text, matched in one
// linear pass. It needs no preprocessor, no headers and no parse, so it works
// on any file of any size; it is the whole analysis in lexical mode and, in
// AST mode, supplies what clang drops from a recovery AST when headers are
// missing (calls to undeclared functions, macros such as TORCH_LIBRARY_IMPL).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/fact.h"
#include "frontend/cxx/file_model.h"

namespace mpsaudit::cxx {

enum class SourceLanguage : std::uint8_t { Cxx, Cuda, ObjCxx, C, Metal };

// From the start of one token to the end of another, both inclusive.
struct SourceRange {
  std::uint32_t line = 0, column = 0;         // first byte
  std::uint32_t end_line = 0, end_column = 0; // last byte
  bool contains(const Span &span) const {
    const auto before = [](std::uint32_t l1, std::uint32_t c1, std::uint32_t l2, std::uint32_t c2) {
      return l1 < l2 || (l1 == l2 && c1 <= c2);
    };
    return before(line, column, span.line, span.column) &&
           before(span.line, span.column, end_line, end_column);
  }
};

struct TokenScanResult {
  // Name-based facts: include, cuda-api, cuda-library, warp-intrinsic, atomic,
  // tensor-core, cooperative-groups, texture, aten-cuda, op-registration,
  // metal-port, device-dispatch, cxx-function. Kernels, device functions,
  // launches and inline PTX are in `model`, to be merged with the AST's.
  std::vector<Fact> facts;
  // Code that only CUDA tensors or a CUDA build reach, in functions whose
  // device dispatch has a CPU alternative (device_dispatch.h): the test and
  // the CUDA arm. Facts inside get Guard::CpuFallback.
  std::vector<SourceRange> cpu_fallback_ranges;
  FileModel model;
  // code_lines_before[i] = number of lines in [1, i) holding a token that is
  // not part of a preprocessor directive; size = line count + 2.
  std::vector<std::uint32_t> code_lines_before;
  std::uint32_t line_count = 0;
};

TokenScanResult scan_tokens(std::string_view text, SourceLanguage language);

// Lines of code (lines with a token) in [first, last].
std::uint32_t code_lines_between(const TokenScanResult &scan, std::uint32_t first, std::uint32_t last);

// The header an #include, #include_next or #import names: `operand` is the
// rest of the directive's line. nullopt when it names none literally
// (`#include HEADER_MACRO`, or no closing `"` or `>`).
struct IncludedHeader {
  std::string name;
  bool quoted = false; // "name" rather than <name>
};
std::optional<IncludedHeader> included_header(std::string_view operand);

} // namespace mpsaudit::cxx

namespace mpsaudit::cxx {

// Kernel functions (`kernel void name(...)`) of a Metal Shading Language file.
struct MetalKernel {
  std::string name;
  std::uint32_t line = 0;
};
std::vector<MetalKernel> scan_metal_kernels(std::string_view text);

} // namespace mpsaudit::cxx
