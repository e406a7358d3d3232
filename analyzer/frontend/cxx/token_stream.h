// The token path's view of a file, shared by the raw-lexer scan
// (token_scan.cpp) and the analyses that work on its tokens
// (device_dispatch.cpp): code tokens outside preprocessor directives, their
// matching brackets, and the conditional directives (#if/#else/...) with the
// position in the token list where each one sits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <clang/Basic/TokenKinds.h>

namespace mpsaudit::cxx {

struct Tok {
  clang::tok::TokenKind kind = clang::tok::unknown;
  std::uint32_t offset = 0;
  std::uint32_t length = 0;
  std::uint32_t line = 0;
  std::uint32_t column = 0;
};

// One #if, #ifdef, #ifndef, #elif, #else or #endif line.
struct Conditional {
  enum class Kind : std::uint8_t { If, Elif, Else, Endif };
  Kind kind = Kind::If;
  // The condition as written; #ifdef X reads "defined(X)", #ifndef X
  // "!defined(X)"; empty for #else and #endif.
  std::string condition;
  std::uint32_t line = 0;
  // Index in TokenStream::tokens of the first code token after the directive.
  std::size_t token_index = 0;
};

inline constexpr std::size_t kNoMatch = static_cast<std::size_t>(-1);

struct TokenStream {
  std::string_view buffer;
  const std::vector<Tok> &tokens;
  const std::vector<std::size_t> &match; // matching bracket, or kNoMatch
  const std::vector<Conditional> &conditionals;

  std::string_view text(std::size_t index) const {
    const Tok &t = tokens[index];
    return buffer.substr(t.offset, t.length);
  }
  bool is(std::size_t index, clang::tok::TokenKind kind) const {
    return index < tokens.size() && tokens[index].kind == kind;
  }
  bool is_word(std::size_t index, std::string_view word) const {
    return is(index, clang::tok::raw_identifier) && text(index) == word;
  }
};

} // namespace mpsaudit::cxx
