#include "frontend/cxx/token_scan.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <string>
#include <unordered_set>

#include <clang/Basic/LangOptions.h>
#include <clang/Basic/TokenKinds.h>
#include <clang/Lex/Lexer.h>
#include <clang/Lex/Token.h>

#include "frontend/cxx/device_dispatch.h"
#include "frontend/cxx/token_stream.h"
#include "frontend/cxx/vocabulary.h"

namespace mpsaudit::cxx {
namespace {

namespace tok = clang::tok;
constexpr std::size_t npos = static_cast<std::size_t>(-1);

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return text;
}

bool contains_ignoring_case(std::string_view text, std::string_view needle) {
  if (needle.size() > text.size())
    return false;
  for (std::size_t i = 0; i + needle.size() <= text.size(); ++i) {
    bool same = true;
    for (std::size_t j = 0; j < needle.size() && same; ++j)
      same = std::tolower(static_cast<unsigned char>(text[i + j])) ==
             std::tolower(static_cast<unsigned char>(needle[j]));
    if (same)
      return true;
  }
  return false;
}

// The contents of a string literal token: "abc" -> abc, u8"x" -> x.
std::string_view string_contents(std::string_view literal) {
  const auto open = literal.find('"');
  const auto close = literal.rfind('"');
  if (open == std::string_view::npos || close <= open)
    return {};
  return literal.substr(open + 1, close - open - 1);
}

// Identifiers that can precede '(' in a declaration without naming it.
bool is_declaration_noise(std::string_view name) {
  static constexpr std::array<std::string_view, 22> noise{"__launch_bounds__",
                                                          "__attribute__",
                                                          "__declspec",
                                                          "alignas",
                                                          "decltype",
                                                          "__align__",
                                                          "C10_LAUNCH_BOUNDS_0",
                                                          "C10_LAUNCH_BOUNDS_1",
                                                          "C10_LAUNCH_BOUNDS_2",
                                                          "__device__",
                                                          "__host__",
                                                          "__global__",
                                                          "__forceinline__",
                                                          "mutable",
                                                          "noexcept",
                                                          "sizeof",
                                                          "if",
                                                          "for",
                                                          "while",
                                                          "switch",
                                                          "return",
                                                          "C10_HOST_DEVICE"};
  return std::find(noise.begin(), noise.end(), name) != noise.end();
}

class Scanner {
public:
  Scanner(std::string_view text, SourceLanguage language) : buffer_(text), language_(language) {}

  TokenScanResult run() {
    lex();
    match_brackets();
    count_code_lines();
    for (std::size_t i = 0; i < tokens_.size(); ++i)
      visit(tokens_, i, /*structural=*/true);
    for (std::size_t i = 0; i < macro_tokens_.size(); ++i)
      visit(macro_tokens_, i, /*structural=*/false);
    finish();
    return std::move(result_);
  }

private:
  // ---- lexing ------------------------------------------------------------

  void lex() {
    clang::LangOptions options;
    options.CPlusPlus = options.CPlusPlus11 = options.CPlusPlus14 = options.CPlusPlus17 = 1;
    options.LineComment = 1;
    options.Bool = 1;
    options.CUDA = 1; // lexes <<< and >>> as single tokens
    options.ObjC = language_ == SourceLanguage::ObjCxx;
    const char *begin = buffer_.c_str();
    clang::Lexer lexer(clang::SourceLocation(), options, begin, begin, begin + buffer_.size());
    lexer.SetCommentRetentionState(false);

    std::uint32_t line = 1;
    std::size_t line_start = 0;
    std::size_t counted_to = 0;
    auto position = [&](std::size_t offset) {
      for (; counted_to < offset; ++counted_to)
        if (buffer_[counted_to] == '\n') {
          ++line;
          line_start = counted_to + 1;
        }
      return Tok{tok::unknown, static_cast<std::uint32_t>(offset), 0, line,
                 static_cast<std::uint32_t>(offset - line_start + 1)};
    };

    enum class Directive { None, Define, Other };
    Directive directive = Directive::None;
    bool expect_directive_name = false;
    bool skip_macro_name = false;
    clang::Token token;
    while (true) {
      const bool at_end = lexer.LexFromRawLexer(token);
      if (token.is(tok::eof))
        break;
      const std::size_t offset = token.getLocation().getRawEncoding();
      if (offset >= buffer_.size())
        break;
      Tok t = position(offset);
      t.kind = token.getKind();
      t.length = token.getLength();
      if (token.isAtStartOfLine()) {
        directive = Directive::None;
        expect_directive_name = false;
        skip_macro_name = false;
        if (t.kind == tok::hash) {
          directive = Directive::Other;
          expect_directive_name = true;
          if (at_end)
            break;
          continue;
        }
      }
      if (expect_directive_name) {
        expect_directive_name = false;
        const std::string_view name = text(t);
        if (name == "include" || name == "include_next" || name == "import")
          record_include(t);
        else if (name == "define") {
          directive = Directive::Define;
          skip_macro_name = true; // the name being defined is not a use
        } else
          record_conditional(name, t);
        if (at_end)
          break;
        continue;
      }
      if (directive == Directive::Define) {
        if (skip_macro_name)
          skip_macro_name = false;
        else
          macro_tokens_.push_back(t);
      } else if (directive == Directive::None)
        tokens_.push_back(t);
      if (at_end)
        break;
    }
    position(buffer_.size());
    result_.line_count = line;
  }

  std::string_view text(const Tok &t) const { return std::string_view(buffer_).substr(t.offset, t.length); }

