// The project configuration: `mpsaudit.toml`, or `[tool.mpsaudit]` in
// pyproject.toml, found by walking up from the scanned path to the scanned
// root, or to the top of the git work tree that holds it (docs/configuration.md).
//
//   include = ["src/**", "train.py"]       # only these paths (default: all)
//   exclude = ["third_party", "**/legacy"] # never these
//   target-torch = "2.6"                   # PyTorch release for the coverage tables
//   fail-on = "warning"                    # default of scan --fail-on
//   baseline = ".mpsaudit-baseline"        # default of scan --baseline
//   [rules]
//   enable = ["MPS1", "MPS2", "dtype"]     # IDs, ID prefixes or family names
//   disable = ["MPS306"]
//   [per-path-ignores]
//   "tests/**" = ["MPS2"]
//   [assess]
//   adapt-max-hours = 80                   # decision thresholds (docs/decision.md)
//   [roles]
//   "tools/**" = "tooling"
//
// Every value remembers where it came from, for `mpsaudit config --show`.
// Unknown keys and wrong types are errors naming the file, the line and the key.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/diagnostic.h"
#include "rules/rule.h"

namespace mpsaudit {

// Where a setting came from: a file and line, the command line, or the default.
struct ValueSource {
  std::string file; // empty: built-in default
  std::uint32_t line = 0;
  std::string describe() const; // "mpsaudit.toml:7", "command line", "default"
  bool is_default() const { return file.empty(); }
};

struct PathSetting {
  std::string pattern;             // path glob (workflow/path_glob.h), relative to the config's directory
  std::vector<std::string> values; // per-path-ignores: rule selectors; roles: one role
  ValueSource source;
};

template <typename T> struct Setting {
  T value{};
  ValueSource source;
};

// The [assess] table: the effort model and the decision's knobs
// (DecisionThresholds in assess/decision.h, docs/decision.md). Values are
// validated here and copied into the assessment by the CLI.
struct AssessSettings {
  std::optional<Setting<double>> adapt_max_hours; // ADAPT only while the high effort estimate stays below
  std::optional<Setting<double>> keep_min_hours;  // KEEP_LINUX_GPU once the low estimate exceeds
  std::optional<Setting<std::string>> blocker_min_effort;                   // effort class
  std::optional<Setting<std::string>> fallback_item_min_effort;             // effort class
  std::optional<Setting<std::string>> training_scale_min_effort;            // effort class
  std::optional<Setting<std::vector<std::string>>> training_scale_families; // family names
  std::optional<Setting<std::vector<std::string>>> training_scale_rules;    // rule IDs
  std::optional<Setting<std::vector<std::string>>> critical_roles;          // roles
  std::optional<Setting<std::vector<std::string>>> peripheral_roles;        // roles
  std::optional<Setting<bool>> memory_decides;
  std::optional<Setting<std::string>> effort_model; // a file shaped like rules/effort.toml
};

struct Config {
  // The file it was read from ("" when none was found) and its directory, to
  // which every glob is relative.
  std::string file;
  std::string directory;
  bool from_pyproject = false;
  // Found by find_config_file rather than named by the user (--config): it
  // comes with the scanned tree, so it may not hide safety findings (Rule::safety).
  bool from_tree = false;

