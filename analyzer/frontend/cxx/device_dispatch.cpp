#include "frontend/cxx/device_dispatch.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <string_view>

#include "frontend/cxx/vocabulary.h"

namespace mpsaudit::cxx {
namespace {

namespace tok = clang::tok;

template <std::size_t N> bool one_of(const std::array<std::string_view, N> &words, std::string_view word) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

// Words that can precede '(' without being a function's name.
bool is_keyword_like(std::string_view word) {
  static constexpr std::array<std::string_view, 40> words{"if",
                                                          "for",
                                                          "while",
                                                          "switch",
                                                          "catch",
                                                          "return",
                                                          "sizeof",
                                                          "alignof",
                                                          "decltype",
                                                          "alignas",
                                                          "__attribute__",
                                                          "__declspec",
                                                          "__launch_bounds__",
                                                          "noexcept",
                                                          "static_assert",
                                                          "typeid",
                                                          "defined",
                                                          "throw",
                                                          "new",
                                                          "delete",
                                                          "operator",
                                                          "requires",
                                                          "co_return",
                                                          "co_await",
                                                          "case",
                                                          "do",
                                                          "else",
                                                          "using",
                                                          "typedef",
                                                          "template",
                                                          "typename",
                                                          "static_cast",
                                                          "dynamic_cast",
                                                          "const_cast",
                                                          "reinterpret_cast",
                                                          "assert",
                                                          "printf",
                                                          "fprintf",
                                                          "void",
                                                          "auto"};
  return one_of(words, word);
}

// TORCH_CHECK, AT_ERROR, TORCH_LIBRARY: upper case, digits and '_' only.
bool is_macro_name(std::string_view word) {
  bool upper = false;
  for (const char c : word) {
    if (std::islower(static_cast<unsigned char>(c)))
      return false;
    upper = upper || std::isupper(static_cast<unsigned char>(c));
  }
  return upper;
}

bool is_library_namespace(std::string_view word) {
  static constexpr std::array<std::string_view, 14> namespaces{
      "std",     "at",   "torch",  "c10",  "thrust",   "cub",
      "cutlass", "cute", "nvcuda", "wmma", "pybind11", "cooperative_groups",
      "cg",      "py"};
  return one_of(namespaces, word);
}

bool is_cuda_vocabulary(std::string_view word) {
  return word.substr(0, 2) == "__" || !cuda_api_category(word).empty() || is_launch_api(word) ||
         !library_of_function(word).empty() || is_warp_intrinsic(word) || is_atomic_function(word) ||
         is_tensor_core_function(word) || !aten_cuda_identifier_category(word).empty();
}

// The leftmost name of a qualified name ending at `index` (ns for ns::f).
std::string_view leftmost_qualifier(const TokenStream &s, std::size_t index) {
  std::size_t k = index;
  for (int hops = 0; hops < 8 && k >= 2 && s.is(k - 1, tok::coloncolon) && s.is(k - 2, tok::raw_identifier);
       ++hops)
    k -= 2;
  return s.text(k);
}

std::string qualified_name(const TokenStream &s, std::size_t index) {
  std::string name(s.text(index));
  std::size_t k = index;
  for (int hops = 0; hops < 8 && k >= 2 && s.is(k - 1, tok::coloncolon) && s.is(k - 2, tok::raw_identifier);
       ++hops) {
    name = std::string(s.text(k - 2)) + "::" + name;
    k -= 2;
  }
  return name;
}

// The '>' closing the template argument list that opens at `less`, or kNoMatch.
std::size_t template_close(const TokenStream &s, std::size_t less) {
  int depth = 0;
  const std::size_t limit = std::min(s.tokens.size(), less + 32);
  for (std::size_t k = less; k < limit; ++k) {
    switch (s.tokens[k].kind) {
    case tok::less:
      ++depth;
      break;
    case tok::greater:
      if (--depth == 0)
        return k;
      break;
    case tok::greatergreater:
      depth -= 2;
      if (depth <= 0)
        return k;
      break;
    case tok::semi:
    case tok::l_brace:
    case tok::r_brace:
      return kNoMatch;
    case tok::l_paren:
      if (s.match[k] == kNoMatch)
        return kNoMatch;
      k = s.match[k];
      break;
    default:
      break;
    }
  }
  return kNoMatch;
}

// Whether the identifier at `k` is a call (or launch) of a plain function:
// f(...), ns::f(...), f<T>(...), k<<<...>>>, k<T><<<...>>>.
bool is_plain_call(const TokenStream &s, std::size_t k) {
  if (!s.is(k, tok::raw_identifier))
    return false;
  if (k > 0 && (s.is(k - 1, tok::period) || s.is(k - 1, tok::arrow)))
    return false;
  std::size_t next = k + 1;
  if (s.is(next, tok::less)) {
    const std::size_t close = template_close(s, next);
    if (close == kNoMatch)
      return false;
    next = close + 1;
  }
  return s.is(next, tok::l_paren) || s.is(next, tok::lesslessless);
}

bool is_false_literal(const TokenStream &s, std::size_t k) {
  return s.is_word(k, "false") || (s.is(k, tok::numeric_constant) && s.text(k) == "0");
}

// AT_ERROR(...), throw, TORCH_CHECK(false, ...), abort(): the code stops here.
bool is_unconditional_error(const TokenStream &s, std::size_t k) {
  if (!s.is(k, tok::raw_identifier))
    return false;
  const std::string_view word = s.text(k);
  if (word == "throw")
    return true;
  if (!s.is(k + 1, tok::l_paren))
    return false;
  static constexpr std::array<std::string_view, 5> always{"AT_ERROR", "C10_THROW_ERROR", "TORCH_CHECK_MSG",
                                                          "abort", "exit"};
  if (one_of(always, word))
    return true;
  static constexpr std::array<std::string_view, 7> checks{"TORCH_CHECK",
                                                          "TORCH_CHECK_NOT_IMPLEMENTED",
                                                          "TORCH_INTERNAL_ASSERT",
                                                          "AT_ASSERT",
                                                          "AT_ASSERTM",
                                                          "TORCH_CHECK_VALUE",
                                                          "assert"};
  return one_of(checks, word) && is_false_literal(s, k + 2);
}

bool is_project_call(const TokenStream &s, std::size_t k) {
  if (!is_plain_call(s, k))
    return false;
  const std::string_view word = s.text(k);
  if (is_keyword_like(word) || is_macro_name(word) || is_cuda_vocabulary(word))
    return false;
  return !(k >= 2 && s.is(k - 1, tok::coloncolon) && is_library_namespace(leftmost_qualifier(s, k)));
}

// After a parameter list's ')': the function body's '{', or kNoMatch for a
// declaration, a call or a macro use. Skips qualifiers (const, noexcept(...),
// override), a trailing return type and a constructor's initializer list.
std::size_t initializer_list_body(const TokenStream &s, std::size_t k, std::size_t limit) {
  while (k < limit) {
    while (k < limit && (s.is(k, tok::raw_identifier) || s.is(k, tok::coloncolon))) {
      ++k;
      if (s.is(k, tok::less)) {
        const std::size_t close = template_close(s, k);
        if (close == kNoMatch)
          return kNoMatch;
        k = close + 1;
      }
    }
    if (!(s.is(k, tok::l_paren) || s.is(k, tok::l_brace)) || s.match[k] == kNoMatch)
      return kNoMatch;
    k = s.match[k] + 1;
    if (s.is(k, tok::l_brace))
      return k;
    if (!s.is(k, tok::comma))
      return kNoMatch;
    ++k;
  }
  return kNoMatch;
}

std::size_t body_after_parameters(const TokenStream &s, std::size_t close) {
  const std::size_t limit = std::min(s.tokens.size(), close + 64);
  for (std::size_t k = close + 1; k < limit;) {
    const tok::TokenKind kind = s.tokens[k].kind;
    if (kind == tok::l_brace)
      return k;
    if (kind == tok::amp || kind == tok::ampamp) {
      ++k;
      continue;
    }
    if (kind == tok::colon)
      return initializer_list_body(s, k + 1, limit);
    if (kind == tok::arrow) { // trailing return type, up to the body
      ++k;
      while (k < limit && !s.is(k, tok::l_brace) && !s.is(k, tok::semi) && !s.is(k, tok::equal))
        k = s.is(k, tok::l_paren) && s.match[k] != kNoMatch ? s.match[k] + 1 : k + 1;
      continue;
    }
    if (kind != tok::raw_identifier)
      return kNoMatch;
    const std::string_view word = s.text(k);
    if (word == "noexcept" || word == "throw" || word == "__attribute__") {
      k = s.is(k + 1, tok::l_paren) && s.match[k + 1] != kNoMatch ? s.match[k + 1] + 1 : k + 1;
      continue;
    }
    if (word == "const" || word == "volatile" || word == "override" || word == "final" || word == "mutable" ||
        word == "try") {
      ++k;
      continue;
    }
    return kNoMatch;
  }
  return kNoMatch;
}

// Whether [from, to) does real work before any unconditional error: a
// `return` with a value, or a call of a function.
bool does_work(const TokenStream &s, TokenRange range) {
  for (std::size_t k = range.begin; k < range.end; ++k) {
    if (is_unconditional_error(s, k))
      return false;
    if (s.is_word(k, "return")) {
      if (k + 1 < range.end && !s.is(k + 1, tok::semi))
        return !is_unconditional_error(s, k + 1);
      continue;
    }
    if (s.is(k, tok::raw_identifier) && is_plain_call(s, k) && !is_keyword_like(s.text(k)) &&
        !is_macro_name(s.text(k)))
      return true;
  }
  return false;
}

// Whether control leaves the function inside [from, to).
bool exits(const TokenStream &s, TokenRange range) {
  for (std::size_t k = range.begin; k < range.end; ++k)
    if (s.is_word(k, "return") || is_unconditional_error(s, k))
      return true;
  return false;
}

// One past the statement that starts at `begin`.
std::size_t statement_end(const TokenStream &s, std::size_t begin, int depth = 0) {
  const std::size_t n = s.tokens.size();
  if (begin >= n || depth > 32)
    return std::min(begin, n);
  const auto after_parens = [&](std::size_t at) {
    return s.is(at, tok::l_paren) && s.match[at] != kNoMatch ? s.match[at] + 1 : at;
  };
  if (s.is(begin, tok::l_brace))
    return s.match[begin] == kNoMatch ? n : s.match[begin] + 1;
  if (s.is_word(begin, "if")) {
    const std::size_t end = statement_end(s, after_parens(begin + 1), depth + 1);
    return s.is_word(end, "else") ? statement_end(s, end + 1, depth + 1) : end;
  }
  if (s.is_word(begin, "for") || s.is_word(begin, "while") || s.is_word(begin, "switch"))
    return statement_end(s, after_parens(begin + 1), depth + 1);
  if (s.is_word(begin, "do")) {
    const std::size_t end = statement_end(s, begin + 1, depth + 1);
    if (!s.is_word(end, "while"))
      return end;
    const std::size_t condition_end = after_parens(end + 1);
    return s.is(condition_end, tok::semi) ? condition_end + 1 : condition_end;
  }
  const std::size_t limit = std::min(n, begin + 4096);
  for (std::size_t k = begin; k < limit; ++k) {
    const tok::TokenKind kind = s.tokens[k].kind;
    if (kind == tok::semi)
      return k + 1;
    if (kind == tok::r_brace)
      return k; // the enclosing block ends first
    if ((kind == tok::l_paren || kind == tok::l_brace || kind == tok::l_square) && s.match[k] != kNoMatch)
      k = s.match[k];
  }
  return limit;
}

// The '}' of the innermost block around `index` within a body.
std::size_t enclosing_block_close(const TokenStream &s, std::size_t index, const FunctionBody &body) {
  for (std::size_t k = index; k > body.open;) {
    --k;
    if (s.is(k, tok::r_brace) && s.match[k] != kNoMatch && s.match[k] > body.open)
      k = s.match[k];
    else if (s.is(k, tok::l_brace))
      return s.match[k] == kNoMatch ? body.close : s.match[k];
  }
  return body.close;
}

// A test of the device at `k`: `.is_cuda()`, `.is_cpu()`, `== kCUDA`,
// `!= c10::DeviceType::CUDA`...
struct DeviceTest {
  bool found = false;
  bool cuda_when_true = false;
  std::size_t start = 0; // first token of the tested expression
  std::string text;
};

DeviceTest device_test_at(const TokenStream &s, std::size_t k) {
  DeviceTest test;
  if (!s.is(k, tok::raw_identifier))
    return test;
  const std::string_view word = s.text(k);
  if ((word == "is_cuda" || word == "is_cpu") && k > 0 &&
      (s.is(k - 1, tok::period) || s.is(k - 1, tok::arrow)) && s.is(k + 1, tok::l_paren)) {
    // Back to the start of the receiver: x.device().is_cuda() starts at x.
    std::size_t start = k;
    for (int hops = 0;
         hops < 16 && start >= 2 && (s.is(start - 1, tok::period) || s.is(start - 1, tok::arrow)); ++hops) {
      std::size_t previous = start - 2;
      if ((s.is(previous, tok::r_paren) || s.is(previous, tok::r_square)) && s.match[previous] != kNoMatch) {
        previous = s.match[previous];
        if (s.is(previous, tok::l_paren) && previous > 0 && s.is(previous - 1, tok::raw_identifier))
          --previous; // the method before its argument list
      }
      start = previous;
    }
    const bool negated = start > 0 && s.is(start - 1, tok::exclaim);
    test.found = true;
    test.cuda_when_true = (word == "is_cuda") != negated;
    test.start = negated ? start - 1 : start;
    test.text = "." + std::string(word) + "()";
    return test;
  }
  const bool device_type_constant = word == "kCUDA" || word == "kCPU" ||
                                    ((word == "CUDA" || word == "CPU") && k >= 2 &&
                                     s.is(k - 1, tok::coloncolon) && s.is_word(k - 2, "DeviceType"));
  if (!device_type_constant)
    return test;
  std::size_t start = k;
  while (start >= 2 && s.is(start - 1, tok::coloncolon) && s.is(start - 2, tok::raw_identifier))
    start -= 2;
  const std::size_t before = start > 0 ? start - 1 : kNoMatch;
  const bool compared_before =
      before != kNoMatch && (s.is(before, tok::equalequal) || s.is(before, tok::exclaimequal));
  const bool compared_after = s.is(k + 1, tok::equalequal) || s.is(k + 1, tok::exclaimequal);
  if (!compared_before && !compared_after)
    return test; // x.to(kCUDA) moves, it does not test
  const bool not_equal = compared_before ? s.is(before, tok::exclaimequal) : s.is(k + 1, tok::exclaimequal);
  const bool names_cuda = word == "kCUDA" || word == "CUDA";
  test.found = true;
  test.cuda_when_true = names_cuda != not_equal;
  test.start = start;
  test.text = std::string(word);
  return test;
}

// The '(' of the `if` whose condition holds `k`, or kNoMatch.
std::size_t enclosing_if_condition(const TokenStream &s, std::size_t k, const FunctionBody &body) {
  int steps = 0;
  for (std::size_t j = k; j > body.open && steps < 256; ++steps) {
    --j;
    const tok::TokenKind kind = s.tokens[j].kind;
    if ((kind == tok::r_paren || kind == tok::r_square) && s.match[j] != kNoMatch && s.match[j] > body.open) {
      j = s.match[j];
      continue;
    }
    if (kind == tok::semi || kind == tok::l_brace || kind == tok::r_brace)
      return kNoMatch;
    if (kind == tok::l_paren && s.match[j] != kNoMatch && s.match[j] > k && j > 0 && s.is_word(j - 1, "if"))
      return j;
  }
  return kNoMatch;
}

// For `cond ? a : b` with the test at `k`: the '?', the ':' and the end of b.
struct Ternary {
  std::size_t question = kNoMatch, colon = kNoMatch, end = kNoMatch;
};

// From `from`, the first token at this nesting level that is `wanted`
// (kNoMatch for the end of the expression), skipping nested ?: pairs; the
// end of the expression when `wanted` is tok::unknown.
std::size_t expression_scan(const TokenStream &s, std::size_t from, std::size_t limit,
                            tok::TokenKind wanted) {
  int nested = 0;
  for (std::size_t j = from; j < limit; ++j) {
    const tok::TokenKind kind = s.tokens[j].kind;
    if ((kind == tok::l_paren || kind == tok::l_square || kind == tok::l_brace) && s.match[j] != kNoMatch) {
      j = s.match[j];
      continue;
    }
    if (kind == wanted && nested == 0)
      return j;
    if (kind == tok::question) {
      ++nested;
      continue;
    }
    if (kind == tok::colon && nested > 0) {
      --nested;
      continue;
    }
    if (kind == tok::semi || kind == tok::comma || kind == tok::r_paren || kind == tok::r_brace ||
        kind == tok::r_square || kind == tok::colon)
      return wanted == tok::unknown ? j : kNoMatch;
  }
  return kNoMatch;
}

Ternary ternary_after(const TokenStream &s, std::size_t k, const FunctionBody &body) {
  const std::size_t limit = std::min(body.close, k + 1024);
  Ternary ternary;
  ternary.question = expression_scan(s, k + 1, limit, tok::question);
  if (ternary.question != kNoMatch)
    ternary.colon = expression_scan(s, ternary.question + 1, limit, tok::colon);
  if (ternary.colon != kNoMatch)
    ternary.end = expression_scan(s, ternary.colon + 1, limit, tok::unknown);
  return ternary.end == kNoMatch ? Ternary{} : ternary;
}

std::vector<std::string> calls_in(const TokenStream &s, const std::vector<TokenRange> &ranges) {
  std::vector<std::string> names;
  for (const TokenRange &range : ranges)
    for (auto &name : called_functions(s, range.begin, range.end))
      if (std::find(names.begin(), names.end(), name) == names.end())
        names.push_back(std::move(name));
  return names;
}

// Fills the call lists and the fallback verdict from the two sides.
DeviceDispatch make_dispatch(const TokenStream &s, std::size_t function, std::vector<TokenRange> cuda_side,
                             const std::vector<TokenRange> &cpu_side, TokenRange cpu_default) {
  DeviceDispatch dispatch;
  dispatch.function = function;
  dispatch.cpu_functions = calls_in(s, cpu_side);
  for (auto &name : calls_in(s, cuda_side))
    if (std::find(dispatch.cpu_functions.begin(), dispatch.cpu_functions.end(), name) ==
        dispatch.cpu_functions.end())
      dispatch.cuda_functions.push_back(std::move(name));
  dispatch.cpu_fallback = does_work(s, cpu_default);
  dispatch.cuda_side = std::move(cuda_side);
  return dispatch;
}

bool inside(const std::vector<TokenRange> &ranges, std::size_t index) {
  return std::any_of(ranges.begin(), ranges.end(),
                     [&](const TokenRange &r) { return index >= r.begin && index < r.end; });
}

// if/else and ?: on a device test, in one body.
void find_runtime_dispatches(const TokenStream &s, const std::vector<FunctionBody> &bodies,
                             std::size_t function, std::vector<DeviceDispatch> &out) {
  const FunctionBody &body = bodies[function];
  std::set<std::size_t> seen_conditions;
  for (std::size_t k = body.open + 1; k < body.close; ++k) {
    const DeviceTest test = device_test_at(s, k);
    if (!test.found)
      continue;
    const std::uint32_t test_line = s.tokens[test.start].line;
    const std::size_t condition = enclosing_if_condition(s, k, body);
    std::vector<TokenRange> cuda_side, cpu_side;
    TokenRange cpu_default;
    std::string via;
    if (condition != kNoMatch) {
      if (!seen_conditions.insert(condition).second)
        continue; // a.is_cuda() && b.is_cuda(): one dispatch
      const std::size_t condition_close = s.match[condition];
      const TokenRange then_arm{condition_close + 1, statement_end(s, condition_close + 1)};
      TokenRange else_arm{then_arm.end, then_arm.end};
      if (s.is_word(then_arm.end, "else")) {
        else_arm = {then_arm.end + 1, statement_end(s, then_arm.end + 1)};
      } else {
        // No else: what follows the if is the other arm, when the if leaves.
        if (!exits(s, then_arm))
          continue;
        else_arm = {then_arm.end, enclosing_block_close(s, condition, body)};
      }
      const TokenRange cuda_arm = test.cuda_when_true ? then_arm : else_arm;
      cpu_default = test.cuda_when_true ? else_arm : then_arm;
      cuda_side = {{condition - 1, condition_close + 1}, cuda_arm};
      via = "if";
    } else {
      const Ternary ternary = ternary_after(s, k, body);
      if (ternary.question == kNoMatch)
        continue;
      const TokenRange when_true{ternary.question + 1, ternary.colon};
      const TokenRange when_false{ternary.colon + 1, ternary.end};
      cpu_default = test.cuda_when_true ? when_false : when_true;
      cuda_side = {{test.start, ternary.question + 1}, test.cuda_when_true ? when_true : when_false};
      via = "ternary";
      k = ternary.question; // the arms are not tests of their own
    }
    cpu_side = {cpu_default};
    DeviceDispatch dispatch = make_dispatch(s, function, std::move(cuda_side), cpu_side, cpu_default);
    dispatch.via = via;
    dispatch.test = test.text;
    dispatch.line = test_line;
    out.push_back(std::move(dispatch));
  }
}

// #if/#elif/#else/#endif groups: each branch as a token range.
struct ConditionalGroup {
  struct Branch {
    Conditional::Kind kind = Conditional::Kind::If;
    std::string condition;
    std::uint32_t line = 0;
    TokenRange tokens;
  };
  std::vector<Branch> branches;
  std::size_t end = 0; // token index after #endif
};

std::vector<ConditionalGroup> conditional_groups(const std::vector<Conditional> &conditionals) {
  std::vector<ConditionalGroup> groups, open;
  for (const Conditional &directive : conditionals) {
    switch (directive.kind) {
    case Conditional::Kind::If:
      open.emplace_back().branches.push_back({directive.kind,
                                              directive.condition,
                                              directive.line,
                                              {directive.token_index, directive.token_index}});
      break;
    case Conditional::Kind::Elif:
    case Conditional::Kind::Else:
      if (open.empty())
        break; // unbalanced: ignore
      open.back().branches.back().tokens.end = directive.token_index;
      open.back().branches.push_back({directive.kind,
                                      directive.condition,
                                      directive.line,
                                      {directive.token_index, directive.token_index}});
      break;
    case Conditional::Kind::Endif:
      if (open.empty())
        break;
      open.back().branches.back().tokens.end = directive.token_index;
      open.back().end = directive.token_index;
      groups.push_back(std::move(open.back()));
      open.pop_back();
      break;
    }
  }
  return groups;
}

// #if CUDA / #else arms in host code, outside the runtime dispatches.
void find_preprocessor_dispatches(const TokenStream &s, const std::vector<FunctionBody> &bodies,
                                  const std::vector<ConditionalGroup> &groups,
                                  std::vector<DeviceDispatch> &out) {
  for (const ConditionalGroup &group : groups) {
    const std::size_t first = group.branches.front().tokens.begin;
    // Bodies are in token order and do not overlap: the last one opened before the group.
    auto body = std::upper_bound(bodies.begin(), bodies.end(), first,
                                 [](std::size_t index, const FunctionBody &b) { return index <= b.open; });
    if (body == bodies.begin())
      continue;
    --body;
    if (group.end > body->close || body->device_code || body->macro_block)
      continue;
    const std::size_t function = static_cast<std::size_t>(body - bodies.begin());
    // #if CUDA ... #else AT_ERROR inside `if (x.is_cuda())`, or #if CUDA ...
    // #else HIP inside #if CUDA || HIP: part of the enclosing CUDA arm.
    const bool in_cuda_arm = std::any_of(out.begin(), out.end(), [&](const DeviceDispatch &d) {
      return d.function == function && inside(d.cuda_side, first);
    });
    if (in_cuda_arm)
      continue;
    const bool has_else = group.branches.back().kind == Conditional::Kind::Else;
    const TokenRange following{group.end, enclosing_block_close(s, group.end, *body)};
    std::size_t cuda_branch = group.branches.size();
    for (std::size_t b = 0; b < group.branches.size() && cuda_branch == group.branches.size(); ++b)
      if (group.branches[b].kind != Conditional::Kind::Else &&
          cuda_build_condition(group.branches[b].condition) > 0)
        cuda_branch = b;
    std::vector<TokenRange> cuda_side, cpu_side;
    TokenRange cpu_default;
    if (cuda_branch < group.branches.size()) {
      const TokenRange cuda_arm = group.branches[cuda_branch].tokens;
      if (cuda_arm.begin == cuda_arm.end)
        continue;
      for (std::size_t b = 0; b < group.branches.size(); ++b)
        if (b != cuda_branch)
          cpu_side.push_back(group.branches[b].tokens);
      if (has_else)
        cpu_default = group.branches.back().tokens;
      else if (exits(s, cuda_arm))
        cpu_side.push_back(cpu_default = following);
      else
        continue;
      cuda_side = {cuda_arm};
    } else if (cuda_build_condition(group.branches.front().condition) < 0) {
      // #ifndef WITH_CUDA: the first branch is the CPU build.
      cpu_default = group.branches.front().tokens;
      cpu_side = {cpu_default};
      if (has_else)
        cuda_side = {group.branches.back().tokens};
      else if (exits(s, cpu_default))
        cuda_side = {following};
      else
        continue;
    } else {
      continue;
    }
    const auto &test_branch = group.branches[cuda_branch < group.branches.size() ? cuda_branch : 0];
    DeviceDispatch dispatch = make_dispatch(s, function, std::move(cuda_side), cpu_side, cpu_default);
    dispatch.via = "preprocessor";
    dispatch.test = std::string(test_branch.kind == Conditional::Kind::If ? "#if " : "#elif ") +
                    test_branch.condition.substr(0, 80);
    dispatch.line = test_branch.line;
    out.push_back(std::move(dispatch));
  }
}

} // namespace

int cuda_build_condition(std::string_view condition) {
  // A comparison picks a CUDA version or architecture, not CUDA or not.
  if (condition.find('<') != std::string_view::npos || condition.find('>') != std::string_view::npos ||
      condition.find("==") != std::string_view::npos)
    return 0;
  int positive = 0, negative = 0;
  for (std::size_t i = 0; i < condition.size();) {
    const char c = condition[i];
    if (!(std::isalpha(static_cast<unsigned char>(c)) || c == '_')) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < condition.size() &&
           (std::isalnum(static_cast<unsigned char>(condition[end])) || condition[end] == '_'))
      ++end;
    std::string word(condition.substr(i, end - i));
    for (char &ch : word)
      ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    if (word.find("CUDA") != std::string::npos) {
      if (word.find("ARCH") != std::string::npos || word.find("VERSION") != std::string::npos ||
          word.find("CUDART") != std::string::npos)
        return 0;
      // Negated when a '!' comes before it, past `defined` and '('.
      std::size_t k = i;
      while (k > 0 && (std::isspace(static_cast<unsigned char>(condition[k - 1])) || condition[k - 1] == '('))
        --k;
      if (k >= 7 && condition.substr(k - 7, 7) == "defined") {
        k -= 7;
        while (k > 0 &&
               (std::isspace(static_cast<unsigned char>(condition[k - 1])) || condition[k - 1] == '('))
          --k;
      }
      (k > 0 && condition[k - 1] == '!' ? negative : positive) += 1;
    }
    i = end;
  }
  if (positive && !negative)
    return 1;
  if (negative && !positive)
    return -1;
  return 0;
}