  // The rest of a directive's line after `t`, continuation lines included.
  std::string directive_rest(const Tok &t) const {
    std::string rest;
    std::size_t k = t.offset + t.length;
    for (; k < buffer_.size() && buffer_[k] != '\n'; ++k) {
      if (buffer_[k] == '\\' && k + 1 < buffer_.size() &&
          (buffer_[k + 1] == '\n' || buffer_[k + 1] == '\r')) {
        k += buffer_[k + 1] == '\r' && k + 2 < buffer_.size() && buffer_[k + 2] == '\n' ? 2 : 1;
        rest += ' ';
        continue;
      }
      rest += buffer_[k];
    }
    // A trailing comment is not part of the condition.
    for (const char *comment : {"//", "/*"})
      if (const auto at = rest.find(comment); at != std::string::npos)
        rest.resize(at);
    return std::string(trim(rest));
  }

  // #if, #ifdef, #ifndef, #elif, #else, #endif: where they sit among the code
  // tokens, for device_dispatch.cpp.
  void record_conditional(std::string_view name, const Tok &t) {
    Conditional conditional;
    conditional.line = t.line;
    conditional.token_index = tokens_.size();
    if (name == "if" || name == "ifdef" || name == "ifndef") {
      conditional.kind = Conditional::Kind::If;
    } else if (name == "elif" || name == "elifdef" || name == "elifndef") {
      conditional.kind = Conditional::Kind::Elif;
    } else if (name == "else") {
      conditional.kind = Conditional::Kind::Else;
    } else if (name == "endif") {
      conditional.kind = Conditional::Kind::Endif;
    } else {
      return;
    }
    const std::string rest = directive_rest(t);
    if (name == "ifdef" || name == "elifdef")
      conditional.condition = "defined(" + rest + ")";
    else if (name == "ifndef" || name == "elifndef")
      conditional.condition = "!defined(" + rest + ")";
    else if (name == "if" || name == "elif")
      conditional.condition = rest;
    conditionals_.push_back(std::move(conditional));
  }

  void record_include(const Tok &directive_token) {
    const std::size_t from = directive_token.offset + directive_token.length;
    std::size_t to = buffer_.find('\n', from);
    if (to == std::string::npos)
      to = buffer_.size();
    const std::optional<IncludedHeader> included =
        included_header(std::string_view(buffer_).substr(from, to - from));
    if (!included)
      return; // #include MACRO: nothing to match
    const std::string &header = included->name;
    const std::uint32_t column = directive_token.column;
    Fact include =
        make_fact(kind::Include, header, directive_token.line, column, column + directive_token.length);
    include.set_attribute("system", included->quoted ? "false" : "true");
    result_.facts.push_back(std::move(include));

    if (const auto library = library_of_header(header); !library.empty()) {
      Fact fact = make_fact(kind::CudaLibrary, std::string(library), directive_token.line, column,
                            column + directive_token.length);
      fact.set_attribute("via", "include");
      fact.set_attribute("header", header);
      result_.facts.push_back(std::move(fact));
    }
    if (is_aten_cuda_header(header)) {
      Fact fact =
          make_fact(kind::AtenCuda, header, directive_token.line, column, column + directive_token.length);
      fact.set_attribute("category", "glue");
      fact.set_attribute("via", "include");
      result_.facts.push_back(std::move(fact));
    }
    if (header == "mma.h") {
      Fact fact =
          make_fact(kind::TensorCore, header, directive_token.line, column, column + directive_token.length);
      fact.set_attribute("via", "include");
      result_.facts.push_back(std::move(fact));
    }
    if (starts_with(header, "cooperative_groups")) {
      Fact fact = make_fact(kind::CooperativeGroups, header, directive_token.line, column,
                            column + directive_token.length);
      fact.set_attribute("via", "include");
      result_.facts.push_back(std::move(fact));
    }
    if (starts_with(header, "Metal/") || starts_with(header, "MetalPerformanceShaders") ||
        starts_with(header, "ATen/mps/") || starts_with(header, "ATen/native/mps/") ||
        header == "torch/mps.h") {
      metal_evidence_.emplace_back(header, directive_token.line);
    }
  }

  // One linear pass with a stack per bracket kind; unmatched brackets keep npos.
  void match_brackets() {
    match_.assign(tokens_.size(), npos);
    std::vector<std::size_t> parens, braces, squares;
    for (std::size_t i = 0; i < tokens_.size(); ++i) {
      auto close = [&](std::vector<std::size_t> &stack) {
        if (stack.empty())
          return;
        match_[stack.back()] = i;
        match_[i] = stack.back();
        stack.pop_back();
      };
      switch (tokens_[i].kind) {
      case tok::l_paren:
        parens.push_back(i);
        break;
      case tok::r_paren:
        close(parens);
        break;
      case tok::l_brace:
        braces.push_back(i);
        break;
      case tok::r_brace:
        close(braces);
        break;
      case tok::l_square:
        squares.push_back(i);
        break;
      case tok::r_square:
        close(squares);
        break;
      default:
        break;
      }
    }
  }

  void count_code_lines() {
    std::vector<bool> has_code(result_.line_count + 2, false);
    for (const Tok &t : tokens_)
      if (t.line < has_code.size())
        has_code[t.line] = true;
    for (const Tok &t : macro_tokens_)
      if (t.line < has_code.size())
        has_code[t.line] = true;
    auto &before = result_.code_lines_before;
    before.assign(has_code.size() + 1, 0);
    for (std::size_t line = 1; line < has_code.size(); ++line)
      before[line + 1] = before[line] + (has_code[line] ? 1 : 0);
  }

  // ---- matching ----------------------------------------------------------

  static bool is_identifier(const std::vector<Tok> &v, std::size_t i) {
    return i < v.size() && v[i].kind == tok::raw_identifier;
  }
  static bool is_kind(const std::vector<Tok> &v, std::size_t i, tok::TokenKind kind) {
    return i < v.size() && v[i].kind == kind;
  }

