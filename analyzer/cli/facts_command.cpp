// `mpsaudit facts FILE... [--rules-dir DIR]`: the facts each file yields,
// after the project passes, as one JSON array (docs/writing-rules.md). A
// rule author's view of what `[rule.match]` can test.
#include <iostream>

#include "cli/arguments.h"
#include "cli/cli.h"
#include "core/text.h"
#include "report/facts_report.h"
#include "rules/rule.h"
#include "scan/scan.h"

namespace mpsaudit::cli {

int command_facts(const Invocation &invocation) {
  std::string rules_dir, value;
  std::vector<std::string> files;
  Arguments args(invocation.arguments);
  while (args.next()) {
    if (args.option("--rules-dir", value))
      rules_dir = value;
    else if (args.is_option())
      return usage_error("unknown option for facts: " + args.current());
    else
      files.push_back(args.current());
  }
  if (files.empty())
    return usage_error("facts needs at least one FILE");
  RuleCatalog catalog;
  if (!load_catalog(invocation, rules_dir, catalog))
    return kUsage;
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  bool problems = false;
  for (const std::string &file : files) {
    ScanOptions options;
    options.paths = {file};
    options.use_git = false;
    const ScanResult result = run_scan(options, catalog);
    problems = problems || result.has_errors();
    for (const ProjectFile &project_file : result.project_files)
      out.push_back(facts_to_json(result, project_file));
    if (result.project_files.empty())
      for (const Diagnostic &diagnostic : result.diagnostics)
        std::cerr << "mpsaudit: " << terminal_safe(diagnostic.path) << ": "
                  << terminal_safe(diagnostic.message) << "\n";
  }
  std::cout << out.dump(2) << "\n";
  return problems ? kScanErrors : kClean;
}

} // namespace mpsaudit::cli
