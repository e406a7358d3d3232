// Running a helper command (git) and reading its output. Never used on the
// scanned code: mpsaudit runs nothing it scans.
#pragma once

#include <string>

namespace mpsaudit {

// `text` quoted for /bin/sh.
std::string shell_quote(const std::string &text);

// Runs `command` through /bin/sh, appending its standard output to `output`;
// true when it could be started and exited with status 0.
bool run_command(const std::string &command, std::string &output);

} // namespace mpsaudit
