// Running a helper program (an interpreter the user named for `mpsaudit env`,
// git for `--changed-since` and `--staged`) with a time limit, directly:
// never through a shell, so no argument is ever parsed as shell syntax. The
// child's standard input is /dev/null, so nothing can wait on a prompt. A
// broken or hung child must not hang mpsaudit: it gets its own process group
// so that a wrapper script (pyenv shims, conda `python` scripts) is killed
// together with what it started. Never used on the scanned code: mpsaudit
// runs nothing it scans.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace mpsaudit {

struct ProcessRequest {
  std::vector<std::string> argv;                        // argv[0] is looked up on PATH when it has no '/'
  std::map<std::string, std::string> extra_environment; // added to (or replacing in) ours
  std::string working_directory;                        // empty: keep ours
  double timeout_seconds = 120;
  std::size_t max_output_bytes = 64u << 20; // per stream; the rest is discarded
};

struct ProcessResult {
  // started | not-found | not-executable | spawn-failed
  std::string launch = "spawn-failed";
  std::string launch_error; // strerror text when it did not start
  bool timed_out = false;
  bool exited = false; // normal exit (exit_status valid)
  int exit_status = -1;
  int signal = 0; // terminating signal when !exited
  std::string out, err;
  bool output_truncated = false;
  double seconds = 0;
};

// Never throws. Returns when the child exits, or after killing its process
// group at the deadline.
ProcessResult run_process(const ProcessRequest &request);

} // namespace mpsaudit