  // "a::b::name" for the identifier at `i`, following `::` backwards.
  std::string qualified(const std::vector<Tok> &v, std::size_t i) const {
    std::string name(text(v[i]));
    std::size_t k = i;
    int hops = 0;
    while (k >= 2 && v[k - 1].kind == tok::coloncolon && v[k - 2].kind == tok::raw_identifier && hops < 8) {
      name = std::string(text(v[k - 2])) + "::" + name;
      k -= 2;
      ++hops;
    }
    return name;
  }

  Fact make_fact(std::string_view kind_name, std::string name, std::uint32_t line, std::uint32_t column,
                 std::uint32_t end_column) const {
    Fact fact;
    fact.kind = std::string(kind_name);
    fact.name = std::move(name);
    fact.span = Span{line, column, line, end_column};
    return fact;
  }

  Fact fact_at(std::string_view kind_name, std::string name, const Tok &t) const {
    return make_fact(kind_name, std::move(name), t.line, t.column, t.column + t.length);
  }

  void visit(const std::vector<Tok> &v, std::size_t i, bool structural) {
    const Tok &t = v[i];
    if (t.kind == tok::lesslessless) {
      if (structural)
        parse_chevron_launch(i);
      return;
    }
    if (t.kind != tok::raw_identifier)
      return;
    const std::string_view name = text(t);
    const bool call = is_kind(v, i + 1, tok::l_paren);
    const bool member = i > 0 && (v[i - 1].kind == tok::period || v[i - 1].kind == tok::arrow);
    const bool scoped = i > 0 && v[i - 1].kind == tok::coloncolon;
    const bool opens_scope = is_kind(v, i + 1, tok::coloncolon);

    if (structural) {
      if (name == "__global__") {
        parse_region(i, /*kernel=*/true, /*host_device=*/false);
        return;
      }
      if (name == "__device__" || name == "C10_DEVICE") {
        parse_region(i, false, false);
        return;
      }
      if (name == "C10_HOST_DEVICE") {
        parse_region(i, false, true);
        return;
      }
      if (name == "__shared__") {
        result_.model.shared_lines.push_back(t.line);
        return;
      }
      if (name == "double" || name == "double2" || name == "double3" || name == "double4") {
        result_.model.double_lines.push_back(t.line);
        return;
      }
      if (starts_with(name, "__syncthreads") || (name == "sync" && member)) {
        result_.model.barrier_lines.push_back(t.line);
        return;
      }
      if (name == "asm" || name == "__asm__" || name == "__asm") {
        parse_asm(i);
        return;
      }
      if (call && (name == "TORCH_LIBRARY_IMPL" || name == "STABLE_TORCH_LIBRARY_IMPL" ||
                   name == "TORCH_LIBRARY" || name == "TORCH_LIBRARY_FRAGMENT" ||
                   name == "STABLE_TORCH_LIBRARY" || name == "STABLE_TORCH_LIBRARY_FRAGMENT")) {
        parse_torch_library(i);
        return;
      }
      if (call && name == "PYBIND11_MODULE") {
        parse_pybind(i);
        return;
      }
      if (call && is_launch_api(name)) {
        parse_api_launch(i);
        if (name.find("Cooperative") != std::string_view::npos) {
          Fact fact = fact_at(kind::CooperativeGroups, std::string(name), t);
          fact.set_attribute("grid_sync", "true");
          result_.facts.push_back(std::move(fact));
        }
        return;
      }
    }

    if (call && !member) {
      if (const auto category = cuda_api_category(name); !category.empty()) {
        Fact fact = fact_at(kind::CudaApi, std::string(name), t);
        fact.set_attribute("category", std::string(category));
        result_.facts.push_back(std::move(fact));
      }
      if (const auto library = library_of_function(name); !library.empty()) {
        Fact fact = fact_at(kind::CudaLibrary, std::string(library), t);
        fact.set_attribute("function", std::string(name));
        fact.set_attribute("via", "call");
        result_.facts.push_back(std::move(fact));
      }
    }
    if (opens_scope && !scoped) {
      if (const auto library = library_of_namespace(name); !library.empty()) {
        Fact fact = fact_at(kind::CudaLibrary, std::string(library), t);
        if (is_identifier(v, i + 2))
          fact.set_attribute("function", std::string(name) + "::" + std::string(text(v[i + 2])));
        fact.set_attribute("via", "namespace");
        result_.facts.push_back(std::move(fact));
      }
    }
    if (is_warp_intrinsic(name) && (call || name == "warpSize")) {
      result_.facts.push_back(fact_at(kind::WarpIntrinsic, std::string(name), t));
      return;
    }
    if (call && is_atomic_function(name)) {
      result_.facts.push_back(fact_at(kind::Atomic, std::string(name), t));
      return;
    }
    if (is_texture_api(name)) {
      result_.facts.push_back(fact_at(kind::Texture, std::string(name), t));
      return;
    }
    if (name == "wmma" && opens_scope && is_identifier(v, i + 2)) {
      Fact fact = fact_at(kind::TensorCore, "wmma::" + std::string(text(v[i + 2])), t);
      fact.set_attribute("via", "wmma");
      result_.facts.push_back(std::move(fact));
      return;
    }
    if (call && is_tensor_core_function(name) && !(scoped && i >= 2 && text(v[i - 2]) == "wmma")) {
      Fact fact = fact_at(kind::TensorCore, std::string(name), t);
      fact.set_attribute("via", "call");
      result_.facts.push_back(std::move(fact));
      return;
    }
    if (name == "cooperative_groups") {
      result_.facts.push_back(fact_at(kind::CooperativeGroups, std::string(name), t));
      return;
    }
    if (call && is_cooperative_groups_function(name)) {
      Fact fact = fact_at(kind::CooperativeGroups, std::string(name), t);
      fact.set_attribute("grid_sync", name == "this_grid" || name == "this_multi_grid" ? "true" : "false");
      result_.facts.push_back(std::move(fact));
      return;
    }
    if (const auto category = aten_cuda_identifier_category(name); !category.empty()) {
      Fact fact = fact_at(kind::AtenCuda, qualified(v, i), t);
      fact.set_attribute("category", std::string(category));
      result_.facts.push_back(std::move(fact));
      return;
    }
    if (name == "CUDA" && scoped && i >= 2 && text(v[i - 2]) == "DeviceType") {
      Fact fact = fact_at(kind::AtenCuda, qualified(v, i), t);
      fact.set_attribute("category", "device");
      result_.facts.push_back(std::move(fact));
      return;
    }
    if (member && call && (name == "cuda" || name == "is_cuda")) {
      Fact fact = fact_at(kind::AtenCuda, "." + std::string(name) + "()", t);
      fact.set_attribute("category", name == "cuda" ? "device" : "check");
      result_.facts.push_back(std::move(fact));
      return;
    }
    if (call && !member && (name == "CHECK_CUDA" || name == "CHECK_IS_CUDA")) {
      Fact fact = fact_at(kind::AtenCuda, std::string(name), t);
      fact.set_attribute("category", "check");
      result_.facts.push_back(std::move(fact));
      return;
    }
    if (call && starts_with(name, "AT_DISPATCH_")) {
      Fact fact = fact_at(kind::AtenCuda, std::string(name), t);
      fact.set_attribute("category", "dispatch");
      fact.set_attribute("instantiates_double", dispatch_macro_instantiates_double(name) ? "true" : "false");
      dispatch_candidates_.push_back(std::move(fact));
      return;
    }
    if (is_metal_host_identifier(name))
      metal_evidence_.emplace_back(std::string(name), t.line);
  }