std::vector<FunctionBody> find_function_bodies(const TokenStream &s) {
  std::vector<FunctionBody> bodies;
  const std::size_t n = s.tokens.size();
  for (std::size_t i = 0; i < n;) {
    if (!(s.is(i, tok::raw_identifier) && s.is(i + 1, tok::l_paren) && s.match[i + 1] != kNoMatch)) {
      ++i;
      continue;
    }
    const std::string_view word = s.text(i);
    const bool member = i > 0 && (s.is(i - 1, tok::period) || s.is(i - 1, tok::arrow));
    const std::size_t parameters_close = s.match[i + 1];
    if (!member && !is_keyword_like(word)) {
      const std::size_t open = body_after_parameters(s, parameters_close);
      if (open != kNoMatch && s.match[open] != kNoMatch) {
        FunctionBody body;
        body.name = std::string(word);
        body.qualified_name = qualified_name(s, i);
        body.name_index = i;
        body.open = open;
        body.close = s.match[open];
        body.macro_block = is_macro_name(word);
        bool device = false, host = false;
        for (std::size_t k = i, steps = 0; k > 0 && steps < 24; --k, ++steps) {
          const tok::TokenKind kind = s.tokens[k - 1].kind;
          if (kind == tok::semi || kind == tok::l_brace || kind == tok::r_brace)
            break;
          const std::string_view before = s.text(k - 1);
          device = device || before == "__global__" || before == "__device__";
          host = host || before == "__host__";
        }
        body.device_code = device && !host;
        i = body.close + 1;
        bodies.push_back(std::move(body));
        continue;
      }
    }
    i = parameters_close + 1; // a declaration or a call: nothing in its parentheses defines a function
  }
  return bodies;
}

