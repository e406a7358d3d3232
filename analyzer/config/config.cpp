#include "config/config.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>
#include <sstream>

#include <toml++/toml.h>

#include <sys/stat.h>
#include <unistd.h>

#include "core/confined_file.h"
#include "core/role.h"
#include "core/text.h"
#include "workflow/git_repository.h"
#include "workflow/path_glob.h"

namespace mpsaudit {
namespace fs = std::filesystem;

std::string ValueSource::describe() const {
  if (file.empty())
    return "default";
  if (line == 0)
    return file;
  return file + ":" + std::to_string(line);
}

namespace {

// Reads one config table, reporting every problem with file, line and key.
class ConfigReader {
public:
  ConfigReader(std::string path, std::string key_prefix, std::vector<Diagnostic> &diagnostics)
      : path_(std::move(path)), key_prefix_(std::move(key_prefix)), diagnostics_(diagnostics) {}

  void error(const toml::node &node, const std::string &message) {
    diagnostics_.push_back({DiagnosticLevel::Error, path_, line_of(node), "invalid-config", message});
  }
  std::uint32_t line_of(const toml::node &node) const {
    return static_cast<std::uint32_t>(node.source().begin.line);
  }
  ValueSource source_of(const toml::node &node) const { return ValueSource{path_, line_of(node)}; }
  std::string key_name(std::string_view key) const { return key_prefix_ + std::string(key); }

  bool read_string_list(const toml::node &node, std::string_view key, std::vector<std::string> &out) {
    const toml::array *array = node.as_array();
    if (!array) {
      error(node, "`" + key_name(key) + "` must be an array of strings");
      return false;
    }
    out.clear();
    for (const auto &element : *array) {
      const auto *text = element.as_string();
      if (!text) {
        error(element, "`" + key_name(key) + "` must contain only strings");
        return false;
      }
      out.push_back(text->get());
    }
    return true;
  }

  void read(const toml::table &table, Config &config) {
    for (const auto &[key, node] : table) {
      const std::string_view name = key.str();
      if (name == "include" || name == "exclude") {
        auto &setting = name == "include" ? config.include : config.exclude;
        if (read_string_list(node, name, setting.value))
          setting.source = source_of(node);
      } else if (name == "target-torch") {
        read_string(node, name, config.target_torch, [&](const std::string &value) {
          const bool ok = !value.empty() && value.find_first_not_of("0123456789.") == std::string::npos &&
                          value.front() != '.' && value.back() != '.' &&
                          value.find("..") == std::string::npos;
          if (!ok)
            error(node, "`" + key_name(name) + "` must be a release such as \"2.6\" or \"2.6.0\", not \"" +
                            value + "\"");
          return ok;
        });
      } else if (name == "fail-on") {
        read_string(node, name, config.fail_on, [&](const std::string &value) {
          const bool ok = value == "never" || severity_from_string(value).has_value();
          if (!ok)
            error(node,
                  "`" + key_name(name) + "` must be error, warning, info or never, not \"" + value + "\"");
          return ok;
        });
      } else if (name == "baseline") {
        read_string(node, name, config.baseline, [](const std::string &) { return true; });
      } else if (name == "rules") {
        read_rules(node, config);
      } else if (name == "per-path-ignores") {
        read_path_table(node, name, config.per_path_ignores, false);
      } else if (name == "roles") {
        read_path_table(node, name, config.roles, true);
      } else if (name == "assess") {
        read_assess(node, config);
      } else {
        error(node,
              "unknown key `" + key_name(name) +
                  "` (known: include, exclude, target-torch, fail-on, baseline, rules, per-path-ignores, "
                  "assess, roles)");
      }
    }
  }

private:
  template <typename Validate>
  void read_string(const toml::node &node, std::string_view key, Setting<std::string> &setting,
                   Validate valid) {
    const auto *text = node.as_string();
    if (!text) {
      error(node, "`" + key_name(key) + "` must be a string");
      return;
    }
    if (!valid(text->get()))
      return;
    setting.value = text->get();
    setting.source = source_of(node);
  }