  // After __global__ / __device__ at `i`: the function it declares, if it has
  // a body. Bounded look-ahead keeps the pass linear.
  void parse_region(std::size_t i, bool kernel, bool host_device) {
    const std::size_t limit = std::min(tokens_.size(), i + 96);
    std::size_t name_index = npos;
    for (std::size_t j = i + 1; j < limit; ++j) {
      const tok::TokenKind k = tokens_[j].kind;
      if (k == tok::semi || k == tok::l_brace || k == tok::equal || k == tok::r_brace)
        return; // a variable, a lambda, or not a declaration at all
      if (k != tok::l_paren)
        continue;
      const Tok &before = tokens_[j - 1];
      if (before.kind == tok::raw_identifier && !is_declaration_noise(text(before)) && j - 1 > i) {
        name_index = j - 1;
        break;
      }
      // operator+(...), operator()(...)
      for (std::size_t back = 1; back <= 3 && j >= back + 1; ++back)
        if (tokens_[j - back].kind == tok::raw_identifier && text(tokens_[j - back]) == "operator" &&
            j - back > i) {
          name_index = j - back;
          break;
        }
      if (name_index != npos)
        break;
      if (match_[j] == npos)
        return;
      j = match_[j];
    }
    if (name_index == npos)
      return;
    std::size_t open = name_index + 1;
    while (open < tokens_.size() && tokens_[open].kind != tok::l_paren)
      ++open; // operator tokens between the name and '('
    if (open >= tokens_.size() || match_[open] == npos)
      return;
    std::size_t body = npos;
    const std::size_t body_limit = std::min(tokens_.size(), match_[open] + 48);
    for (std::size_t k = match_[open] + 1; k < body_limit; ++k) {
      const tok::TokenKind kind_here = tokens_[k].kind;
      if (kind_here == tok::l_brace) {
        body = k;
        break;
      }
      if (kind_here == tok::semi || kind_here == tok::equal)
        return; // a declaration without a body
      if (kind_here == tok::l_paren && match_[k] != npos)
        k = match_[k];
    }
    if (body == npos || !seen_regions_.insert(name_index).second)
      return;
    const std::size_t body_end = match_[body] == npos ? tokens_.size() - 1 : match_[body];

    CodeRegion region;
    region.is_kernel = kernel;
    std::string name(text(tokens_[name_index]));
    if (name == "operator")
      for (std::size_t k = name_index + 1; k < open; ++k)
        name += text(tokens_[k]);
    region.name = name;
    region.qualified_name = name == text(tokens_[name_index]) ? qualified(tokens_, name_index) : name;
    const Tok &name_token = tokens_[name_index];
    region.line = name_token.line;
    region.column = name_token.column;
    region.end_column = name_token.column + name_token.length;
    region.body_begin_line = tokens_[body].line;
    region.body_end_line = tokens_[body_end].line;
    region.origin = "lexical";
    if (!kernel) {
      region.host_device = host_device;
      for (std::size_t k = i >= 4 ? i - 4 : 0; k < name_index; ++k)
        if (tokens_[k].kind == tok::raw_identifier && text(tokens_[k]) == "__host__")
          region.host_device = true;
    }
    // `template <...>` shortly before, within the same declaration.
    for (std::size_t k = i, steps = 0; k > 0 && steps < 64; --k, ++steps) {
      const tok::TokenKind before = tokens_[k - 1].kind;
      if (before == tok::semi || before == tok::r_brace || before == tok::l_brace)
        break;
      if (before == tok::raw_identifier && text(tokens_[k - 1]) == "template") {
        region.is_template = true;
        break;
      }
    }
    result_.model.regions.push_back(std::move(region));
  }

