#include "cli/progress.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace mpsaudit::cli {
namespace {

constexpr std::chrono::milliseconds kAutoDelay{1000};
constexpr std::chrono::milliseconds kRedrawInterval{100};

// "\r" returns to the start of the line, "\x1b[K" erases to its end.
constexpr const char *kClearLine = "\r\x1b[K";

bool running_in_ci() {
  const char *ci = std::getenv("CI");
  return ci && *ci && std::strcmp(ci, "0") != 0 && std::strcmp(ci, "false") != 0;
}

bool dumb_terminal() {
  const char *term = std::getenv("TERM");
  return term && std::strcmp(term, "dumb") == 0;
}

std::string progress_text(const ScanProgress &progress) {
  std::string text = "mpsaudit: ";
  text += progress.phase.load(std::memory_order_relaxed);
  const std::size_t total = progress.total.load(std::memory_order_relaxed);
  if (total) {
    const std::size_t done = std::min(progress.done.load(std::memory_order_relaxed), total);
    text += " " + std::to_string(done) + "/" + std::to_string(total) + " files";
  }
  return text;
}

} // namespace

std::optional<ProgressMode> progress_mode_from_string(const std::string &text) {
  if (text == "never")
    return ProgressMode::Never;
  if (text == "auto")
    return ProgressMode::Auto;
  if (text == "always")
    return ProgressMode::Always;
  return std::nullopt;
}

bool progress_wanted(ProgressMode mode, bool machine_output_on_stdout) {
  if (mode != ProgressMode::Auto)
    return mode == ProgressMode::Always;
  return isatty(STDERR_FILENO) && !running_in_ci() && !dumb_terminal() && !machine_output_on_stdout;
}

std::chrono::milliseconds progress_delay(ProgressMode mode) {
  if (mode == ProgressMode::Always)
    return std::chrono::milliseconds(0);
  if (const char *text = std::getenv("MPSAUDIT_PROGRESS_DELAY_MS"); text && *text)
    return std::chrono::milliseconds(std::strtoul(text, nullptr, 10));
  return kAutoDelay;
}

ProgressLine::ProgressLine(const ScanProgress &progress, std::chrono::milliseconds delay)
    : progress_(progress) {
  // Without a delay the first line is drawn now, so that even a scan
  // shorter than one redraw interval shows it.
  if (delay.count() == 0)
    draw();
  thread_ = std::thread([this, delay] { run(delay); });
}

ProgressLine::~ProgressLine() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  stopped_.notify_one();
  thread_.join();
  if (drawn_) {
    std::fputs(kClearLine, stderr);
    std::fflush(stderr);
  }
}

void ProgressLine::run(std::chrono::milliseconds delay) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (stopped_.wait_for(lock, delay, [this] { return stop_; }))
    return;
  do
    draw();
  while (!stopped_.wait_for(lock, kRedrawInterval, [this] { return stop_; }));
}

void ProgressLine::draw() {
  std::string text = progress_text(progress_);
  if (text == last_)
    return;
  std::fputs(kClearLine, stderr);
  std::fputs(text.c_str(), stderr);
  std::fflush(stderr);
  last_ = std::move(text);
  drawn_ = true;
}

} // namespace mpsaudit::cli