  void read_rules(const toml::node &node, Config &config) {
    const toml::table *table = node.as_table();
    if (!table) {
      error(node, "`" + key_name("rules") + "` must be a table with `enable` and `disable` lists");
      return;
    }
    for (const auto &[key, value] : *table) {
      const std::string_view name = key.str();
      const std::string full = "rules." + std::string(name);
      if (name == "enable" || name == "disable") {
        auto &setting = name == "enable" ? config.enable : config.disable;
        if (read_string_list(value, full, setting.value))
          setting.source = source_of(value);
      } else {
        error(value, "unknown key `" + key_name(full) + "` (known: rules.enable, rules.disable)");
      }
    }
  }

  void read_path_table(const toml::node &node, std::string_view key, std::vector<PathSetting> &out,
                       bool roles) {
    const toml::table *table = node.as_table();
    if (!table) {
      error(node, "`" + key_name(key) + "` must be a table of \"glob\" = " +
                      (roles ? std::string("\"role\"") : std::string("[rule selectors]")));
      return;
    }
    for (const auto &[pattern, value] : *table) {
      PathSetting setting;
      setting.pattern = std::string(pattern.str());
      setting.source = source_of(value);
      const std::string full = std::string(key) + ".\"" + setting.pattern + "\"";
      if (setting.pattern.empty()) {
        error(value, "`" + key_name(key) + "` has an empty glob");
        continue;
      }
      if (roles) {
        const auto *role = value.as_string();
        const bool known = role && role_from_string(role->get()).has_value();
        if (!known) {
          error(value, "`" + key_name(full) + "` must be one of " + known_roles_text());
          continue;
        }
        setting.values.push_back(role->get());
      } else if (!read_string_list(value, full, setting.values)) {
        continue;
      }
      out.push_back(std::move(setting));
    }
  }

  void read_assess(const toml::node &node, Config &config) {
    const toml::table *table = node.as_table();
    if (!table) {
      error(node, "`" + key_name("assess") + "` must be a table");
      return;
    }
    AssessSettings &assess = config.assess;
    for (const auto &[key, value] : *table) {
      const std::string name(key.str());
      const std::string full = "assess." + name;
      if (name == "adapt-max-hours" || name == "keep-min-hours") {
        std::optional<double> number;
        if (const auto *integer = value.as_integer())
          number = static_cast<double>(integer->get());
        else if (const auto *floating = value.as_floating_point())
          number = floating->get();
        // nan compares false with everything, so `< 0` alone let it (and
        // inf) through into the decision's thresholds.
        if (!number || !std::isfinite(*number) || *number < 0) {
          error(value, "`" + key_name(full) + "` must be a finite number of hours, zero or more");
          continue;
        }
        (name == "adapt-max-hours" ? assess.adapt_max_hours : assess.keep_min_hours) =
            Setting<double>{*number, source_of(value)};
      } else if (name == "blocker-min-effort" || name == "fallback-item-min-effort" ||
                 name == "training-scale-min-effort") {
        const auto *text = value.as_string();
        if (!text || !effort_from_string(text->get())) {
          error(value,
                "`" + key_name(full) + "` must be an effort class: trivial, small, medium, large or blocker");
          continue;
        }
        auto &slot = name == "blocker-min-effort"         ? assess.blocker_min_effort
                     : name == "fallback-item-min-effort" ? assess.fallback_item_min_effort
                                                          : assess.training_scale_min_effort;
        slot = Setting<std::string>{text->get(), source_of(value)};
      } else if (name == "training-scale-families" || name == "training-scale-rules" ||
                 name == "critical-roles" || name == "peripheral-roles") {
        std::vector<std::string> list;
        if (!read_string_list(value, full, list))
          continue;
        const bool roles = name == "critical-roles" || name == "peripheral-roles";
        bool ok = true;
        for (const auto &item : list) {
          if (roles && !role_from_string(item)) {
            error(value,
                  "`" + key_name(full) + "`: unknown role \"" + item + "\" (" + known_roles_text() + ")");
            ok = false;
          }
          if (name == "training-scale-rules" && !starts_with(item, "MPS")) {
            error(value, "`" + key_name(full) + "`: \"" + item + "\" is not a rule ID");
            ok = false;
          }
        }
        if (!ok)
          continue;
        auto &slot = name == "training-scale-families" ? assess.training_scale_families
                     : name == "training-scale-rules"  ? assess.training_scale_rules
                     : name == "critical-roles"        ? assess.critical_roles
                                                       : assess.peripheral_roles;
        slot = Setting<std::vector<std::string>>{list, source_of(value)};
      } else if (name == "memory-decides") {
        const auto *flag = value.as_boolean();
        if (!flag) {
          error(value, "`" + key_name(full) + "` must be true or false");
          continue;
        }
        assess.memory_decides = Setting<bool>{flag->get(), source_of(value)};
      } else if (name == "effort-model") {
        const auto *text = value.as_string();
        if (!text || text->get().empty()) {
          error(value, "`" + key_name(full) + "` must be the path of an effort model file");
          continue;
        }
        assess.effort_model = Setting<std::string>{text->get(), source_of(value)};
      } else {
        error(value, "unknown key `" + key_name(full) +
                         "` (known: adapt-max-hours, keep-min-hours, blocker-min-effort, "
                         "fallback-item-min-effort, training-scale-families, training-scale-rules, "
                         "training-scale-min-effort, critical-roles, peripheral-roles, memory-decides, "
                         "effort-model)");
      }
    }
  }