  void parse_chevron_launch(std::size_t i) {
    LaunchSite launch;
    launch.via = "triple-chevron";
    launch.origin = "lexical";
    // The configuration runs to the matching >>>, within a bounded window.
    const std::size_t limit = std::min(tokens_.size(), i + 256);
    for (std::size_t k = i + 1; k < limit; ++k)
      if (tokens_[k].kind == tok::greatergreatergreater) {
        const std::size_t from = tokens_[i].offset + tokens_[i].length;
        launch.config = std::string(trim(std::string_view(buffer_).substr(from, tokens_[k].offset - from)));
        break;
      }
    // The kernel name precedes <<<, possibly followed by template arguments.
    std::size_t k = i;
    if (k > 0 && (tokens_[k - 1].kind == tok::greater || tokens_[k - 1].kind == tok::greatergreater)) {
      int depth = 0;
      std::size_t steps = 0;
      while (k > 0 && steps++ < 128) {
        const tok::TokenKind before = tokens_[k - 1].kind;
        if (before == tok::greater)
          ++depth;
        else if (before == tok::greatergreater)
          depth += 2;
        else if (before == tok::less)
          --depth;
        --k;
        if (depth <= 0)
          break;
      }
    }
    const Tok *anchor = &tokens_[i];
    if (k > 0 && tokens_[k - 1].kind == tok::raw_identifier) {
      launch.kernel = qualified(tokens_, k - 1);
      anchor = &tokens_[k - 1];
    } else {
      launch.kernel = "?";
    }
    launch.line = anchor->line;
    launch.column = anchor->column;
    launch.end_column = anchor->column + anchor->length;
    result_.model.launches.push_back(std::move(launch));
  }

  // cudaLaunchKernel((void *)kernel, grid, block, args, smem, stream)
  void parse_api_launch(std::size_t i) {
    LaunchSite launch;
    launch.via = std::string(text(tokens_[i]));
    launch.origin = "lexical";
    launch.kernel = "?";
    const std::size_t open = i + 1;
    const std::size_t close = match_[open] == npos ? std::min(tokens_.size(), open + 64) : match_[open];
    // The kernel is the last identifier of the first argument.
    for (std::size_t k = open + 1; k < close; ++k) {
      if (tokens_[k].kind == tok::comma)
        break;
      if (tokens_[k].kind == tok::l_paren && match_[k] != npos && match_[k] < close && k + 1 < close &&
          tokens_[k + 1].kind == tok::raw_identifier && text(tokens_[k + 1]) == "void") {
        k = match_[k]; // skip a (void *) cast
        continue;
      }
      if (tokens_[k].kind == tok::raw_identifier && text(tokens_[k]) != "reinterpret_cast" &&
          text(tokens_[k]) != "const" && text(tokens_[k]) != "void")
        launch.kernel = std::string(text(tokens_[k]));
    }
    const Tok &t = tokens_[i];
    launch.line = t.line;
    launch.column = t.column;
    launch.end_column = t.column + t.length;
    result_.model.launches.push_back(std::move(launch));
  }

  void parse_asm(std::size_t i) {
    std::size_t open = i + 1;
    while (open < tokens_.size() && tokens_[open].kind == tok::raw_identifier &&
           (text(tokens_[open]) == "volatile" || text(tokens_[open]) == "__volatile__" ||
            text(tokens_[open]) == "goto" || text(tokens_[open]) == "inline"))
      ++open;
    if (open >= tokens_.size() || tokens_[open].kind != tok::l_paren)
      return;
    const std::size_t close = match_[open] == npos ? std::min(tokens_.size(), open + 64) : match_[open];
    AsmSite site;
    for (std::size_t k = open + 1; k < close; ++k) {
      if (tokens_[k].kind == tok::colon || tokens_[k].kind == tok::coloncolon)
        break;
      if (tok::isStringLiteral(tokens_[k].kind))
        site.text += string_contents(text(tokens_[k]));
    }
    const Tok &t = tokens_[i];
    site.line = t.line;
    site.column = t.column;
    site.end_column = t.column + t.length;
    site.origin = "lexical";
    result_.model.asm_sites.push_back(std::move(site));
  }

  // The texts of the top-level comma-separated arguments inside (open, close).
  std::vector<std::pair<std::size_t, std::size_t>> split_arguments(std::size_t open,
                                                                   std::size_t close) const {
    std::vector<std::pair<std::size_t, std::size_t>> arguments;
    std::size_t start = open + 1;
    for (std::size_t k = open + 1; k < close; ++k) {
      const tok::TokenKind kind_here = tokens_[k].kind;
      if ((kind_here == tok::l_paren || kind_here == tok::l_brace || kind_here == tok::l_square) &&
          match_[k] != npos && match_[k] < close) {
        k = match_[k];
        continue;
      }
      if (kind_here == tok::comma) {
        arguments.emplace_back(start, k);
        start = k + 1;
      }
    }
    if (start < close)
      arguments.emplace_back(start, close);
    return arguments;
  }

  std::string tokens_text(std::size_t from, std::size_t to) const {
    if (from >= to)
      return {};
    const std::size_t begin = tokens_[from].offset;
    const std::size_t end = tokens_[to - 1].offset + tokens_[to - 1].length;
    return std::string(trim(std::string_view(buffer_).substr(begin, end - begin)));
  }

  // The first string literal in [from, to), unquoted.
  std::string first_string(std::size_t from, std::size_t to) const {
    for (std::size_t k = from; k < to; ++k)
      if (tok::isStringLiteral(tokens_[k].kind))
        return std::string(string_contents(text(tokens_[k])));
    return {};
  }

