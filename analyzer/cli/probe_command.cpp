// `mpsaudit probe REPORT.json [probe options]`: runs the runtime probe on a
// saved scan report and prints its verdicts. `mpsaudit scan --probe` does the
// same within one scan and merges the verdicts into the assessment.
#include <iostream>

#include "cli/arguments.h"
#include "cli/cli.h"
#include "session/probe_runner.h"

namespace mpsaudit::cli {

int command_probe(const Invocation &invocation) {
  if (invocation.arguments.empty())
    return usage_error("probe needs a scan report: `mpsaudit scan --format json -o report.json` first");
  const std::string binary = find_probe_binary(invocation.executable);
  if (binary.empty()) {
    std::cerr << "mpsaudit: mpsaudit-probe is not installed: it is built only where LibTorch is found "
                 "(docs/runtime-probe.md)\n";
    return kUsage;
  }
  // Every argument goes to the probe as given: its options are its own.
  const int status = run_program(binary, invocation.arguments);
  if (status < 0) {
    std::cerr << "mpsaudit: could not start " << binary << "\n";
    return kScanErrors;
  }
  return status;
}

} // namespace mpsaudit::cli
