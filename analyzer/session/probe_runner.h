// Running mpsaudit-probe, the LibTorch runtime probe, from the analyzer. The
// analyzer never links LibTorch: it writes its JSON report, starts the probe
// binary on it and reads the verdicts back (docs/runtime-probe.md).
#pragma once

#include <string>
#include <vector>

namespace mpsaudit {

// mpsaudit-probe beside this executable (`executable` is argv[0]), else on
// PATH; "" when neither.
std::string find_probe_binary(const std::string &executable);

// Runs `binary` with `arguments`, standard output going to ours; returns its
// exit status, or -1 when it could not be started.
int run_program(const std::string &binary, const std::vector<std::string> &arguments);

} // namespace mpsaudit