  // The last identifier of [from, to) that names a function: TORCH_FN(f),
  // &ns::f, torch::dispatch(DispatchKey::CPU, f) all give f.
  std::string implementation_name(std::size_t from, std::size_t to) const {
    if (from < to && tokens_[from].kind == tok::l_square)
      return "<lambda>";
    static constexpr std::array<std::string_view, 10> wrappers{
        "TORCH_FN",        "torch", "dispatch", "c10", "DispatchKey", "CppFunction", "makeFromBoxedFunction",
        "makeFallthrough", "at",    "template"};
    std::string name;
    for (std::size_t k = from; k < to; ++k) {
      if (tokens_[k].kind == tok::l_square)
        return "<lambda>";
      if (tokens_[k].kind != tok::raw_identifier)
        continue;
      const std::string_view word = text(tokens_[k]);
      if (std::find(wrappers.begin(), wrappers.end(), word) != wrappers.end())
        continue;
      if (k > 0 && tokens_[k - 1].kind == tok::coloncolon && k >= 2 && text(tokens_[k - 2]) == "DispatchKey")
        continue;
      if (starts_with(word, "k") && word.size() > 1 && std::isupper(static_cast<unsigned char>(word[1])))
        continue; // kCPU, kCUDA
      name = std::string(word);
    }
    return name;
  }

  // An explicit dispatch key inside an implementation argument.
  std::string dispatch_key_in(std::size_t from, std::size_t to) const {
    for (std::size_t k = from; k + 2 < to; ++k)
      if (tokens_[k].kind == tok::raw_identifier && text(tokens_[k]) == "DispatchKey" &&
          tokens_[k + 1].kind == tok::coloncolon && tokens_[k + 2].kind == tok::raw_identifier)
        return std::string(text(tokens_[k + 2]));
    for (std::size_t k = from; k < to; ++k)
      if (tokens_[k].kind == tok::raw_identifier) {
        const std::string_view word = text(tokens_[k]);
        if (word == "kCPU")
          return "CPU";
        if (word == "kCUDA")
          return "CUDA";
        if (word == "kMPS")
          return "MPS";
      }
    return {};
  }

  static std::string op_name_from_schema(std::string schema) {
    const auto paren = schema.find('(');
    if (paren != std::string::npos)
      schema.resize(paren);
    const auto scope = schema.rfind("::");
    if (scope != std::string::npos)
      schema.erase(0, scope + 2);
    return std::string(trim(schema));
  }

  void parse_torch_library(std::size_t i) {
    const std::string_view macro = text(tokens_[i]);
    const std::size_t open = i + 1;
    if (match_[open] == npos)
      return;
    const std::size_t close = match_[open];
    const auto arguments = split_arguments(open, close);
    const bool is_impl = macro.find("IMPL") != std::string_view::npos;
    if (arguments.size() < (is_impl ? 3u : 2u))
      return;
    const std::string ns = tokens_text(arguments[0].first, arguments[0].second);
    const std::string key = is_impl ? tokens_text(arguments[1].first, arguments[1].second) : "";
    const auto &var_range = arguments[is_impl ? 2 : 1];
    if (var_range.second != var_range.first + 1)
      return;
    const std::string_view var = text(tokens_[var_range.first]);
    const std::size_t body = close + 1;
    if (body >= tokens_.size() || tokens_[body].kind != tok::l_brace || match_[body] == npos)
      return;
    const std::size_t body_end = match_[body];

    if (key == "MPS") {
      Fact fact = fact_at(kind::MetalPort, "mps-registration", tokens_[i]);
      fact.set_attribute("evidence", std::string(macro) + "(" + ns + ", MPS, ...)");
      result_.facts.push_back(std::move(fact));
    }

    for (std::size_t k = body + 1; k + 3 < body_end; ++k) {
      if (tokens_[k].kind != tok::raw_identifier || text(tokens_[k]) != var ||
          tokens_[k + 1].kind != tok::period || tokens_[k + 2].kind != tok::raw_identifier ||
          tokens_[k + 3].kind != tok::l_paren || match_[k + 3] == npos)
        continue;
      const std::string_view method = text(tokens_[k + 2]);
      const std::size_t call_open = k + 3;
      const std::size_t call_close = match_[call_open];
      k = call_close;
      if (method != "impl" && method != "def" && method != "impl_UNBOXED")
        continue;
      const auto call_arguments = split_arguments(call_open, call_close);
      if (call_arguments.empty())
        continue;
      const std::string op =
          op_name_from_schema(first_string(call_arguments[0].first, call_arguments[0].second));
      if (op.empty())
        continue;
      const bool has_implementation = call_arguments.size() >= 2;
      std::string backend = key;
      std::string function;
      if (has_implementation) {
        const auto &implementation = call_arguments[1];
        function = implementation_name(implementation.first, implementation.second);
        if (backend.empty())
          backend = dispatch_key_in(implementation.first, implementation.second);
      }
      if (backend.empty()) {
        if (!has_implementation)
          continue;                            // a schema only: no kernel for any backend
        backend = "CompositeImplicitAutograd"; // a catch-all kernel
      }
      Fact fact = fact_at(kind::OpRegistration, ns + "::" + op, tokens_[call_open - 3]);
      fact.set_attribute("backend", backend);
      fact.set_attribute("via", is_impl ? "torch_library_impl" : "torch_library");
      fact.set_attribute("namespace", ns);
      fact.set_attribute("op", op);
      if (!function.empty())
        fact.set_attribute("function", function);
      result_.facts.push_back(std::move(fact));
    }
  }