  Setting<std::vector<std::string>> include;
  Setting<std::vector<std::string>> exclude;
  Setting<std::vector<std::string>> enable;  // rule selectors; empty: every rule
  Setting<std::vector<std::string>> disable; // rule selectors
  Setting<std::string> target_torch;         // "2.6"; empty: newest table
  Setting<std::string> fail_on;              // error | warning | info | never
  Setting<std::string> baseline;             // path relative to the config's directory
  std::vector<PathSetting> per_path_ignores;
  std::vector<PathSetting> roles;
  AssessSettings assess;
};

// Reads a config file. mpsaudit.toml is read whole; pyproject.toml only for
// its [tool.mpsaudit] table (a pyproject without one yields has_table=false).
// Problems are appended to `diagnostics` (level Error, naming file and line).
struct ConfigLoad {
  Config config;
  bool has_table = true;
};
ConfigLoad load_config_file(const std::string &path, std::vector<Diagnostic> &diagnostics);
// The same from text (tests); `path` names the origin in messages and decides
// the layout (a file named pyproject.toml is read for [tool.mpsaudit]).
ConfigLoad load_config_text(std::string_view text, const std::string &path,
                            std::vector<Diagnostic> &diagnostics);

// Walks up from `scan_path` (a file or directory) to the first directory
// holding mpsaudit.toml, or a pyproject.toml with [tool.mpsaudit]. The walk
// ends at the scanned directory (a file's own directory), or, when that lies
// in a git work tree whose .git the user owns, at the work tree's top: a
// config in a folder above, such as a shared or world-writable one, is
// someone else's. Returns "" when none.
std::string find_config_file(const std::string &scan_path, std::vector<Diagnostic> &diagnostics);

// Where find_config_file stops for `scan_path`: the directory itself, or the
// top of its git work tree (see there). Empty when the path cannot be resolved.
std::string config_search_top(const std::string &scan_path);

// A rule selector picks rules by ID ("MPS102"), ID prefix ("MPS1") or family
// name ("torch-cuda"). Returns how specific it is for `rule` (longer ID
// prefixes are more specific; a family name counts as its prefix), or -1.
int selector_specificity(std::string_view selector, const Rule &rule, const RuleCatalog &catalog);

// Whether `config`'s enable/disable keep `rule`: the most specific selector
// decides; a tie disables; with no enable list every rule not disabled stays.
bool rule_selected(const Config &config, const Rule &rule, const RuleCatalog &catalog);

// Applies enable/disable (rule_selected). Selectors that select nothing are
// errors naming their source.
void apply_rule_selection(const Config &config, RuleCatalog &catalog, std::vector<Diagnostic> &diagnostics);
// The same, but a safety rule (Rule::safety) that `config` drops stays while
// `user`, the selection the user made (the command line, or a config the user
// named), keeps it. Returns the IDs of the rules kept so against `config`.
std::vector<std::string> apply_rule_selection(const Config &config, const Config &user, RuleCatalog &catalog,
                                              std::vector<Diagnostic> &diagnostics);

// Validates target-torch against the coverage tables in `coverage_dir`
// (files "<version>.tsv"); returns the table's version, e.g. "2.6.0", or ""
// (with a diagnostic) when none matches. An empty setting picks the newest.
std::string resolve_target_torch(const Config &config, const std::string &coverage_dir,
                                 std::vector<Diagnostic> &diagnostics);

// Path helpers. `relative_path` is relative to the scan root; `root_prefix`
// is the scan root relative to the config's directory ("" when the same), so
// that globs written relative to the config file match.
class ConfigPaths {
public:
  ConfigPaths(const Config &config, std::string root_prefix);
  // Include/exclude: should discovery keep this file?
  bool keep(const std::string &relative_path) const;
  // Per-path ignores: is this rule ignored at this path?
  bool ignored(const std::string &relative_path, const Rule &rule, const RuleCatalog &catalog) const;
  // Role override for a path, or "" when none applies (the last match wins).
  std::string role(const std::string &relative_path) const;

private:
  std::string in_config_terms(const std::string &relative_path) const;
  const Config &config_;
  std::string root_prefix_;
};

// The scan root relative to the config's directory, "" when they are the same
// or unrelated (then globs apply to root-relative paths as they are).
std::string root_prefix_for(const Config &config, const std::string &scan_root);

// A first mpsaudit.toml, for `mpsaudit config init`: every key commented
// out at its default (an example for a key without one), under a line on
// what it does, so that it reads back as
// the built-in defaults and a later default is not frozen in. The [assess]
// defaults belong to the assessment: `assess_defaults` gives each key's
// default as a TOML value, in order.
std::string starter_config(const std::vector<std::pair<std::string, std::string>> &assess_defaults);

// The effective configuration, one line per setting with its source.
std::string describe_config(const Config &config);

// Config problems on `err`, one a line: `mpsaudit: FILE:LINE: message`, the
// file as shown_from_here shows it, so that it opens from where the user
// stands.
// `path` as the user reads it from the current directory: relative when it
// lies inside that directory, as given (normalized) otherwise, so a file
// elsewhere keeps its absolute path rather than a climb of "../../..".
std::string shown_from_here(const std::string &path);

void print_config_problems(std::ostream &err, const std::vector<Diagnostic> &problems);

} // namespace mpsaudit