  std::string path_;
  std::string key_prefix_;
  std::vector<Diagnostic> &diagnostics_;
};

bool is_pyproject(const std::string &path) {
  return fs::path(path).filename() == "pyproject.toml";
}

bool pyproject_has_table(const std::string &path) {
  const std::optional<std::string> text = read_whole_file(path);
  if (!text || text->find("mpsaudit") == std::string::npos)
    return false;
  try {
    const toml::table document = toml::parse(*text, path);
    return document.at_path("tool.mpsaudit").is_table();
  } catch (const toml::parse_error &) {
    return true; // let the loader report the syntax error
  }
}

} // namespace

ConfigLoad load_config_text(std::string_view text, const std::string &path,
                            std::vector<Diagnostic> &diagnostics) {
  ConfigLoad load;
  load.config.file = path;
  load.config.directory = fs::path(path).parent_path().string();
  load.config.from_pyproject = is_pyproject(path);
  toml::table document;
  try {
    document = toml::parse(text, path);
  } catch (const toml::parse_error &error) {
    diagnostics.push_back({DiagnosticLevel::Error, path,
                           static_cast<std::uint32_t>(error.source().begin.line), "invalid-config",
                           std::string(error.description())});
    return load;
  }
  // Tables iterate in key order; report problems in the file's line order.
  const std::size_t first_problem = diagnostics.size();
  struct SortByLine {
    std::vector<Diagnostic> &diagnostics;
    std::size_t first;
    ~SortByLine() {
      std::stable_sort(diagnostics.begin() + static_cast<std::ptrdiff_t>(first), diagnostics.end(),
                       [](const Diagnostic &a, const Diagnostic &b) { return a.line < b.line; });
    }
  } sort_by_line{diagnostics, first_problem};
  if (load.config.from_pyproject) {
    const toml::node_view<toml::node> table = document.at_path("tool.mpsaudit");
    if (!table) {
      load.has_table = false;
      return load;
    }
    if (!table.is_table()) {
      diagnostics.push_back({DiagnosticLevel::Error, path,
                             static_cast<std::uint32_t>(table.node()->source().begin.line), "invalid-config",
                             "`tool.mpsaudit` must be a table"});
      return load;
    }
    ConfigReader(path, "tool.mpsaudit.", diagnostics).read(*table.as_table(), load.config);
  } else {
    ConfigReader(path, "", diagnostics).read(document, load.config);
  }
  return load;
}

ConfigLoad load_config_file(const std::string &path, std::vector<Diagnostic> &diagnostics) {
  const std::optional<std::string> text = read_whole_file(path);
  if (!text) {
    diagnostics.push_back({DiagnosticLevel::Error, path, 0, "invalid-config", "cannot read the config file"});
    ConfigLoad load;
    load.has_table = false;
    return load;
  }
  return load_config_text(*text, path, diagnostics);
}

namespace {

// The scanned directory (a file's own directory), symlinks resolved.
fs::path scanned_directory(const std::string &scan_path) {
  std::error_code error;
  fs::path path = fs::weakly_canonical(fs::absolute(fs::path(scan_path), error), error);
  if (error)
    return {};
  if (!fs::is_directory(path, error))
    path = path.parent_path();
  return path;
}

// Whether the current user owns `path` itself (not what it links to), as git
// asks of a repository before it trusts it (safe.directory): anyone can make
// a .git in a shared folder such as /tmp.
bool owned_by_user(const fs::path &path) {
  struct stat info {};
  return ::lstat(path.c_str(), &info) == 0 && info.st_uid == ::geteuid();
}

} // namespace

std::string config_search_top(const std::string &scan_path) {
  const fs::path directory = scanned_directory(scan_path);
  if (directory.empty())
    return {};
  const std::optional<GitRepository> repository = find_git_repository(directory);
  if (repository && owned_by_user(repository->top / ".git"))
    return repository->top.string();
  return directory.string();
}

std::string find_config_file(const std::string &scan_path, std::vector<Diagnostic> &) {
  const fs::path top = config_search_top(scan_path);
  if (top.empty())
    return {};
  std::error_code error;
  for (fs::path directory = scanned_directory(scan_path);; directory = directory.parent_path()) {
    const fs::path own = directory / "mpsaudit.toml";
    if (fs::is_regular_file(own, error))
      return own.string();
    const fs::path pyproject = directory / "pyproject.toml";
    if (fs::is_regular_file(pyproject, error) && pyproject_has_table(pyproject.string()))
      return pyproject.string();
    // Both paths are canonical, and `top` is `directory` or above it.
    if (directory == top || directory.parent_path() == directory)
      return {};
  }
}

int selector_specificity(std::string_view selector, const Rule &rule, const RuleCatalog &catalog) {
  if (selector.empty())
    return -1;
  std::string upper(selector);
  for (char &c : upper)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (starts_with(upper, "MPS"))
    return starts_with(rule.id, upper) ? static_cast<int>(upper.size()) : -1;
  if (rule.family == selector) {
    for (const auto &family : catalog.families())
      if (family.name == rule.family)
        return static_cast<int>(family.prefix.size());
    return 3;
  }
  return -1;
}

bool rule_selected(const Config &config, const Rule &rule, const RuleCatalog &catalog) {
  const auto best = [&](const std::vector<std::string> &selectors) {
    int top = -1;
    for (const auto &selector : selectors)
      top = std::max(top, selector_specificity(selector, rule, catalog));
    return top;
  };
  const int enabled = best(config.enable.value);
  const int disabled = best(config.disable.value);
  return config.enable.value.empty() ? disabled < 0 : enabled >= 0 && enabled > disabled;
}

namespace {

// Every selector must select something, so a typo never goes unnoticed.
void check_selectors(const Config &config, const RuleCatalog &catalog, std::vector<Diagnostic> &diagnostics) {
  for (const auto *setting : {&config.enable, &config.disable}) {
    for (const auto &selector : setting->value) {
      const bool selects = std::any_of(catalog.rules().begin(), catalog.rules().end(), [&](const Rule &rule) {
        return selector_specificity(selector, rule, catalog) >= 0;
      });
      if (!selects)
        diagnostics.push_back(
            {DiagnosticLevel::Error, setting->source.file, setting->source.line, "invalid-config",
             "rule selector `" + selector + "` matches no rule ID, ID prefix or family name"});
    }
  }
}

} // namespace

void apply_rule_selection(const Config &config, RuleCatalog &catalog, std::vector<Diagnostic> &diagnostics) {
  apply_rule_selection(config, config, catalog, diagnostics);
}

std::vector<std::string> apply_rule_selection(const Config &config, const Config &user, RuleCatalog &catalog,
                                              std::vector<Diagnostic> &diagnostics) {
  check_selectors(config, catalog, diagnostics);
  const RuleCatalog &view = catalog;
  std::set<std::string> keep;
  std::vector<std::string> kept_against_config;
  for (const Rule &rule : view.rules()) {
    if (rule_selected(config, rule, view)) {
      keep.insert(rule.id);
    } else if (rule.safety && rule_selected(user, rule, view)) {
      keep.insert(rule.id);
      kept_against_config.push_back(rule.id);
    }
  }
  catalog.retain([&](const Rule &rule) { return keep.count(rule.id) > 0; });
  return kept_against_config;
}

std::string resolve_target_torch(const Config &config, const std::string &coverage_dir,
                                 std::vector<Diagnostic> &diagnostics) {
  std::vector<std::string> versions;
  std::error_code error;
  if (!coverage_dir.empty())
    for (fs::directory_iterator it(coverage_dir, error), end; !error && it != end; it.increment(error))
      if (it->path().extension() == ".tsv")
        versions.push_back(it->path().stem().string());
  // Numeric order: 2.11.0 is newer than 2.6.0.
  const auto numbers = [](const std::string &version) {
    std::vector<int> parts;
    std::stringstream stream(version);
    for (std::string part; std::getline(stream, part, '.');)
      parts.push_back(std::atoi(part.c_str()));
    return parts;
  };
  std::sort(versions.begin(), versions.end(),
            [&](const std::string &a, const std::string &b) { return numbers(a) < numbers(b); });
  const std::string &wanted = config.target_torch.value;
  if (wanted.empty())
    return versions.empty() ? std::string() : versions.back();
  // "2.6" picks the newest 2.6.x table.
  std::string chosen;
  for (const auto &version : versions)
    if (version == wanted || starts_with(version, wanted + "."))
      chosen = version;
  if (chosen.empty()) {
    std::string known;
    for (const auto &version : versions)
      known += (known.empty() ? "" : ", ") + version;
    diagnostics.push_back({DiagnosticLevel::Error, config.target_torch.source.file,
                           config.target_torch.source.line, "invalid-config",
                           "no coverage table for target-torch \"" + wanted + "\" (available: " +
                               (known.empty() ? std::string("none found") : known) + ")"});
  }
  return chosen;
}

ConfigPaths::ConfigPaths(const Config &config, std::string root_prefix)
    : config_(config), root_prefix_(std::move(root_prefix)) {}

std::string ConfigPaths::in_config_terms(const std::string &relative_path) const {
  if (root_prefix_.empty())
    return relative_path;
  return root_prefix_ + "/" + relative_path;
}

bool ConfigPaths::keep(const std::string &relative_path) const {
  const std::string path = in_config_terms(relative_path);
  const auto any = [&](const std::vector<std::string> &patterns) {
    return std::any_of(patterns.begin(), patterns.end(),
                       [&](const std::string &pattern) { return path_pattern_match(pattern, path); });
  };
  if (!config_.include.value.empty() && !any(config_.include.value))
    return false;
  return !any(config_.exclude.value);
}

bool ConfigPaths::ignored(const std::string &relative_path, const Rule &rule,
                          const RuleCatalog &catalog) const {
  const std::string path = in_config_terms(relative_path);
  for (const auto &setting : config_.per_path_ignores) {
    if (!path_pattern_match(setting.pattern, path))
      continue;
    for (const auto &selector : setting.values)
      if (selector_specificity(selector, rule, catalog) >= 0)
        return true;
  }
  return false;
}

std::string ConfigPaths::role(const std::string &relative_path) const {
  const std::string path = in_config_terms(relative_path);
  std::string role;
  for (const auto &setting : config_.roles)
    if (path_pattern_match(setting.pattern, path))
      role = setting.values.front();
  return role;
}

std::string root_prefix_for(const Config &config, const std::string &scan_root) {
  if (config.directory.empty() && config.file.empty())
    return {};
  // Symlinks resolved on both sides: a found config's path is canonical.
  std::error_code error;
  const fs::path config_dir = fs::weakly_canonical(
      fs::absolute(config.directory.empty() ? fs::path(".") : fs::path(config.directory), error), error);
  fs::path root = fs::weakly_canonical(fs::absolute(scan_root, error), error);
  if (!fs::is_directory(root, error))
    root = root.parent_path();
  const std::string relative = root.lexically_relative(config_dir).generic_string();
  if (relative.empty() || relative == "." || starts_with(relative, ".."))
    return {};
  std::string trimmed = relative;
  while (!trimmed.empty() && trimmed.back() == '/')
    trimmed.pop_back();
  return trimmed;
}

namespace {

// A TOML basic string: quotes, backslashes and control characters escaped.
std::string toml_string(const std::string &value) {
  std::string out = "\"";
  for (const char c : value) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string quoted_list(const std::vector<std::string> &values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i)
    out += (i ? ", " : "") + toml_string(values[i]);
  return out + "]";
}

std::string format_number(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

} // namespace

// Valid TOML that the config reader takes back: what each value means and
// where it comes from are comments, and a setting left to the assessment
// is a commented-out line.
std::string describe_config(const Config &config) {
  std::ostringstream out;
  out << "# config file: " << (config.file.empty() ? "none found (built-in defaults)" : config.file)
      << (config.from_pyproject ? " [tool.mpsaudit]" : "") << "\n";
  const auto row = [&](const std::string &key, const std::string &value, const ValueSource &source,
                       const std::string &meaning = {}) {
    std::string line = key + " = " + value;
    if (line.size() < 48)
      line.append(48 - line.size(), ' ');
    out << line << "  # " << source.describe() << (meaning.empty() ? "" : ": " + meaning) << "\n";
  };
  const auto unset_row = [&](const std::string &key) {
    out << "# " << key << " = ...  (unset: the assessment's default)\n";
  };
  row("include", quoted_list(config.include.value), config.include.source);
  row("exclude", quoted_list(config.exclude.value), config.exclude.source);
  row("target-torch", toml_string(config.target_torch.value), config.target_torch.source,
      config.target_torch.value.empty() ? "the newest coverage table" : "");
  row("fail-on", toml_string(config.fail_on.value.empty() ? std::string("warning") : config.fail_on.value),
      config.fail_on.source);
  row("baseline", toml_string(config.baseline.value), config.baseline.source);
  out << "\n[rules]\n";
  row("enable", quoted_list(config.enable.value), config.enable.source,
      config.enable.value.empty() ? "all rules" : "");
  row("disable", quoted_list(config.disable.value), config.disable.source);
  out << "\n[per-path-ignores]\n";
  for (const auto &setting : config.per_path_ignores)
    row(toml_string(setting.pattern), quoted_list(setting.values), setting.source);
  out << "\n[assess]\n";
  const AssessSettings &assess = config.assess;
  const auto number_row = [&](const char *key, const std::optional<Setting<double>> &setting) {
    if (setting)
      row(key, format_number(setting->value), setting->source);
    else
      unset_row(key);
  };
  const auto text_row = [&](const char *key, const std::optional<Setting<std::string>> &setting) {
    if (setting)
      row(key, toml_string(setting->value), setting->source);
    else
      unset_row(key);
  };
  const auto list_row = [&](const char *key,
                            const std::optional<Setting<std::vector<std::string>>> &setting) {
    if (setting)
      row(key, quoted_list(setting->value), setting->source);
    else
      unset_row(key);
  };
  number_row("adapt-max-hours", assess.adapt_max_hours);
  number_row("keep-min-hours", assess.keep_min_hours);
  text_row("blocker-min-effort", assess.blocker_min_effort);
  text_row("fallback-item-min-effort", assess.fallback_item_min_effort);
  list_row("training-scale-families", assess.training_scale_families);
  list_row("training-scale-rules", assess.training_scale_rules);
  text_row("training-scale-min-effort", assess.training_scale_min_effort);
  list_row("critical-roles", assess.critical_roles);
  list_row("peripheral-roles", assess.peripheral_roles);
  if (assess.memory_decides)
    row("memory-decides", assess.memory_decides->value ? "true" : "false", assess.memory_decides->source);
  else
    unset_row("memory-decides");
  text_row("effort-model", assess.effort_model);
  out << "\n[roles]\n";
  for (const auto &setting : config.roles)
    row(toml_string(setting.pattern), toml_string(setting.values.front()), setting.source);
  return out.str();
}

std::string starter_config(const std::vector<std::pair<std::string, std::string>> &assess_defaults) {
  std::ostringstream out;
  out << "# mpsaudit.toml: how `mpsaudit scan` reads this repository (docs/configuration.md).\n"
         "# Every key is optional. The commented lines show the defaults, or an example\n"
         "# where a key has none; uncomment and edit what this repository needs. Globs\n"
         "# are relative to this file.\n\n"
         "# Only files matching one of these globs are read (empty: every file).\n"
         "# include = []\n"
         "# Files never read: vendored code, experiments nobody ports.\n"
         "# exclude = [\"third_party/**\"]\n"
         "# The PyTorch release the Mac will run (\"2.6\"); empty: the manifests' exact\n"
         "# torch pin, else the newest coverage table.\n"
         "# target-torch = \"\"\n"
         "# The lowest severity that makes a scan exit 1: error, warning, info or never.\n"
         "# fail-on = \"warning\"\n"
         "# Findings recorded here are not reported again (`mpsaudit baseline write`).\n"
         "# baseline = \".mpsaudit-baseline\"\n\n"
         "[rules]\n"
         "# Rule IDs, ID prefixes or families (`mpsaudit rules`); empty: all rules.\n"
         "# enable = []\n"
         "# disable = []\n\n"
         "[per-path-ignores]\n"
         "# Findings of these rules in matching files are dropped (and counted).\n"
         "# \"tests/**\" = [\"device\"]\n\n"
         "[assess]\n"
         "# The thresholds of the decision (docs/decision.md); the defaults:\n";
  for (const auto &[key, value] : assess_defaults)
    out << "# " << key << " = " << value << "\n";
  out << "# An effort model replacing rules/effort.toml (docs/effort-model.md).\n"
         "# effort-model = \"effort.toml\"\n\n"
         "[roles]\n"
         "# The component role of matching files: model, training, data, inference,\n"
         "# tooling, tests or docs; the last matching glob wins.\n"
         "# \"tools/**\" = \"tooling\"\n";
  return out.str();
}

std::string shown_from_here(const std::string &path) {
  const std::filesystem::path given(path);
  if (path.empty() || !given.is_absolute())
    return given.lexically_normal().generic_string();
  std::error_code error;
  const std::filesystem::path here = std::filesystem::current_path(error);
  const std::string relative =
      error ? std::string() : given.lexically_normal().lexically_relative(here).generic_string();
  return relative.empty() || relative == ".." || relative.rfind("../", 0) == 0 ? path : relative;
}

void print_config_problems(std::ostream &err, const std::vector<Diagnostic> &problems) {
  for (const auto &problem : problems) {
    err << "mpsaudit: "
        << terminal_safe(problem.path.empty() ? std::string("config") : shown_from_here(problem.path));
    if (problem.line)
      err << ":" << problem.line;
    err << ": " << terminal_safe(problem.message) << "\n";
  }
}

} // namespace mpsaudit