  void parse_pybind(std::size_t i) {
    const std::size_t open = i + 1;
    if (match_[open] == npos)
      return;
    const std::size_t close = match_[open];
    const auto arguments = split_arguments(open, close);
    if (arguments.size() < 2 || arguments[1].second != arguments[1].first + 1)
      return;
    const std::string module = tokens_text(arguments[0].first, arguments[0].second);
    const std::string_view var = text(tokens_[arguments[1].first]);
    const std::size_t body = close + 1;
    if (body >= tokens_.size() || tokens_[body].kind != tok::l_brace || match_[body] == npos)
      return;
    const std::size_t body_end = match_[body];
    for (std::size_t k = body + 1; k + 3 < body_end; ++k) {
      if (tokens_[k].kind != tok::raw_identifier || text(tokens_[k]) != var ||
          tokens_[k + 1].kind != tok::period || tokens_[k + 2].kind != tok::raw_identifier ||
          text(tokens_[k + 2]) != "def" || tokens_[k + 3].kind != tok::l_paren || match_[k + 3] == npos)
        continue;
      const std::size_t call_open = k + 3;
      const std::size_t call_close = match_[call_open];
      k = call_close;
      const auto call_arguments = split_arguments(call_open, call_close);
      if (call_arguments.size() < 2)
        continue;
      const std::string op = first_string(call_arguments[0].first, call_arguments[0].second);
      if (op.empty())
        continue;
      Fact fact = fact_at(kind::OpRegistration, module + "::" + op, tokens_[call_open - 3]);
      fact.set_attribute("via", "pybind11");
      fact.set_attribute("namespace", module);
      fact.set_attribute("op", op);
      fact.set_attribute("function", implementation_name(call_arguments[1].first, call_arguments[1].second));
      pybind_registrations_.push_back(std::move(fact));
    }
  }

  // File-level decisions that need the whole file.
  void finish() {
    const bool has_kernel_code = std::any_of(result_.model.regions.begin(), result_.model.regions.end(),
                                             [](const CodeRegion &r) { return r.is_kernel; }) ||
                                 !result_.model.launches.empty();
    const bool cuda_file = language_ == SourceLanguage::Cuda || has_kernel_code;
    // AT_DISPATCH_* is ordinary in CPU code; it is CUDA glue only next to kernels.
    if (cuda_file)
      for (auto &fact : dispatch_candidates_)
        result_.facts.push_back(std::move(fact));

    // A pybind11 binding has no dispatch key: call it CUDA when the file or
    // the bound function shows CUDA.
    const bool cuda_evidence =
        cuda_file || std::any_of(result_.facts.begin(), result_.facts.end(), [](const Fact &f) {
          return f.kind == kind::AtenCuda || f.kind == kind::CudaApi;
        });
    for (auto &fact : pybind_registrations_) {
      const std::string *function = fact.attribute("function");
      const bool cuda_name = function && contains_ignoring_case(*function, "cuda");
      if (cuda_name || cuda_evidence) {
        fact.set_attribute("backend", "CUDA");
        fact.set_attribute("backend_evidence",
                           cuda_name ? "function-name" : (cuda_file ? "cuda-file" : "cuda-glue"));
      } else {
        fact.set_attribute("backend", "CPU");
        fact.set_attribute("backend_evidence", "no-cuda-in-file");
      }
      result_.facts.push_back(std::move(fact));
    }

    if (!metal_evidence_.empty()) {
      std::string evidence;
      for (const auto &[name, line] : metal_evidence_) {
        if (evidence.find(name) != std::string::npos)
          continue;
        if (!evidence.empty())
          evidence += ",";
        evidence += name;
      }
      Fact fact = make_fact(kind::MetalPort, "metal-host", metal_evidence_.front().second, 1, 1);
      fact.set_attribute("evidence", evidence);
      result_.facts.push_back(std::move(fact));
    }
    std::sort(result_.model.shared_lines.begin(), result_.model.shared_lines.end());
    std::sort(result_.model.double_lines.begin(), result_.model.double_lines.end());
    std::sort(result_.model.barrier_lines.begin(), result_.model.barrier_lines.end());
    analyse_functions(cuda_evidence ||
                      std::any_of(result_.facts.begin(), result_.facts.end(),
                                  [](const Fact &f) { return f.kind == kind::CudaLibrary; }));
  }

  // ---- functions and device dispatch (device_dispatch.h) -----------------

  void analyse_functions(bool shows_cuda) {
    const TokenStream stream{buffer_, tokens_, match_, conditionals_};
    const std::vector<FunctionBody> bodies = find_function_bodies(stream);
    const std::vector<DeviceDispatch> dispatches = find_device_dispatches(stream, bodies);
    record_dispatches(bodies, dispatches);
    // The functions of files without CUDA cannot lead to CUDA code.
    if (shows_cuda || !dispatches.empty())
      record_functions(stream, bodies);
  }

  static std::string join(const std::vector<std::string> &names) {
    std::string out;
    for (const auto &name : names)
      out += (out.empty() ? "" : ",") + name;
    return out;
  }

  // "`a_cuda`, `b_cuda`", or `otherwise` when there is none.
  static std::string readable(const std::vector<std::string> &names, const char *otherwise) {
    if (names.empty())
      return otherwise;
    std::string out;
    for (std::size_t i = 0; i < names.size() && i < 3; ++i)
      out += (i ? ", `" : "`") + names[i] + "`";
    if (names.size() > 3)
      out += " and " + std::to_string(names.size() - 3) + " more";
    return out;
  }

  SourceRange source_range(TokenRange range) const {
    const Tok &first = tokens_[range.begin];
    const Tok &last = tokens_[range.end - 1];
    return {first.line, first.column, last.line, last.column + (last.length ? last.length - 1 : 0)};
  }

