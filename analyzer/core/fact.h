// Facts: the uniform, language-neutral output of every front end.
//
// A front end knows a language and nothing about rules; it turns one file into
// a list of facts. Rules (rules/*.toml) know facts and nothing about parsers.
// The rule engine (rules/engine.h) meets each fact with the rules indexed
// under its file kind, fact kind and name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/compact_vector.h"
#include "core/diagnostic.h"
#include "core/interned_string.h"

namespace mpsaudit {

// 1-based positions; columns count bytes. end_* point one past the last byte.
struct Span {
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  std::uint32_t end_line = 0;
  std::uint32_t end_column = 0;
};

// How the code around a fact protects it from running without CUDA.
enum class Guard : std::uint8_t {
  None,           // runs unconditionally
  ImportFallback, // import inside try/except ImportError (a fallback exists)
  CudaCheck,      // inside a branch taken only when CUDA is present
  PlatformCheck,  // restricted to Linux (PEP 508 marker, sys.platform test, CMake guard)
  OptionalExtra,  // a dependency only reached through an optional extra
  OptionalPath,   // imported or started only on a branch that an option selects (`elif engine:`)
  CpuFallback,    // CUDA code whose op has a CPU path: a device dispatch's CUDA arm, what
                  // it reaches, or sources a setup.py/CMake build only adds when CUDA is there
};
std::string_view to_string(Guard guard);

// One argument of a call: `keyword` is empty for positional arguments.
// `text` is the source text; `canonical` is the alias-resolved dotted name
// when the argument is a plain name or attribute chain (else empty); `value`
// holds the contents of a string literal (else empty).
struct Argument {
  std::string keyword;
  std::string text;
  std::string canonical;
  std::string value;
  bool is_string = false;
  // Where the argument was written when that is not in the call itself: an
  // entry of a dict passed as `**kwargs`. Line 0: in the call.
  Span written_at{};
};

// The fact kinds every front end shares; core/fact_kinds.h lists them with
// all the others. Rules name them in their `kind` field.
namespace fact_kind {
inline constexpr std::string_view Import = "import";              // name: canonical module or module.symbol
inline constexpr std::string_view Call = "call";                  // name: canonical callee, or "?.method"
inline constexpr std::string_view Attribute = "attribute";        // name: canonical dotted attribute read
inline constexpr std::string_view Assignment = "assignment";      // name: canonical target of `x.y = value`
inline constexpr std::string_view DeviceString = "device-string"; // name: the literal, e.g. "cuda:0"
inline constexpr std::string_view DeviceSelection =
    "device-selection";                                      // a CUDA availability test choosing a device
inline constexpr std::string_view Shell = "shell";           // name: the command word; value attr: whole line
inline constexpr std::string_view Dependency = "dependency"; // name: PEP 503 normalised package name
} // namespace fact_kind

// The kind, name and scope repeat across a tree's facts (every file calls
// torch.cuda.is_available from its main()): they are interned. A large tree
// keeps a million facts for its passes and assessment, so the small members
// come last, packed.
struct Fact {
  InternedString kind;
  InternedString name;
  // Enclosing scope as "Class.function" (empty at module level).
  InternedString scope;
  Span span;
  // Compact: most facts a scan keeps have neither (core/compact_vector.h).
  CompactVector<Argument> arguments;
  // Free-form string attributes that rules can test with `where`.
  CompactVector<std::pair<std::string, std::string>> attributes;
  // Notebook position: code cell index (0-based) and 1-based line in the cell.
  int cell = -1;
  std::uint32_t cell_line = 0;
  Guard guard = Guard::None;
  bool in_forward = false; // inside forward() of an nn.Module subclass

  const std::string *attribute(std::string_view key) const;
  void set_attribute(std::string key, std::string value);
  const Argument *keyword_argument(std::string_view keyword) const;
  // The positional argument at `index`, if present.
  const Argument *positional_argument(std::size_t index) const;
};

// A fact of `kind` and `name` at the place of `place`: its span, scope,
// guard, forward() flag and notebook cell, without its arguments and
// attributes. What a pass adds about another fact, or a slimmed copy.
Fact fact_at(const Fact &place, std::string kind, std::string name);

// Everything one front end learned about one file.
struct FileFacts {
  std::vector<Fact> facts;
  std::vector<Diagnostic> diagnostics;
  // How the file was understood: "ast", "lexical", "skipped".
  std::string mode = "ast";
};

} // namespace mpsaudit
