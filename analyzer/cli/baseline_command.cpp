// `mpsaudit baseline write FILE [scan options] [PATH...]`: records today's
// findings so that `scan --baseline FILE` reports only new ones
// (docs/baseline.md). It is a scan whose report is the baseline file.
#include <iostream>

#include "cli/arguments.h"
#include "cli/cli.h"

namespace mpsaudit::cli {

int command_baseline(const Invocation &invocation) {
  const auto &arguments = invocation.arguments;
  if (arguments.empty() || arguments.front() == "--help" || arguments.front() == "-h") {
    std::cout << "Usage: mpsaudit baseline write FILE [scan options] [PATH...]\n\n"
                 "Records the current unsuppressed findings in FILE (sorted text, one line per\n"
                 "rule, path and code). `mpsaudit scan --baseline FILE` then reports only new ones.\n";
    return arguments.empty() ? kUsage : kClean;
  }
  if (arguments.front() != "write")
    return usage_error("unknown baseline action '" + arguments.front() + "' (write)");
  if (arguments.size() < 2 || arguments[1].empty() || arguments[1][0] == '-')
    return usage_error("baseline write needs a FILE, e.g. `mpsaudit baseline write .mpsaudit-baseline`");
  Invocation scan{invocation.executable, {"--write-baseline", arguments[1]}};
  for (std::size_t i = 2; i < arguments.size(); ++i) {
    if (arguments[i] == "--baseline" || arguments[i].rfind("--baseline=", 0) == 0)
      return usage_error("baseline write records every finding; --baseline does not apply");
    scan.arguments.push_back(arguments[i]);
  }
  return command_scan(scan);
}

} // namespace mpsaudit::cli