  // One device-dispatch fact per function, however many tests it has.
  void record_dispatches(const std::vector<FunctionBody> &bodies,
                         const std::vector<DeviceDispatch> &dispatches) {
    std::map<std::size_t, std::vector<const DeviceDispatch *>> by_function;
    for (const DeviceDispatch &dispatch : dispatches) {
      by_function[dispatch.function].push_back(&dispatch);
      if (dispatch.cpu_fallback)
        for (const TokenRange &range : dispatch.cuda_side)
          if (range.begin < range.end && range.end <= tokens_.size())
            result_.cpu_fallback_ranges.push_back(source_range(range));
    }
    for (const auto &[function, list] : by_function) {
      const FunctionBody &body = bodies[function];
      std::vector<std::string> vias, cuda_functions, cpu_functions;
      bool cpu_fallback = true, runtime = false;
      const auto add = [](std::vector<std::string> &into, const std::string &name) {
        if (std::find(into.begin(), into.end(), name) == into.end())
          into.push_back(name);
      };
      for (const DeviceDispatch *dispatch : list) {
        add(vias, dispatch->via);
        for (const auto &name : dispatch->cuda_functions)
          add(cuda_functions, name);
        for (const auto &name : dispatch->cpu_functions)
          add(cpu_functions, name);
        cpu_fallback = cpu_fallback && dispatch->cpu_fallback;
        runtime = runtime || dispatch->via != "preprocessor";
      }
      Fact fact = fact_at(kind::DeviceDispatch, body.name, tokens_[body.name_index]);
      fact.set_attribute("qualified_name", body.qualified_name);
      fact.set_attribute("via", join(vias));
      fact.set_attribute("test", list.front()->test);
      fact.set_attribute("test_line", std::to_string(list.front()->line));
      fact.set_attribute("runtime", runtime ? "true" : "false");
      fact.set_attribute("cpu_fallback", cpu_fallback ? "true" : "false");
      fact.set_attribute("cuda_functions", join(cuda_functions));
      fact.set_attribute("cpu_functions", join(cpu_functions));
      fact.set_attribute("cuda_target", readable(cuda_functions, "its CUDA branch"));
      fact.set_attribute("cpu_target", readable(cpu_functions, "its other branch"));
      fact.set_attribute("body_end_line", std::to_string(tokens_[body.close].line));
      result_.facts.push_back(std::move(fact));
    }
  }

  void record_functions(const TokenStream &stream, const std::vector<FunctionBody> &bodies) {
    for (const FunctionBody &body : bodies) {
      if (body.macro_block)
        continue;
      Fact fact = fact_at(kind::CxxFunction, body.name, tokens_[body.name_index]);
      fact.set_attribute("qualified_name", body.qualified_name);
      fact.set_attribute("body_end_line", std::to_string(tokens_[body.close].line));
      fact.set_attribute("device_code", body.device_code ? "true" : "false");
      fact.set_attribute("calls", join(called_functions(stream, body.open + 1, body.close)));
      result_.facts.push_back(std::move(fact));
    }
  }

  std::string buffer_; // a copy: clang's lexer needs a NUL after the text
  SourceLanguage language_;
  std::vector<Tok> tokens_;       // code outside preprocessor directives
  std::vector<Tok> macro_tokens_; // bodies of #define: names only
  std::vector<Conditional> conditionals_;
  std::vector<std::size_t> match_;
  std::unordered_set<std::size_t> seen_regions_;
  std::vector<Fact> dispatch_candidates_;
  std::vector<Fact> pybind_registrations_;
  std::vector<std::pair<std::string, std::uint32_t>> metal_evidence_;
  TokenScanResult result_;
};

} // namespace

TokenScanResult scan_tokens(std::string_view text, SourceLanguage language) {
  return Scanner(text, language).run();
}

std::optional<IncludedHeader> included_header(std::string_view operand) {
  operand = trim(operand);
  if (operand.empty() || (operand.front() != '<' && operand.front() != '"'))
    return std::nullopt;
  const char close = operand.front() == '<' ? '>' : '"';
  const auto end = operand.find(close, 1);
  if (end == std::string_view::npos)
    return std::nullopt;
  return IncludedHeader{std::string(operand.substr(1, end - 1)), operand.front() == '"'};
}

std::uint32_t code_lines_between(const TokenScanResult &scan, std::uint32_t first, std::uint32_t last) {
  const auto &before = scan.code_lines_before;
  if (before.empty() || first > last)
    return 0;
  const std::size_t end = std::min<std::size_t>(last + 1, before.size() - 1);
  const std::size_t begin = std::min<std::size_t>(first, end);
  return before[end] - before[begin];
}

} // namespace mpsaudit::cxx

namespace mpsaudit::cxx {

std::vector<MetalKernel> scan_metal_kernels(std::string_view text) {
  const std::string buffer(text);
  clang::LangOptions options;
  options.CPlusPlus = options.CPlusPlus11 = options.CPlusPlus14 = 1;
  options.LineComment = 1;
  clang::Lexer lexer(clang::SourceLocation(), options, buffer.c_str(), buffer.c_str(),
                     buffer.c_str() + buffer.size());
  std::vector<MetalKernel> kernels;
  // The last three identifiers seen: `kernel void name` or `[[kernel]] void name`.
  std::string previous_previous, previous;
  std::uint32_t line = 1;
  std::size_t counted_to = 0;
  clang::Token token;
  while (true) {
    const bool at_end = lexer.LexFromRawLexer(token);
    if (token.is(clang::tok::eof))
      break;
    const std::size_t offset = token.getLocation().getRawEncoding();
    if (offset >= buffer.size())
      break;
    for (; counted_to < offset; ++counted_to)
      line += buffer[counted_to] == '\n' ? 1 : 0;
    if (token.is(clang::tok::raw_identifier)) {
      std::string word(token.getRawIdentifier());
      if (previous == "void" && previous_previous == "kernel")
        kernels.push_back({word, line});
      previous_previous = std::move(previous);
      previous = std::move(word);
    } else if (!token.is(clang::tok::r_square)) {
      previous_previous.clear();
      previous.clear();
    }
    if (at_end)
      break;
  }
  return kernels;
}

} // namespace mpsaudit::cxx
