// Rules are data: each one is a [[rule]] table in rules/*.toml. This header is
// the in-memory form of one rule and of the whole catalog.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "core/diagnostic.h"
#include "core/source.h"

namespace mpsaudit {

enum class Effort : std::uint8_t { Trivial, Small, Medium, Large, Blocker };
enum class Severity : std::uint8_t { Info, Warning, Error };
std::string_view to_string(Effort effort);
std::string_view to_string(Severity severity);
std::optional<Effort> effort_from_string(std::string_view text);
std::optional<Severity> severity_from_string(std::string_view text);

// What a rule does with a fact that sits behind a guard (see Guard).
enum class GuardPolicy : std::uint8_t {
  Downgrade, // report it with severity Info and its guard named (default)
  Skip,      // a guarded fact is not a finding at all
  Ignore,    // guards make no difference
};

// A keyword/positional argument test. `position` is the 0-based positional
// index that can stand in for the keyword (torch.load(f, "cpu")), or -1.
struct ArgumentTest {
  std::string keyword;
  int position = -1;
  std::vector<std::string> patterns; // globs on canonical name, string value or text
};

// The pattern part of a rule: which facts it matches.
struct Matcher {
  std::vector<std::string> kinds;     // fact kinds (see fact_kind::*); any of them
  std::vector<std::string> names;     // globs on Fact::name; empty means any
  std::vector<std::string> not_names; // globs that exclude
  std::vector<std::pair<std::string, std::vector<std::string>>> where; // attribute globs
  std::vector<ArgumentTest> argument_absent;                           // none of these arguments given
  std::vector<ArgumentTest> argument_matches;                          // each given and matching a pattern
  std::optional<bool> in_forward;
};

// One example from a rule's own [rule.examples]: code that must be flagged
// (`flag`) or left alone (`pass`), in the file kind `kind`.
struct RuleExample {
  bool must_flag = true;
  FileKind kind = FileKind::Python;
  std::string code;
  // Other rules that rightly fire on this code too (`also`); the examples
  // test checks that exactly these and the rule itself (for a flag) fire.
  std::vector<std::string> also;
};

// Which check of the acceptance checklist's reproducibility level counts a
// rule's open findings (docs/acceptance.md): a CUDA-only seed, a checkpoint
// load that needs map_location, a float64 use.
enum class AcceptanceCheck : std::uint8_t { None, Seed, Load, Float64 };
std::string_view to_string(AcceptanceCheck check); // "", "seed", "load", "float64"
std::optional<AcceptanceCheck> acceptance_check_from_string(std::string_view text);

struct Rule {
  std::string id;     // stable code, e.g. "MPS101"
  std::string name;   // kebab-case, e.g. "cuda-synchronize"
  std::string family; // e.g. "torch-cuda"
  std::string summary;
  std::string message; // may use {name} and {value}
  std::string why;     // why it matters on MPS
  std::string replacement;
  std::string docs;                 // anchor in docs/rules.md
  std::vector<std::string> sources; // where the claim comes from
  Effort effort = Effort::Trivial;
  Severity severity = Severity::Warning;
  GuardPolicy guarded = GuardPolicy::Downgrade;
  std::vector<FileKind> kinds; // file kinds the rule applies to
  Matcher match;
  std::vector<RuleExample> examples;
  // Why a rule has no text examples (binary inputs); its unit tests cover it.
  std::string examples_waived;
  // More specific rules that report the same fact: where one of them has a
  // finding on the same line, this rule's finding there is dropped
  // (drop_redundant_findings in rules/engine.h).
  std::vector<std::string> superseded_by;
  // A catch-all: it reports a fact only when no other (non-fallback) rule
  // matches that fact, so specific rules need no exclusion list here.
  bool fallback = false;
  // A safety rule (a checkpoint whose pickle runs code when loaded): a
  // config that comes with the scanned tree cannot hide its findings, only
  // the user's own config or command line can (session/session.cpp).
  bool safety = false;
  // What the assessment knows of a rule, so that it never recognises one by
  // its ID, family or wording (docs/writing-rules.md, "Attributes"). A
  // [family] table may set cuda_only, training_scale and package_cause for
  // all its rules; a rule's own value wins.
  bool cuda_only = false;      // its findings are about CUDA: reasons call them CUDA-only
  bool training_scale = false; // multi-GPU machinery or a CUDA-only speed library: DUAL
  bool package_cause = false;  // a finding's name is a package: reasons group by package
  AcceptanceCheck acceptance = AcceptanceCheck::None;
  std::string origin; // rules file it came from

  bool applies_to(FileKind kind) const;
};

struct RuleFamily {
  std::string name;
  std::string prefix; // e.g. "MPS1"
  std::string title;
  std::string description;
  // Defaults of its rules' attributes (Rule::cuda_only ...).
  bool cuda_only = false;
  bool training_scale = false;
  bool package_cause = false;
};

class RuleCatalog {
public:
  // Loads every *.toml under `directory`. Problems (bad TOML, unknown keys,
  // duplicate IDs) are appended to `diagnostics` naming file and line.
  static RuleCatalog load_directory(const std::string &directory, std::vector<Diagnostic> &diagnostics);
  // The *.toml files load_directory reads, in the order it reads them.
  static std::vector<std::filesystem::path> files_in(const std::string &directory, std::error_code &error);
  // A catalog of rules and families already read (the catalog snapshot,
  // scan/catalog_snapshot.h, rebuilds one so).
  static RuleCatalog from_parts(std::vector<Rule> rules, std::vector<RuleFamily> families);
  // Loads one TOML document (used by tests).
  void load_text(std::string_view toml_text, const std::string &origin, std::vector<Diagnostic> &diagnostics);

  const std::vector<Rule> &rules() const { return rules_; }
  const std::vector<RuleFamily> &families() const { return families_; }
  const Rule *find(std::string_view id) const;
  // Keeps only rules for which `keep` returns true.
  template <typename Predicate> void retain(Predicate keep) {
    std::vector<Rule> kept;
    for (auto &rule : rules_)
      if (keep(rule))
        kept.push_back(std::move(rule));
    rules_ = std::move(kept);
    reindex();
  }

private:
  void reindex();
  std::vector<Rule> rules_;
  std::vector<RuleFamily> families_;
  std::map<std::string, std::size_t, std::less<>> by_id_;
};

// "MPS101" -> "mps101", the docs anchor of a rule.
std::string to_lower_id(std::string_view id);

// Finds a data directory (`leaf` = "rules", ...) relative to the executable:
// <prefix>/share/mpsaudit/<leaf> when installed or relocated with its data,
// else <leaf> beside the binary. Returns "" when neither exists.
std::string locate_data_directory(std::string_view executable_path, std::string_view leaf);

} // namespace mpsaudit
