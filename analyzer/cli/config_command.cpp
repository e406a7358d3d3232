// `mpsaudit config --show [PATH] [--config FILE]`: the effective config for a
// scan of PATH, each value with the file and line it came from
// (docs/configuration.md). Exits 2 when the config has errors.
#include <iostream>
#include <vector>

#include "cli/arguments.h"
#include "cli/cli.h"
#include "config/config.h"
#include "core/text.h"

namespace mpsaudit::cli {

int command_config(const Invocation &invocation) {
  std::string config_path, rules_dir, value, path = ".";
  bool show = false;
  Arguments args(invocation.arguments);
  while (args.next()) {
    if (args.flag("--show"))
      show = true;
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
  if (!show)
    return usage_error("config needs an action: `mpsaudit config --show [PATH]`");
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
