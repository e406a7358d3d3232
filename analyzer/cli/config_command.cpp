// `mpsaudit config --show [PATH] [--config FILE]`: the effective config for a
// scan of PATH, each value with the file and line it came from
// (docs/configuration.md). Exits 2 when the config has errors.
// `mpsaudit config init [DIR] [--force]`: writes a first DIR/mpsaudit.toml.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <vector>

#include "assess/decision.h"
#include "cli/arguments.h"
#include "cli/cli.h"
#include "config/config.h"
#include "core/text.h"

namespace mpsaudit::cli {
namespace {

std::string toml_list(const std::vector<std::string> &values) {
  std::string list = "[";
  for (const std::string &value : values)
    list += (list.size() > 1 ? ", \"" : "\"") + value + "\"";
  return list + "]";
}

template <typename Value, typename Name> std::string toml_names(const std::vector<Value> &values, Name name) {
  std::vector<std::string> names;
  for (const Value &value : values)
    names.emplace_back(name(value));
  return toml_list(names);
}

std::string toml_number(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

std::string quoted(std::string_view text) {
  return "\"" + std::string(text) + "\"";
}

// The assessment's defaults of the [assess] keys, as TOML values; the
// training-scale lists are what the rules' attributes choose.
std::vector<std::pair<std::string, std::string>> assess_defaults(const RuleCatalog &catalog) {
  DecisionThresholds defaults;
  take_training_scale(catalog, defaults);
  const auto role = [](Role value) { return std::string(to_string(value)); };
  return {
      {"adapt-max-hours", toml_number(defaults.adapt_max_hours)},
      {"keep-min-hours", toml_number(defaults.keep_min_hours)},
      {"blocker-min-effort", quoted(to_string(defaults.blocker_min_effort))},
      {"fallback-item-min-effort", quoted(to_string(defaults.fallback_item_min_effort))},
      {"training-scale-families", toml_list(defaults.training_scale_families)},
      {"training-scale-rules", toml_list(defaults.training_scale_rules)},
      {"training-scale-min-effort", quoted(to_string(defaults.training_scale_min_effort))},
      {"critical-roles", toml_names(defaults.critical_roles, role)},
      {"peripheral-roles", toml_names(defaults.peripheral_roles, role)},
      {"memory-decides", defaults.memory_decides ? "true" : "false"},
  };
}

// Writes DIR/mpsaudit.toml through a new file renamed into place, so that
// --force replaces a symbolic link there rather than writing where it points.
int write_starter_config(const std::string &directory, const RuleCatalog &catalog, bool force) {
  const std::filesystem::path target = std::filesystem::path(directory) / "mpsaudit.toml";
  struct stat existing {};
  if (!force && ::lstat(target.c_str(), &existing) == 0) {
    std::cerr << "mpsaudit: " << terminal_safe(shown_from_here(target.string()))
              << " exists; `config init --force` replaces it\n";
    return kUsage;
  }
  // A fresh name (mkstemp opens it exclusively): nothing already there, a
  // link included, is written through.
  std::string written = target.string() + ".XXXXXX";
  const int fd = ::mkstemp(written.data());
  const std::string text = starter_config(assess_defaults(catalog));
  bool complete = fd >= 0;
  for (std::size_t at = 0; complete && at < text.size();) {
    const ssize_t put = ::write(fd, text.data() + at, text.size() - at);
    complete = put > 0;
    at += complete ? static_cast<std::size_t>(put) : 0;
  }
  complete = complete && ::fchmod(fd, 0644) == 0;
  if (fd >= 0)
    complete = ::close(fd) == 0 && complete;
  if (!complete) {
    std::cerr << "mpsaudit: cannot write " << terminal_safe(shown_from_here(target.string())) << "\n";
    if (fd >= 0)
      std::remove(written.c_str());
    return kUsage;
  }
  if (std::rename(written.c_str(), target.c_str()) != 0) {
    std::cerr << "mpsaudit: cannot write " << terminal_safe(shown_from_here(target.string())) << "\n";
    std::remove(written.c_str());
    return kUsage;
  }
  std::cout << "wrote " << terminal_safe(shown_from_here(target.string()))
            << ": every key commented out, at its default or an example (docs/configuration.md)\n";
  return kClean;
}

} // namespace

int command_config(const Invocation &invocation) {
  std::string config_path, rules_dir, value, path = ".";
  bool show = false, init = false, force = false;
  Arguments args(invocation.arguments);
  while (args.next()) {
    if (args.flag("--show"))
      show = true;
    else if (args.flag("--force"))
      force = true;
    else if (!args.is_option() && args.current() == "init" && !init && !show)
      init = true;
    else if (args.option("--config", value))
      config_path = value;
    else if (args.option("--rules-dir", value))
      rules_dir = value;
    else if (!args.is_option())
      path = args.current();
    else
      return usage_error("unknown option for config: " + args.current());
    if (!args.error().empty())
      return usage_error(args.error());
  }
  if (init && show)
    return usage_error("config: init and --show are two actions; give one");
  if (init) {
    RuleCatalog catalog;
    return load_catalog(invocation, rules_dir, catalog) ? write_starter_config(path, catalog, force) : kUsage;
  }
  if (force)
    return usage_error("config: --force goes with init");
  if (!show)
    return usage_error(
        "config needs an action: `mpsaudit config --show [PATH]` or `mpsaudit config init [DIR]`");
  std::vector<Diagnostic> problems;
  if (config_path.empty())
    config_path = find_config_file(path, problems);
  Config config;
  if (!config_path.empty()) {
    ConfigLoad load = load_config_file(config_path, problems);
    if (load.has_table)
      config = std::move(load.config);
  }
  // Selectors are checked against the rule catalog, as a scan would.
  RuleCatalog catalog;
  if (problems.empty() && load_catalog(invocation, rules_dir, catalog))
    apply_rule_selection(config, catalog, problems);
  print_config_problems(std::cerr, problems);
  if (!problems.empty())
    return kUsage;
  std::cout << terminal_safe(describe_config(config), KeepLayout::TabAndNewline);
  std::cout << "\n# rules in effect: " << catalog.rules().size() << "\n";
  return kClean;
}

} // namespace mpsaudit::cli
