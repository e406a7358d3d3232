// `scan --progress`: a line on standard error with the scan's phase and the
// files done, rewritten in place and cleared at the end. Shown only where a
// person watches a terminal: never in pipes, CI logs or machine-readable
// output on standard output (docs/cli.md).
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "scan/scan.h"

namespace mpsaudit::cli {

enum class ProgressMode { Never, Auto, Always };

std::optional<ProgressMode> progress_mode_from_string(const std::string &text);

// Whether a scan shows the line: `always` does; `auto` when standard error is
// a terminal, not in CI (CI set), not with TERM=dumb, and not when
// standard output gets JSON, SARIF or GitHub annotations.
bool progress_wanted(ProgressMode mode, bool machine_output_on_stdout);

// How long a scan runs before the line appears: none with `always`, about a
// second with `auto` (MPSAUDIT_PROGRESS_DELAY_MS overrides it, for tests).
std::chrono::milliseconds progress_delay(ProgressMode mode);

// Draws the line from a thread of its own until destroyed; the scan's
// threads only bump ScanProgress's atomics.
class ProgressLine {
public:
  ProgressLine(const ScanProgress &progress, std::chrono::milliseconds delay);
  ~ProgressLine();
  ProgressLine(const ProgressLine &) = delete;
  ProgressLine &operator=(const ProgressLine &) = delete;

private:
  void run(std::chrono::milliseconds delay);
  void draw();

  const ScanProgress &progress_;
  std::mutex mutex_;
  std::condition_variable stopped_;
  bool stop_ = false;
  bool drawn_ = false;
  std::string last_;
  std::thread thread_;
};

} // namespace mpsaudit::cli