std::vector<std::string> called_functions(const TokenStream &s, std::size_t from, std::size_t to,
                                          std::size_t limit) {
  std::vector<std::string> names;
  for (std::size_t k = from; k < to && k < s.tokens.size() && names.size() < limit; ++k) {
    if (!is_project_call(s, k))
      continue;
    std::string name(s.text(k));
    if (std::find(names.begin(), names.end(), name) == names.end())
      names.push_back(std::move(name));
  }
  return names;
}

std::vector<DeviceDispatch> find_device_dispatches(const TokenStream &s,
                                                   const std::vector<FunctionBody> &bodies) {
  std::vector<DeviceDispatch> dispatches;
  for (std::size_t function = 0; function < bodies.size(); ++function)
    if (!bodies[function].device_code && !bodies[function].macro_block)
      find_runtime_dispatches(s, bodies, function, dispatches);
  // Outer groups first, so that a group nested in a CUDA arm is seen as such.
  std::vector<ConditionalGroup> groups = conditional_groups(s.conditionals);
  std::stable_sort(groups.begin(), groups.end(), [](const ConditionalGroup &a, const ConditionalGroup &b) {
    return a.branches.front().tokens.begin < b.branches.front().tokens.begin ||
           (a.branches.front().tokens.begin == b.branches.front().tokens.begin && a.end > b.end);
  });
  find_preprocessor_dispatches(s, bodies, groups, dispatches);
  return dispatches;
}

} // namespace mpsaudit::cxx
